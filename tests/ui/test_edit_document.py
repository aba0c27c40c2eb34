"""The seam: one Document owns the open model; every panel observes it."""
from __future__ import annotations

from edit_models import write_conv_model
from viewer_helpers import open_model


def _wait_analysed(qtbot, window):
    qtbot.waitUntil(lambda: window.qdoc is not None and window.qdoc.ready, timeout=60_000)


def test_one_document_shared_by_every_panel(qtbot, window, tmp_path):
    open_model(qtbot, window, write_conv_model(tmp_path / "m.onnx"))
    qdoc = window.qdoc
    assert qdoc is not None and window.document is qdoc.document
    assert window.graph.qdoc is qdoc and window.properties.qdoc is qdoc
    assert window.document.model is window.model is window.graph.model
    _wait_analysed(qtbot, window)
    # Types come from the document: "c" has no value_info, only inference knows it.
    c = window.model.graph.get_value("c")
    assert str(qdoc.type_of(c)) == str(window.document.type_of(c))
    assert "float[1,4,8,8]" in str(qdoc.type_of(c))
    window.properties.show_value(c)
    assert "(inferred)" in window.properties.browser.toPlainText()
    labels = [item for item in window.graph.scene.edge_items.values() if item.ref.value is c]
    assert labels and all("float[1,4,8,8]" in item.full_label for item in labels)


def test_an_edit_refreshes_the_panels(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetNodeField
    open_model(qtbot, window, write_conv_model(tmp_path / "m.onnx"))
    _wait_analysed(qtbot, window)
    node = window.model.graph.nodes[1]
    window.properties.show_node(node)
    assert window.qdoc.apply(SetNodeField("relu1", "doc_string", "edited by a test"))
    assert "edited by a test" in window.properties.browser.toPlainText()
    # The search index follows renames.
    assert window.qdoc.apply(SetNodeField("relu1", "name", "activation_renamed"))
    qtbot.keyClicks(window.search.edit, "activation_renamed")
    assert window.search.results.count() == 1
