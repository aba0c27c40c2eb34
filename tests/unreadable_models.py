"""Models whose external data references cannot be followed, for the tests
that open, run, save or recover them (the file opens; the weight's data is
refused when read, naming it)."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper


def _save(path, nodes, inits=()):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], list(inits))
    path.write_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    return path


def weight_outside(tmp_path):
    """tmp_path/m/model.onnx: y = x + w, w (float[4]) said to be in
    ../secret.bin, which holds other bytes (sevens) and must never be read."""
    folder = tmp_path / "m"
    folder.mkdir()
    (tmp_path / "secret.bin").write_bytes(np.full(4, 7, np.float32).tobytes())
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = w.external_data.add()
    e.key, e.value = "location", "../secret.bin"
    return _save(folder / "model.onnx", [helper.make_node("Add", ["x", "w"], ["y"], name="add")], [w])


def constant_without_location(tmp_path):
    """tmp_path/model.onnx: y = x + k, k a Constant whose value is stored
    externally without a location."""
    value = TensorProto(data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = value.external_data.add()
    e.key, e.value = "offset", "0"
    return _save(tmp_path / "model.onnx", [helper.make_node("Constant", [], ["k"], name="k", value=value),
                                           helper.make_node("Add", ["x", "k"], ["y"], name="add")])
