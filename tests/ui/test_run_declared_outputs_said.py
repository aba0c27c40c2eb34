"""A run whose output does not fit the file's declaration (an output
declared [1] that a batch of 3 makes [3], as onnxmltools' LightGBM
converter writes the label) says so in the Run dock's status: the canvas
shows the file's [1], and onnxruntime only warns."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from viewer_helpers import open_model


def _model(path, declared) -> None:
    graph = helper.make_graph([helper.make_node("ArgMax", ["x"], ["label"], axis=1, keepdims=0)], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("label", TensorProto.INT64, declared)])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def _status_after_run(qtbot, window, path) -> str:
    open_model(qtbot, window, path)
    r = window.run_ui
    said = []
    r.controller.message.connect(lambda kind, text: said.append((kind, text)))
    r.run_all()
    assert r.controller.wait(60_000)
    qtbot.waitUntil(lambda: any(kind == "info" and "Ran the model" in text for kind, text in said), timeout=60_000)
    return next(text for kind, text in said if "Ran the model" in text)


def test_an_output_declared_for_one_row_is_said(qtbot, window, tmp_path):
    path = tmp_path / "label.onnx"
    _model(path, [1])
    text = _status_after_run(qtbot, window, path)
    assert "the file's declared type does not hold for label: declared int64[1], got int64[3] " \
           "(dimension 0 is 3, not 1)" in text


def test_a_declaration_that_holds_is_not_mentioned(qtbot, window, tmp_path):
    path = tmp_path / "label_ok.onnx"
    _model(path, [3])
    assert "declared type" not in _status_after_run(qtbot, window, path)
