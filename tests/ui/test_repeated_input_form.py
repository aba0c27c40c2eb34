"""A graph input the file declares twice can be fixed where the user sees it:
the Problems dock names the repeat (graph/input[1] "X"), a click selects
that declaration's own box and shows its form, whose one button removes it;
the form of the first declaration lists the repeat with the same button,
and its own Remove is off while the repeat stays. Before, both forms sent
RemoveGraphInput("X"), which took the first declaration (the one Relu
reads) and was refused. Undo brings the repeat back and a save then writes
the file as read."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLineEdit, QPushButton

from edit_helpers import open_editable
from viewer_helpers import wait_idle

DUPLICATE = "graph.input-duplicate"


def _write(path):
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Relu", ["X"], ["Y"], name="r")], "g", [x, x],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path.write_bytes(model.SerializeToString())
    return path


def _codes(window):
    return [d.code for d in window.document.diagnostics]


def _parsed(path):
    from onnxstudio.core.proto import onnx_pb2 as pb
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    return m


def _click_the_problem(qtbot, window):
    problems = window.edit_actions.problems
    qtbot.waitUntil(lambda: problems.tree.topLevelItemCount() == 1, timeout=60_000)
    row = problems.tree.topLevelItem(0)
    assert row.text(1) == 'graph/input[1] "X"' and row.text(2) == DUPLICATE
    qtbot.mouseClick(problems.tree.viewport(), Qt.LeftButton, pos=problems.tree.visualItemRect(row).center())
    wait_idle(qtbot, window)


def test_the_problem_leads_to_the_repeat_whose_form_removes_it(qtbot, window, tmp_path):
    path = open_editable(qtbot, window, _write(tmp_path / "m.onnx"))
    as_read = _parsed(path)
    g = window.model.graph
    first, repeat = g.inputs
    _click_the_problem(qtbot, window)
    assert window.properties.current is repeat
    assert [item.ref.value for item in window.graph.scene.selectedItems()] == [repeat]
    form = window.properties.editor
    # Its name stands for the first declaration: no field that would edit that one.
    assert not form.findChildren(QLineEdit)
    assert [b.text() for b in form.findChildren(QPushButton)] == ["Remove this declaration"]
    qtbot.mouseClick(form.buttons["input_remove"], Qt.LeftButton)
    wait_idle(qtbot, window)
    assert DUPLICATE not in _codes(window)
    assert list(g.inputs) == [first] and [n.name for n, _ in first.uses] == ["r"]
    assert window.edit_actions.files.save()
    assert [vi.name for vi in _parsed(path).graph.input] == ["X"]

    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert list(g.inputs) == [first, repeat] and DUPLICATE in _codes(window)
    assert window.edit_actions.files.save()
    assert _parsed(path) == as_read


def test_the_first_declarations_form_lists_the_repeat(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write(tmp_path / "m.onnx"))
    g = window.model.graph
    first = g.get_value("X")
    window.properties.show_value(first)
    form = window.properties.editor
    own = form.buttons["input_remove"]
    assert not own.isEnabled() and "Input 1 declares X again" in own.toolTip()
    qtbot.mouseClick(form.buttons["repeat_1_remove"], Qt.LeftButton)
    wait_idle(qtbot, window)
    assert list(g.inputs) == [first] and DUPLICATE not in _codes(window)
    window.properties.show_value(first)
    form = window.properties.editor
    assert form.buttons["input_remove"].isEnabled() and "repeat_1_remove" not in form.buttons
