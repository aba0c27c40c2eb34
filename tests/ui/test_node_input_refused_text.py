"""A node input typed with a name nothing defines is refused, and the field
shows the name the node still reads, as the attribute fields do: the
refused text stayed in the focused field while the model kept the old
input, and leaving the field refused it a second time (QA)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from edit_helpers import open_conv_model, type_into


def test_a_refused_input_name_gives_the_field_back_its_value(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    conv = next(n for n in window.model.graph.nodes if n.name == "conv1")
    window.properties.show_node(conv)
    editor = window.properties.editor
    field = editor.input_edits[0]
    type_into(qtbot, field, "no_such_value")
    assert conv.inputs[0].name == "x"
    assert "no value named" in editor.message.text()
    assert field.hasFocus() and field.text() == "x"
    steps = len(window.document.steps)
    window.graph.view.setFocus()                  # leaving the field commits nothing more
    qtbot.keyClick(window.graph.view, Qt.Key_Shift)
    assert len(window.document.steps) == steps and conv.inputs[0].name == "x"
