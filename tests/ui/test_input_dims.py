"""Edit > Set Dims of All Inputs… (issue 25): one dialog sets the first dim
(batch) or every dim of one name across the graph inputs, warns first when
the inputs disagree on it, and applies as one undo step through core's
set_input_shape; inference follows."""
from __future__ import annotations

from PySide6.QtCore import Qt

from edit_helpers import open_editable


def _write_two_input_model(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"], name="add1"),
         helper.make_node("Relu", ["s"], ["y"], name="relu1")], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, "seq", 8]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", "seq", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", "seq", 8])],
        value_info=[helper.make_tensor_value_info("s", TensorProto.FLOAT, ["N", "seq", 8])])
    onnx.save_model(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _open_dialog(qtbot, window):
    window.edit_actions.input_dims_action.trigger()
    dialog = window.edit_actions.input_dims.dialog
    qtbot.waitUntil(dialog.isVisible)
    return dialog


def _shape(window, name):
    return list(window.model.graph.get_value(name).type.shape)


def test_batch_of_all_inputs_in_one_step(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write_two_input_model(tmp_path / "m.onnx"))
    steps = len(window.document.steps)
    dialog = _open_dialog(qtbot, window)
    # a has 1, b has N: said before anything changes
    assert "a 1" in dialog.warning.text() and "b N" in dialog.warning.text()
    qtbot.keyClicks(dialog.value, "4")
    qtbot.keyClick(dialog.value, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert _shape(window, "a") == [4, "seq", 8] and _shape(window, "b") == [4, "seq", 8]
    assert len(window.document.steps) == steps + 1
    assert window.document.undo_name == "Set dims of all inputs"
    # inference and the declarations the change reaches follow
    assert list(window.document.type_of(window.model.graph.get_value("y")).shape)[0] == 4
    window.edit_actions.undo()
    assert _shape(window, "a") == [1, "seq", 8] and _shape(window, "b") == ["N", "seq", 8]


def test_named_dim_and_refusals(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write_two_input_model(tmp_path / "m.onnx"))
    dialog = _open_dialog(qtbot, window)
    dialog.which.setFocus()
    index = dialog.which.findData("seq")
    assert index > 0
    while dialog.which.currentIndex() != index:
        qtbot.keyClick(dialog.which, Qt.Key_Down)
    assert dialog.warning.text() == ""          # both say seq
    # a negative size is refused in the dialog, which stays open
    qtbot.keyClicks(dialog.value, "-2")
    qtbot.keyClick(dialog.value, Qt.Key_Return)
    assert dialog.isVisible() and "negative" in dialog.message.text()
    assert _shape(window, "a") == [1, "seq", 8]
    dialog.value.selectAll()
    qtbot.keyClicks(dialog.value, "128")
    qtbot.keyClick(dialog.value, Qt.Key_Return)
    qtbot.waitUntil(lambda: not dialog.isVisible())
    assert _shape(window, "a") == [1, 128, 8] and _shape(window, "b") == ["N", 128, 8]
