"""A graph output the file lists twice (each entry declaring its own type):
the value's form lists the repeat with what it declares and a button that
removes that very entry (RemoveGraphOutput with its occurrence); the
form's move buttons move the first entry, and undo of either gives the file
back (a save writes it as read)."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel

from edit_helpers import open_editable
from viewer_helpers import wait_idle


def _write(path):
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["X"], ["Y"], name="r"), helper.make_node("Neg", ["X"], ["W"], name="n")]
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])
    outputs = [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2]),
               helper.make_tensor_value_info("W", TensorProto.FLOAT, [2]),
               helper.make_tensor_value_info("Y", TensorProto.INT64, [3, "n"])]
    model = helper.make_model(helper.make_graph(nodes, "g", [x], outputs),
                              opset_imports=[helper.make_opsetid("", 17)])
    path.write_bytes(model.SerializeToString())
    return path


def _parsed(path):
    from onnxstudio.core.proto import onnx_pb2 as pb
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    return m


def _form(window):
    window.properties.show_value(window.model.graph.get_value("Y"))
    return window.properties.editor


def test_the_form_lists_the_repeat_and_removes_that_entry(qtbot, window, tmp_path):
    path = open_editable(qtbot, window, _write(tmp_path / "m.onnx"))
    as_read = _parsed(path)
    form = _form(window)
    assert "output 2: int64[3,n]" in [label.text() for label in form.findChildren(QLabel)]
    qtbot.mouseClick(form.buttons["output_repeat_2_remove"], Qt.LeftButton)
    wait_idle(qtbot, window)
    assert window.edit_actions.files.save()
    saved = _parsed(path).graph.output
    assert [(o.name, o.type.tensor_type.elem_type) for o in saved] == [("Y", 1), ("W", 1)]
    assert "output_repeat_2_remove" not in _form(window).buttons

    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert window.edit_actions.files.save()
    assert _parsed(path) == as_read


def test_moving_the_first_down_twice_and_undoing_gives_the_file_back(qtbot, window, tmp_path):
    path = open_editable(qtbot, window, _write(tmp_path / "m.onnx"))
    as_read = _parsed(path)
    for _ in range(2):
        qtbot.mouseClick(_form(window).buttons["output_down"], Qt.LeftButton)
        wait_idle(qtbot, window)
    assert window.edit_actions.files.save()
    assert [(o.name, o.type.tensor_type.elem_type) for o in _parsed(path).graph.output] == \
        [("W", 1), ("Y", 7), ("Y", 1)]
    window.edit_actions.undo()
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert window.edit_actions.files.save()
    assert _parsed(path) == as_read
