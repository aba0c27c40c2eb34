"""A file can declare an output shape that a run does not give: onnxmltools'
LightGBM converter declares the label [1] for an input of [N, 8], and a
batch of 9 gives [9]. onnxruntime only warns and returns the value;
`onnxstudio run` printed int64[9] beside a canvas that showed the file's [1],
without a word. It now notes which declaration did not hold."""
from __future__ import annotations

import json

import numpy as np
from onnx import TensorProto, helper, save_model

from onnxstudio.cli import main
from onnxstudio.core.ir import Value
from onnxstudio.core.ir.types import TensorType
from onnxstudio.core.exec.values import declared_mismatch


def _model(path, declared):
    g = helper.make_graph([helper.make_node("ArgMax", ["x"], ["label"], axis=1, keepdims=0)], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])],
                          [helper.make_tensor_value_info("label", TensorProto.INT64, declared)])
    save_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)


def test_an_output_declared_for_one_row_is_noted(tmp_path, capsys):
    path, x = tmp_path / "m.onnx", tmp_path / "x.npy"
    _model(path, [1])
    np.save(x, np.random.default_rng(0).standard_normal((9, 3)).astype(np.float32))
    assert main(["run", str(path), "--input", f"x={x}"]) == 0
    out = capsys.readouterr().out
    assert "label: int64[9]" in out
    assert "note: the file's declaration of label does not hold for this run: declared int64[1], got int64[9] " \
           "(dimension 0 is 9, not 1)" in out
    assert main(["run", str(path), "--input", f"x={x}", "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["declarations_not_holding"] == {"label": "declared int64[1], got int64[9] (dimension 0 is 9, not 1)"}


def test_a_declaration_that_holds_says_nothing(tmp_path, capsys):
    path, x = tmp_path / "m.onnx", tmp_path / "x.npy"
    _model(path, ["n"])
    np.save(x, np.zeros((9, 3), np.float32))
    assert main(["run", str(path), "--input", f"x={x}"]) == 0
    assert "note:" not in capsys.readouterr().out


def test_what_a_declaration_can_be_wrong_about():
    label = Value("label", TensorType(7, (1,)))                  # int64[1]
    assert declared_mismatch(label, np.zeros(1, np.int64)) is None
    assert "dimension 0 is 4, not 1" in declared_mismatch(label, np.zeros(4, np.int64))
    assert "rank 2 instead of 1" in declared_mismatch(label, np.zeros((1, 1), np.int64))
    assert declared_mismatch(label, np.zeros(1, np.float32)).startswith("declared int64[1], got float[1]")
    assert declared_mismatch(Value("s", TensorType(7, ("n", -1))), np.zeros((3, 5), np.int64)) is None
    assert declared_mismatch(label, [np.zeros(1)]) is not None       # a sequence where a tensor is declared
