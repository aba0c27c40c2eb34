"""With nothing selected the Properties dock shows the model's form; an edit
(anywhere in the model) updates that form in place instead of building a new
one, and leaves the field being typed into alone."""
from __future__ import annotations

from edit_helpers import open_conv_model


def test_model_form_updated_in_place(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetAttribute, SetMetadata, SetModelField
    from onnxstudio.core.ir import AttrType
    open_conv_model(qtbot, window, tmp_path)
    props = window.properties
    window.graph.scene.clearSelection()
    props.show_model()
    editor, page = props.editor, props.browser.toHtml()
    # An attribute edit deep in the graph: same form, same page.
    assert window.qdoc.apply(SetAttribute("cast1", "to", AttrType.INT, 10))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    assert props.editor is editor and props.browser.toHtml() == page
    # A model field edited elsewhere (a script, undo): the field follows, same form.
    assert window.qdoc.apply(SetModelField("producer_name", "someone"))
    assert props.editor is editor and editor.fields["producer_name"].text() == "someone"
    assert "someone" in props.browser.toPlainText()
    window.edit_actions.undo()
    assert props.editor is editor and editor.fields["producer_name"].text() == "edit-tests"
    # A field the user is typing into keeps its text through an unrelated edit.
    field = editor.fields["doc_string"]
    field.setFocus()
    field.setText("half typed")
    assert window.qdoc.apply(SetModelField("domain", "ai.example"))
    assert props.editor is editor and field.text() == "half typed"
    assert editor.fields["domain"].text() == "ai.example"
    # A new metadata row changes the form's shape: built again, row shown.
    assert window.qdoc.apply(SetMetadata("k", "v"))
    assert props.editor is not editor
    assert props.editor.metadata.rowCount() == 1 and props.editor.metadata.item(0, 1).text() == "v"
    # A value edited in the table by a script shows in the same form.
    editor = props.editor
    assert window.qdoc.apply(SetMetadata("k", "w"))
    assert props.editor is editor and editor.metadata.item(0, 1).text() == "w"
