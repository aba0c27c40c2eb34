"""Edit ▸ Apply Edit Script…: a script recorded in the app with a drag-connect
replays on a re-export with another node order (the connect names what it
moves, not node positions), as one undo step, with the per-step report;
a step that no longer applies is named in the dialog and nothing changes."""
from __future__ import annotations

import json

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from edit_helpers import apply_script_from_menu
from edit_models import write_conv_model
from viewer_helpers import open_model, wait_idle


def _node(model, name):
    return next(n for n in model.graph.nodes if n.name == name)


def _ports(window, name):
    from onnxstudio.ui.canvas.ports import item_ports
    return item_ports(window.graph.scene.item_for_node(_node(window.model, name)), window.model)


def _drag(qtbot, window, start, end, steps=4):
    vp = window.graph.view.viewport()
    a, b = window.graph.view.mapFromScene(start), window.graph.view.mapFromScene(end)
    QTest.mousePress(vp, Qt.LeftButton, Qt.NoModifier, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        QTest.mouseMove(vp, QPoint(round(p.x()), round(p.y())))
    QTest.mouseRelease(vp, Qt.LeftButton, Qt.NoModifier, b)
    wait_idle(qtbot, window)


def _reexport(path) -> str:
    """The same network exported again: a Constant first (exporters hoist
    them), so every node has another position and the count differs."""
    import onnx
    from onnx import TensorProto, helper
    model = onnx.load(write_conv_model(path))
    k = helper.make_node("Constant", [], ["k_out"], name="k",
                         value=helper.make_tensor("kv", TensorProto.FLOAT, [1], [2.0]))
    nodes = [k] + list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    model.graph.output.append(helper.make_tensor_value_info("k_out", TensorProto.FLOAT, [1]))
    onnx.save(model, str(path))
    return str(path)


def test_a_drag_connect_script_replays_on_a_reexport_from_the_edit_menu(qtbot, window, tmp_path):
    open_model(qtbot, window, write_conv_model(tmp_path / "m.onnx"))
    window.graph.view.fit_rect(window.graph.scene.itemsBoundingRect(), 1.0)
    (_, s_port), = _ports(window, "sig1")[1]
    cast_in = _ports(window, "cast1")[0][0][1]
    _drag(qtbot, window, s_port, cast_in)                 # sig1 comes after cast1: it moves first
    assert _node(window.model, "cast1").inputs[0].name == "s"
    assert "Release to connect" not in window.statusBar().currentMessage()   # the hint goes with the drag
    script = tmp_path / "fix.edits.json"
    script.write_text(json.dumps(window.document.script()), encoding="utf-8")
    assert "set_node_order" not in script.read_text(encoding="utf-8")

    window.edit_actions.prompter.answers = ["Discard"]    # the edited model is not kept
    open_model(qtbot, window, _reexport(tmp_path / "again.onnx"))
    assert [n.name for n in window.model.graph.nodes] == ["k", "conv1", "relu1", "cast1", "sig1"]
    assert window.edit_actions.apply_script_action.text().replace("&", "") == "Apply Edit Script…"
    report = apply_script_from_menu(window, script)
    assert report is not None and report.isVisible() and not report.failed
    assert "1 edit replayed as one undo step" in report.headline.text()
    assert report.steps.toPlainText() == "step 1: Connect s to Cast \"cast1\""
    assert [n.name for n in window.model.graph.nodes] == ["k", "conv1", "relu1", "sig1", "cast1"]
    assert _node(window.model, "cast1").inputs[0].name == "s"
    assert window.edit_actions.undo_action.isEnabled()
    window.edit_actions.undo_action.trigger()             # the whole script is one step
    assert [n.name for n in window.model.graph.nodes] == ["k", "conv1", "relu1", "cast1", "sig1"]
    assert _node(window.model, "cast1").inputs[0].name == "r"


def test_a_step_that_no_longer_applies_is_named_and_nothing_changes(qtbot, window, tmp_path):
    open_model(qtbot, window, write_conv_model(tmp_path / "m.onnx"))
    script = tmp_path / "bad.json"
    script.write_text(json.dumps([
        {"kind": "set_node_field", "node": "relu1", "field": "doc_string", "value": "checked"},
        {"kind": "set_node_input", "node": "gone", "index": 0, "value": "x"}]), encoding="utf-8")
    index = window.document.index
    report = apply_script_from_menu(window, script)
    assert report.failed and report.isVisible()
    text = report.headline.text()
    assert "step 2" in text and "gone" in text and "Nothing was changed" in text
    assert report.steps.toPlainText().startswith("step 1: ")
    assert _node(window.model, "relu1").doc_string == "" and window.document.index == index
    # Not JSON at all: said so, in the same dialog.
    script.write_text("{not json", encoding="utf-8")
    report = apply_script_from_menu(window, script)
    assert report.failed and "invalid JSON" in report.headline.text()
