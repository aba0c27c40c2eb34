"""Opening time: onnxstudio.core.load against onnx.load, same machine, one run.

    python benchmarks/load.py [MODEL.onnx ...]     (default: ../shared/models/*)

For each model: median of several opens for ours (file -> IR ready to use) and
for onnx.load (file -> ModelProto with external data loaded, its default), and
the ratio ours/onnx (< 1 means we are faster). Then models with 64 MB and
512 MB of external weights, to show that opening time does not grow with
weight bytes.
"""
from __future__ import annotations

import pathlib
import sys
import tempfile

import numpy as np

from timing import interleaved_medians

REPO = pathlib.Path(__file__).resolve().parent.parent


def _external_model(folder: pathlib.Path, megabytes: int) -> pathlib.Path:
    import onnx
    from onnx import TensorProto, helper

    n = megabytes * 1024 * 1024 // 4 // 8
    inits, nodes, x = [], [], "x"
    offset = 0
    with open(folder / f"w{megabytes}.bin", "wb") as f:
        for i in range(8):
            arr = np.full(n, i, np.float32)
            f.write(arr.tobytes())
            t = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[n],
                            data_location=TensorProto.EXTERNAL)
            for k, v in {"location": f"w{megabytes}.bin", "offset": str(offset), "length": str(arr.nbytes)}.items():
                e = t.external_data.add()
                e.key, e.value = k, v
            offset += arr.nbytes
            inits.append(t)
            nodes.append(helper.make_node("Add", [x, f"w{i}"], [f"y{i}"]))
            x = f"y{i}"
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info(x, TensorProto.FLOAT, [n])], inits)
    path = folder / f"ext{megabytes}.onnx"
    onnx.save(helper.make_model(g), path)
    return path


def main(argv: list[str]) -> int:
    import onnx

    from onnxstudio import core

    paths = [pathlib.Path(p) for p in argv] or sorted((REPO.parent / "shared" / "models").glob("*/model.onnx"))
    print("ours: core.load (graph IR built on first use); ours+IR: core.load and the IR built")
    print(f"{'model':32} {'ours ms':>9} {'ours+IR ms':>11} {'onnx.load ms':>13} {'ratio':>7} {'ratio+IR':>9}")
    for p in paths:
        core.load(p)
        onnx.load(p)
        repeat = 50 if p.stat().st_size < 50e6 else 9
        ours, full, theirs = interleaved_medians([lambda: core.load(p), lambda: core.load(p).graph,
                                            lambda: onnx.load(p)], repeat)
        name = p.parent.name if p.name == "model.onnx" else p.name
        print(f"{name:32} {ours * 1e3:9.2f} {full * 1e3:11.2f} {theirs * 1e3:13.2f} {ours / theirs:7.2f} "
              f"{full / theirs:9.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = pathlib.Path(tmp)
        print("\nexternal weights (open = load + first access to nothing):")
        for mb in (64, 512):
            p = _external_model(folder, mb)
            ours, theirs = interleaved_medians([lambda: core.load(p), lambda: onnx.load(p)], 3)
            full = interleaved_medians([lambda: core.load(p).graph], 5)[0]
            print(f"{f'{mb} MB external':32} {ours * 1e3:9.2f} {full * 1e3:11.2f} {theirs * 1e3:13.2f} "
                  f"{ours / theirs:7.3f} {full / theirs:9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
