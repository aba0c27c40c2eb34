"""torch's legacy exporter traces nn.MultiheadAttention's head split into a
Reshape whose target mixes a number it saw with dims it read from Shape:
[seq, batch, 32] -> [7, 4*batch, 8]. Such a model runs only with seq 7
(onnxruntime fails at any other), yet every checker called it clean, since
the target was not all numbers. Symbols the target shares with the input
now cancel out, and the one left is named with its only size."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import WARNING, check


def _model(path, first):
    """x [seq, batch, 32] -> Reshape([first, 4 * batch, 8]), batch read with Shape."""
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Gather", ["s", "one"], ["b"], axis=0),
             helper.make_node("Mul", ["b", "four"], ["b4"]),
             helper.make_node("Unsqueeze", ["b4", "zero"], ["b4_1d"]),
             helper.make_node("Concat", [first, "b4_1d", "eight"], ["target"], axis=0),
             helper.make_node("Reshape", ["x", "target"], ["y"], name="heads")]
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
             (("one", 1), ("four", 4), ("zero", [0]), ("eight", [8]), ("seven", [7]))]
    if first == "seq":          # the dynamic neighbour: seq read with Shape too
        nodes[1:1] = [helper.make_node("Gather", ["s", "zero"], ["seq"], axis=0)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["seq", "batch", 32])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)]).SerializeToString())
    return path


def _runs(path, seq) -> bool:
    try:
        ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
            None, {"x": np.zeros((seq, 2, 32), np.float32)})
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return False
    return True


def test_a_traced_length_beside_a_shape_read_batch_is_named(tmp_path):
    path = _model(tmp_path / "traced.onnx", "seven")
    assert _runs(path, 7) and not _runs(path, 5)
    found = [d for d in check(core.load(path)) if d.code == "shape.dim-fixed"]
    assert [d.severity for d in found] == [WARNING]
    assert found[0].path == 'graph/node[5] Reshape "heads"'
    assert "seq can only be 7" in found[0].message and "[7, 4*batch, 8]" in found[0].message


def test_a_target_read_wholly_from_the_input_fixes_nothing(tmp_path):
    path = _model(tmp_path / "dynamic.onnx", "seq")
    assert _runs(path, 7) and _runs(path, 5)
    assert not [d for d in check(core.load(path)) if d.code == "shape.dim-fixed"]
