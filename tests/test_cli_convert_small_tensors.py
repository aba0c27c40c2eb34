"""`onnxstudio convert --external-data FILE` on a model whose tensors are all
under --size-threshold wrote only OUTPUT and said "wrote OUTPUT", leaving the
user to look for FILE (QA h37: the scikit-learn exports and the scripted
loop). It now says no tensor reached the threshold, that FILE was not
written, and what to give instead."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save_model

from onnxstudio.cli import main


def _model(path, size: int) -> None:
    w = np.arange(size, dtype=np.float32)
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size])],
                          initializer=[numpy_helper.from_array(w, "w")])
    save_model(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10), path)


def test_no_tensor_over_the_threshold_says_the_data_file_was_not_written(tmp_path, capsys):
    _model(tmp_path / "small.onnx", 16)          # 64 bytes of weights
    out = tmp_path / "out.onnx"
    assert main(["convert", "--external-data", "w.data", str(tmp_path / "small.onnx"), str(out)]) == 0
    said = capsys.readouterr().out
    assert out.is_file() and not (tmp_path / "w.data").exists()
    assert "w.data was not written" in said and "--size-threshold 1024" in said
    assert main(["convert", "--external-data", "w.data", "--size-threshold", "0",
                 str(tmp_path / "small.onnx"), str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    assert (tmp_path / "w.data").stat().st_size == 64


def test_a_tensor_over_the_threshold_says_only_wrote(tmp_path, capsys):
    _model(tmp_path / "big.onnx", 1024)
    out = tmp_path / "out.onnx"
    assert main(["convert", "--external-data", "w.data", str(tmp_path / "big.onnx"), str(out)]) == 0
    assert capsys.readouterr().out.strip() == f"wrote {out}"
    assert (tmp_path / "w.data").is_file()
