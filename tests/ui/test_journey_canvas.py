"""Journey: canvas edits as a user makes them on the demo model. A node made
by Tab or by inserting on an edge is named in its neighbour's scope, which
can form a new (closed) group with that neighbour: the new node must still
be visible and selected afterwards, not folded away with its neighbour."""
from __future__ import annotations

import shutil

from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle
from onnxstudio.resources import sample_path


def _open_demo(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)


def _node(window, op):
    return next(n for n in window.model.graph.nodes if n.op_type == op)


def _shown_and_selected(window, node) -> bool:
    item = window.graph.scene.item_for_node(node)
    return item is not None and item.ref.node is node and item.isSelected()


def test_tab_after_a_lone_node_shows_the_new_node(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    canvas = window.edit_actions.canvas
    pool = _node(window, "MaxPool")          # alone in /backbone/stage1/pool: no group yet
    window.graph.scene.item_for_node(pool).setSelected(True)
    canvas.choose_op = lambda title: ("", "Relu")
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_Tab)
    wait_idle(qtbot, window)
    relu = _node(window, "Relu")
    assert relu.name.startswith("/backbone/stage1/pool/")
    assert _shown_and_selected(window, relu)
    assert window.graph.scene.item_for_node(pool).ref.node is pool    # its neighbour is not folded away
    assert window.properties.current is relu


def test_insert_on_edge_shows_the_inserted_node(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    scene = window.graph.scene
    edge = next(e for e in scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == "logits")
    assert window.edit_actions.canvas.insert_on_edge(edge, ("", "Identity"))
    wait_idle(qtbot, window)
    identity = _node(window, "Identity")
    assert _shown_and_selected(window, identity)
    assert window.graph.scene.item_for_node(_node(window, "Gemm")).ref.node is not None
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert not any(n.op_type == "Identity" for n in window.model.graph.nodes)


def test_paste_selects_the_copy(qtbot, window, tmp_path):
    _open_demo(qtbot, window, tmp_path)
    gap = _node(window, "GlobalAveragePool")
    window.graph.scene.item_for_node(gap).setSelected(True)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_C, Qt.ControlModifier)
    qtbot.keyClick(window.graph.view, Qt.Key_V, Qt.ControlModifier)
    wait_idle(qtbot, window)
    copies = [n for n in window.model.graph.nodes if n.op_type == "GlobalAveragePool"]
    assert len(copies) == 2
    copy = next(n for n in copies if n is not gap)
    assert _shown_and_selected(window, copy)
    assert not window.graph.scene.item_for_node(gap).isSelected()


def test_paste_into_another_model_opened_afterwards(qtbot, window, tmp_path):
    """What the README promises for Ctrl+C / Ctrl+V across models: the copy
    keeps its op and attributes; inputs the other model lacks stay empty."""
    from shared_models import SHARED_MODELS
    _open_demo(qtbot, window, tmp_path)
    conv = _node(window, "Conv")
    window.graph.scene.item_for_node(conv).setSelected(True)
    assert window.edit_actions.canvas.copy() == 1
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    before = len(window.model.graph.nodes)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, Qt.Key_V, Qt.ControlModifier)
    wait_idle(qtbot, window)
    assert len(window.model.graph.nodes) == before + 1
    pasted = next(n for n in window.model.graph.nodes if n.name == conv.name)
    assert pasted.op_type == "Conv" and pasted.attributes["pads"].value == [1, 1, 1, 1]
    assert all(v is None for v in pasted.inputs)
