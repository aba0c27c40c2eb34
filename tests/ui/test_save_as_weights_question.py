"""Save As (Ctrl+Shift+S) asks where the weights go only when there is a
choice to make (issue 25): a model with external data, or one whose
tensors inline would pass protobuf's 2 GB limit. An all-inline model is
saved all inline without the question."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from edit_helpers import open_editable


def _write_model(path, external: bool):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.arange(4096, dtype=np.float32).reshape(64, 64), "W")   # 16 KB
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    if external:
        onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location=path.name + ".data", size_threshold=1024)
    else:
        onnx.save_model(model, str(path))
    return path


def _save_as(qtbot, window, target, answer="Keep as they are"):
    """Ctrl+Shift+S; the file dialog answers `target`; the weights question is recorded."""
    asked = []
    files = window.edit_actions.files
    files.choose_save_path = lambda: str(target)
    files.choose_weights = lambda: asked.append(True) or answer
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_S, Qt.ControlModifier | Qt.ShiftModifier)
    qtbot.waitUntil(lambda: target.exists(), timeout=10_000)
    return asked


def test_all_inline_model_is_saved_without_the_question(qtbot, window, tmp_path):
    import onnx
    open_editable(qtbot, window, _write_model(tmp_path / "inline.onnx", external=False))
    target = tmp_path / "copy.onnx"
    assert _save_as(qtbot, window, target) == []
    saved = onnx.load(str(target), load_external_data=False)
    assert saved.graph.initializer[0].data_location == onnx.TensorProto.DEFAULT
    assert not (tmp_path / "copy.onnx.data").exists()


def test_external_data_model_asks_where_the_weights_go(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write_model(tmp_path / "ext.onnx", external=True))
    assert _save_as(qtbot, window, tmp_path / "copy.onnx") == [True]


def test_a_model_past_the_protobuf_limit_inline_asks(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.core.serde import io
    open_editable(qtbot, window, _write_model(tmp_path / "big.onnx", external=False))
    monkeypatch.setattr(io, "PROTOBUF_LIMIT", 8 * 1024)     # 16 KB of weights: "past the limit"
    assert _save_as(qtbot, window, tmp_path / "copy.onnx", "In an external data file") == [True]
    assert (tmp_path / "copy.onnx.data").exists()
