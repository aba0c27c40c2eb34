"""Shared tensors are visible: the tensor editor says how many nodes read an
initializer (through Identity nodes too, as exporters share LayerNorm weights),
makes a private copy for one reader as one undo step, warns before a dtype
conversion that changes every reader; and going to a shared value on the
canvas goes to its edge nearest to the selected node, not the first listed."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle


def _shared_model(path, layers: int = 4) -> str:
    """gamma feeds Mul m0 directly and m1..m{layers-1} through Identity
    nodes id1..: y_k = y_{k-1} * gamma."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    nodes = [helper.make_node("Mul", ["x", "gamma"], ["y0"], name="m0")]
    for k in range(1, layers):
        nodes.append(helper.make_node("Identity", ["gamma"], [f"g{k}"], name=f"id{k}"))
        nodes.append(helper.make_node("Mul", [f"y{k - 1}", f"g{k}"], [f"y{k}"], name=f"m{k}"))
    graph = helper.make_graph(nodes, "shared", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info(f"y{layers - 1}", TensorProto.FLOAT, [4])],
                              [numpy_helper.from_array(np.array([1.5, 2, 3, 4], np.float32), "gamma")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _node(window, name):
    return next(n for n in window.model.graph.nodes if n.name == name)


def _editor(window, name="gamma"):
    window.properties.show_value(window.model.graph.get_value(name))
    editor = window.properties.tensor_editor
    assert editor is not None
    return editor


def test_the_editor_counts_readers_through_identity_and_makes_a_private_copy(qtbot, window, tmp_path):
    open_model(qtbot, window, _shared_model(tmp_path / "m.onnx"))
    editor = _editor(window)
    assert editor.sharing.isVisible() and editor.copy_row.isVisible()
    text = editor.sharing.text()
    assert "read by 4 nodes (Mul)" in text and "Through 3 Identity nodes" in text
    assert [editor.reader_combo.itemText(i) for i in range(editor.reader_combo.count())] == \
        [_node(window, f"m{k}").display_name for k in range(4)]
    assert editor.choose_reader(_node(window, "m2"))
    steps = window.document.index
    qtbot.mouseClick(editor.copy_button, Qt.LeftButton)
    m2 = _node(window, "m2")
    copy = m2.inputs[1]
    assert copy.name != "g2" and copy.is_initializer and copy.name.startswith("gamma_m2")
    assert np.array_equal(copy.const.numpy(), [1.5, 2, 3, 4])
    assert _node(window, "m3").inputs[1].name == "g3" and _node(window, "m0").inputs[1].name == "gamma"
    assert window.document.index == steps + 1
    assert "Private copy of gamma" in window.document.undo_name
    # The editor now edits the copy, read by m2 alone.
    editor = window.properties.tensor_editor
    assert editor.source.value is copy and "Read by 1 node" in editor.sharing.text()
    assert not editor.copy_row.isVisible()
    window.edit_actions.undo()
    assert _node(window, "m2").inputs[1].name == "g2"
    assert window.model.graph.get_value(copy.name) is None


def test_converting_a_shared_tensor_warns_first(qtbot, window, tmp_path):
    from onnxstudio.core.ir import DataType
    open_model(qtbot, window, _shared_model(tmp_path / "m.onnx"))
    editor = _editor(window)
    editor.dtype_combo.setCurrentIndex(editor.dtype_combo.findData(int(DataType.FLOAT16)))
    steps = window.document.index
    qtbot.mouseClick(editor.cast_button, Qt.LeftButton)
    assert window.document.index == steps, "the first Apply only shows the warning"
    assert "4 nodes read this tensor" in editor.preview_label.text()
    assert "to float16" in editor.preview_label.text()
    qtbot.mouseClick(editor.cast_button, Qt.LeftButton)        # read, applied
    assert int(window.model.graph.get_value("gamma").const.dtype) == int(DataType.FLOAT16)


def test_going_to_a_shared_weight_goes_to_the_reader_nearest_the_selected_node(qtbot, window, tmp_path):
    open_model(qtbot, window, _shared_model(tmp_path / "m.onnx", layers=8))
    graph = window.graph
    wait_idle(qtbot, window)
    gamma = window.model.graph.get_value("gamma")
    assert [n.name for n, _ in gamma.uses][0] == "m0"
    # Looking at the last layers (m6 selected), go to gamma (its link in Properties).
    graph.scene.clearSelection()
    graph.scene.item_for_node(_node(window, "m6")).setSelected(True)
    window.properties.navigate.emit(gamma)
    wait_idle(qtbot, window)
    # (The cards fold each Identity into the Mul it feeds.)
    near = {graph.scene.item_for_node(_node(window, n)) for n in ("id6", "id7")}
    first = graph.scene.item_for_node(_node(window, "m0"))
    assert first not in near
    chosen = graph.scene.selectedItems()
    assert len(chosen) == 1 and chosen[0] in near, chosen        # not m0, the first listed reader
    assert graph.view.visible_scene_rect().contains(chosen[0].sceneBoundingRect().center())
    # Nothing selected: the reader nearest the middle of the view.
    graph.scene.clearSelection()
    graph.view.centerOn(graph.scene.item_for_node(_node(window, "id3")).sceneBoundingRect().center())
    window.properties.navigate.emit(gamma)
    wait_idle(qtbot, window)
    assert graph.scene.selectedItems() == [graph.scene.item_for_node(_node(window, "id3"))]
