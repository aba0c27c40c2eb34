"""The step of connecting or clearing a node's input names the node, its op
and the value (issue 25: "Connect input 0 to 'input_ids'" said which input
of which node?), in the Edit menu and the history, in English and zh_CN."""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton

from edit_helpers import open_conv_model, type_into


def _node_editor(window, name):
    window.properties.show_node(next(n for n in window.model.graph.nodes if n.name == name))
    return window.properties.editor


def test_connect_and_clear_steps_name_the_node(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    type_into(qtbot, _node_editor(window, "sig1").input_edits[0], "c")
    assert window.document.undo_name == "Connect input 0 of Sigmoid \"sig1\" to 'c'"
    assert window.edit_actions.undo_action.text() == "&Undo Connect input 0 of Sigmoid \"sig1\" to 'c'"
    editor = _node_editor(window, "conv1")
    clear = [b for b in editor.findChildren(QToolButton) if b.toolTip().startswith("Leave")][2]
    qtbot.mouseClick(clear, Qt.LeftButton)
    assert window.document.undo_name == 'Clear input 2 of Conv "conv1"'
    # The inverse names the node too (the Redo item after an undo).
    window.edit_actions.undo()
    assert window.document.redo_name == 'Clear input 2 of Conv "conv1"'


def test_connect_step_name_in_chinese():
    from PySide6.QtCore import QCoreApplication, QTranslator
    import sys
    import pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    import i18n  # tools/i18n.py
    from onnxstudio.ui import step_names
    translator = QTranslator()
    assert translator.load(str(i18n.qm_path("zh_CN")))
    QCoreApplication.installTranslator(translator)
    try:
        shown = step_names.display_name("Connect input 0 of Add \"/m/add\" to 'input_ids'")
        assert shown != "Connect input 0 of Add \"/m/add\" to 'input_ids'"
        assert "Add \"/m/add\"" in shown and "'input_ids'" in shown and "0" in shown
        assert "Conv \"conv1\"" in step_names.display_name('Clear input 2 of Conv "conv1"')
    finally:
        QCoreApplication.removeTranslator(translator)
