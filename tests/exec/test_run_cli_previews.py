"""`onnxstudio run` shows the first elements of a sequence or a map output
(a classifier's probabilities per class), where it printed only "sequence
of 3"; tensors keep their statistics."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper

from onnxstudio.cli import main


def _zip_map_model(path) -> None:
    node = helper.make_node("ZipMap", ["x"], ["probabilities"], domain="ai.onnx.ml",
                            classlabels_int64s=list(range(10)))
    out = helper.make_tensor_sequence_value_info("probabilities", TensorProto.FLOAT, None)
    out.type.sequence_type.elem_type.ClearField("tensor_type")
    out.type.sequence_type.elem_type.map_type.key_type = TensorProto.INT64
    out.type.sequence_type.elem_type.map_type.value_type.tensor_type.elem_type = TensorProto.FLOAT
    graph = helper.make_graph([node], "z", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 10])], [out])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("ai.onnx.ml", 1)]), path)


def test_a_sequence_of_maps_shows_its_first_maps(tmp_path, capsys):
    path = tmp_path / "zip.onnx"
    _zip_map_model(path)
    x = (np.arange(50, dtype=np.float32) / 100).reshape(5, 10)
    np.save(tmp_path / "x.npy", x)
    assert main(["run", str(path), "--input", f"x={tmp_path / 'x.npy'}"]) == 0
    line = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("probabilities"))
    # Three of the five maps, eight of each map's ten entries, then "...".
    assert line.startswith("probabilities: sequence of 5: [0] {0: 0, 1: 0.01, 2: 0.02,")
    assert "[2] {0: 0.2, 1: 0.21" in line and "[3]" not in line
    assert line.count(", ...}") == 3 and line.endswith(", ...")
