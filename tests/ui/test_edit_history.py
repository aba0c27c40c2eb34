"""Undo/redo, the history dock, save with its questions, live problems and badges."""
from __future__ import annotations

import os

from edit_helpers import open_conv_model
from edit_models import write_conv_model
from viewer_helpers import open_model, wait_idle


def test_undo_redo_history_and_title(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetAttribute, SetNodeField
    from onnxstudio.core.ir import AttrType
    open_conv_model(qtbot, window, tmp_path)
    actions = window.edit_actions
    assert not actions.undo_action.isEnabled()
    assert "*" not in window.windowTitle()
    assert window.qdoc.apply(SetAttribute("conv1", "strides", AttrType.INTS, [2, 2]))
    assert window.qdoc.apply(SetNodeField("relu1", "doc_string", "x"))
    assert window.windowTitle().startswith("m.onnx*")
    assert actions.undo_action.isEnabled() and "doc_string" in actions.undo_action.text()
    rows = [actions.history.list.item(i).text() for i in range(actions.history.list.count())]
    assert len(rows) == 3 and "strides" in rows[1]
    actions.undo_action.trigger()
    assert window.model.graph.nodes[1].doc_string == ""
    actions.redo_action.trigger()
    assert window.model.graph.nodes[1].doc_string == "x"
    # Clicking the first row goes back to the model as opened.
    item = actions.history.list.item(0)
    actions.history._clicked(item)
    assert window.model.graph.nodes[0].attributes["strides"].value == [1, 1]
    assert "*" not in window.windowTitle()
    assert actions.redo_action.isEnabled()


def test_save_reload_and_disk_change(qtbot, window, tmp_path):
    from onnxstudio import core
    from onnxstudio.core.edits import SetAttribute
    from onnxstudio.core.ir import AttrType
    path = open_conv_model(qtbot, window, tmp_path)
    assert window.qdoc.apply(SetAttribute("conv1", "group", AttrType.INT, 1))
    assert window.edit_actions.files.save()
    assert "*" not in window.windowTitle()
    assert core.load(path).graph.nodes[0].attributes["group"].value == 1
    # Another program rewrites the file: the next save asks first.
    assert window.qdoc.apply(SetAttribute("conv1", "group", AttrType.INT, 1))   # no-op value, still a step
    os.utime(path, ns=(1, 1))
    prompter = window.edit_actions.prompter
    prompter.answers = ["Cancel"]
    assert not window.edit_actions.files.save()
    assert prompter.asked[-1][0] == "File changed on disk"
    prompter.answers = ["Overwrite"]
    assert window.edit_actions.files.save()


def test_unsaved_changes_are_asked_about(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetNodeField
    open_conv_model(qtbot, window, tmp_path)
    assert window.qdoc.apply(SetNodeField("relu1", "doc_string", "x"))
    prompter = window.edit_actions.prompter
    prompter.answers = ["Cancel"]
    other = write_conv_model(tmp_path / "other.onnx")
    window.open_path(other)
    assert window.path.name == "m.onnx" and prompter.asked[-1][0] == "Unsaved changes"
    prompter.answers = ["Discard"]
    open_model(qtbot, window, other)
    assert window.path.name == "other.onnx"


def test_problem_listed_with_badge_and_click_selects(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetNodeField
    open_conv_model(qtbot, window, tmp_path)
    problems = window.edit_actions.problems
    assert window.qdoc.apply(SetNodeField("relu1", "op_type", "Reluu"))
    qtbot.waitUntil(lambda: problems.tree.topLevelItemCount() > 0, timeout=60_000)
    codes = [problems.tree.topLevelItem(i).text(2) for i in range(problems.tree.topLevelItemCount())]
    assert "node.unknown-op" in codes
    relu = window.model.graph.nodes[1]
    wait_idle(qtbot, window)      # the wider title is laid out again (pinned)
    item = window.graph.scene.item_for_node(relu)
    assert item is not None and item.badge == 2
    # Filtering by text hides what does not match.
    problems.filter.setText("no-such-text")
    assert problems.tree.topLevelItemCount() == 0
    problems.filter.setText("Reluu")
    row = problems.tree.topLevelItem(0)
    problems._activate(row)
    qtbot.waitUntil(lambda: item.isSelected(), timeout=60_000)
    assert window.properties.current is relu
    # Undo clears the problem and the badge.
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.graph.scene.item_for_node(relu).badge is None, timeout=60_000)
