"""A model whose weights all sit in one external data file, for the load
and save benchmarks: x + w0 + ... + w7 (float32 weights filled with their
index), optionally followed by a Cast named "cast" (an attribute to edit)."""
from __future__ import annotations

import pathlib

import numpy as np


def external_model(folder: pathlib.Path, megabytes: int, *, model_name: str, data_name: str,
                   cast: bool = False) -> pathlib.Path:
    """folder/model_name with `megabytes` of weights in folder/data_name."""
    from onnx import TensorProto, helper, save

    n = megabytes * 1024 * 1024 // 4 // 8
    inits, nodes, x, offset = [], [], "x", 0
    with open(folder / data_name, "wb") as f:
        for i in range(8):
            arr = np.full(n, i, np.float32)
            f.write(arr.tobytes())
            t = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[n], data_location=TensorProto.EXTERNAL)
            for k, v in {"location": data_name, "offset": str(offset), "length": str(arr.nbytes)}.items():
                e = t.external_data.add()
                e.key, e.value = k, v
            offset += arr.nbytes
            inits.append(t)
            nodes.append(helper.make_node("Add", [x, f"w{i}"], [f"y{i}"]))
            x = f"y{i}"
    if cast:
        nodes.append(helper.make_node("Cast", [x], ["out"], name="cast", to=TensorProto.FLOAT))
        x = "out"
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [n])], inits)
    path = folder / model_name
    save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]), path)
    return path
