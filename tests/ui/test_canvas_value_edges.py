"""A selected edge lights the other edges of its value (Model Explorer's
users asked to see which edges carry the same value): a residual read by a
far Add, a mask read by every layer, can be followed across the canvas."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from viewer_helpers import open_model, wait_idle
from onnxstudio.core.edits import insert_on_edge


def _fan_out_model(path) -> None:
    """x → Relu "r" → read by Neg, Abs and a far Add (a skip connection); Exp stands apart."""
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Neg", ["r"], ["n"], name="neg"),
             helper.make_node("Abs", ["n"], ["a"], name="abs"),
             helper.make_node("Add", ["a", "r"], ["s"], name="add"),
             helper.make_node("Sigmoid", ["r"], ["g"], name="sig"),
             helper.make_node("Exp", ["s"], ["y"], name="exp")]
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("x", "y", "g")]
    graph = helper.make_graph(nodes, "fan", [info[0]], info[1:])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def _lit(edges) -> list[bool]:
    return [edge.highlighted for edge in edges]


def test_a_selected_edge_lights_the_other_edges_of_its_value(qtbot, window, tmp_path):
    path = tmp_path / "fan.onnx"
    _fan_out_model(path)
    open_model(qtbot, window, path)
    scene = window.graph.scene
    r = window.model.graph.get_value("r")
    edges = scene.edges_of_value(r)
    assert len(edges) == 3                          # to Neg, Add and Sigmoid

    edges[0].setSelected(True)
    assert _lit(edges) == [False, True, True]       # the selected one is drawn as selected
    others = [e for e in scene.edge_items.values() if e.ref.value is not r]
    assert others and not any(e.highlighted for e in others)

    scene.clearSelection()
    scene.item_for_node(window.model.graph.nodes[0]).setSelected(True)   # a node: nothing lit
    assert _lit(edges) == [False, False, False]

    scene.clearSelection()
    edges[2].setSelected(True)
    assert _lit(edges) == [True, True, False]


def test_clicking_an_edge_lights_its_siblings_and_an_edit_keeps_it(qtbot, window, tmp_path):
    path = tmp_path / "fan.onnx"
    _fan_out_model(path)
    open_model(qtbot, window, path)
    view, scene = window.graph.view, window.graph.scene
    r = window.model.graph.get_value("r")
    edge = scene.edges_of_value(r)[1]
    view.center_on_item(edge, zoom=1.0)
    middle = edge.path.pointAtPercent(0.5)
    at = view.mapFromScene(edge.mapToScene(middle))
    QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier, at)
    assert edge.isSelected()
    assert sum(e.highlighted for e in scene.edges_of_value(r)) == 2

    # An edit elsewhere lays the graph out again: the value stays selected (its edges selected or lit).
    assert window.qdoc.apply(insert_on_edge(window.model, "s", "Relu", name="after_add"))
    wait_idle(qtbot, window)
    edges = scene.edges_of_value(r)
    assert len(edges) == 3 and any(e.isSelected() for e in edges)
    assert all(e.isSelected() or e.highlighted for e in edges)
    others = [e for e in scene.edge_items.values() if e.ref.value is not r]
    assert not any(e.highlighted or e.isSelected() for e in others)
