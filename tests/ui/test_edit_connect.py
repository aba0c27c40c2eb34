"""Wiring by hand on the canvas, through mouse gestures: drag from an output
port to an input port (valid targets light up green, refused ones red with
the reason in the status bar), a producer that comes later moves before its
new reader, disconnect from the edge menu (optional inputs only), and a loose
node dragged onto an edge is inserted there. Each is one undo step."""
from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from edit_models import write_conv_model
from viewer_helpers import open_model, wait_idle


def _node(model, name):
    return next(n for n in model.graph.nodes if n.name == name)


def _item(window, name):
    return window.graph.scene.item_for_node(_node(window.model, name))


def _view_point(window, scene_point) -> QPoint:
    return window.graph.view.mapFromScene(scene_point)


def _ports(window, name):
    from onnxstudio.ui.canvas.ports import item_ports
    return item_ports(_item(window, name), window.model)


def _drag(qtbot, window, start, end, steps=4, check=None):
    """Press at scene point `start`, move to `end` in steps, call `check`
    before releasing there."""
    vp = window.graph.view.viewport()
    a, b = _view_point(window, start), _view_point(window, end)
    QTest.mousePress(vp, Qt.LeftButton, Qt.NoModifier, a)
    for i in range(1, steps + 1):
        p = a + (b - a) * i / steps
        QTest.mouseMove(vp, QPoint(round(p.x()), round(p.y())))
    if check is not None:
        check()
    QTest.mouseRelease(vp, Qt.LeftButton, Qt.NoModifier, b)
    wait_idle(qtbot, window)


def _show_all(qtbot, window):
    wait_idle(qtbot, window)
    window.graph.view.fit_rect(window.graph.scene.itemsBoundingRect(), 1.0)


def test_drag_from_output_port_to_input_port(qtbot, window, tmp_path):
    path = write_conv_model(tmp_path / "m.onnx")
    open_model(qtbot, window, path)
    _show_all(qtbot, window)
    dragger = window.edit_actions.canvas.ports
    # Hovering a card shows its ports.
    conv_item = _item(window, "conv1")
    QTest.mouseMove(window.graph.view.viewport(), _view_point(window, conv_item.scene_rect().center()))
    assert dragger.marks is not None and len(dragger.marks.inputs) == 3 and len(dragger.marks.outputs) == 1
    # conv1's output "c" onto sig1's input 0 (it reads "r" now).
    (c, c_port), = _ports(window, "conv1")[1]
    (_, sig_in), = _ports(window, "sig1")[0]
    seen = {}

    def valid():
        seen["target"] = dragger.target
        seen["marks"] = (dragger.marks.target, dragger.marks.target_ok)
        seen["status"] = window.statusBar().currentMessage()
    _drag(qtbot, window, c_port, sig_in, check=valid)
    assert seen["target"][1] == 0 and seen["target"][2] is True
    assert seen["marks"][1] is True and "sig1" in seen["status"]
    sig = _node(window.model, "sig1")
    assert sig.inputs[0].name == "c"
    assert window.document.undo_name.startswith("Connect c")
    window.edit_actions.undo()
    assert sig.inputs[0].name == "r"
    _show_all(qtbot, window)
    # sig1's output onto conv1's input: a cycle, shown red, refused with the reason.
    (s, s_port), = _ports(window, "sig1")[1]
    conv_in = _ports(window, "conv1")[0][0][1]
    index_before = window.document.index

    def refused():
        seen["target"] = dragger.target
        seen["status"] = window.statusBar().currentMessage()
    _drag(qtbot, window, s_port, conv_in, check=refused)
    assert seen["target"][2] is False and "cycle" in seen["status"]
    assert window.document.index == index_before
    assert _node(window.model, "conv1").inputs[0].name == "x"
    assert "cycle" in window.edit_actions.last_refusal


def test_connect_moves_a_later_producer_first(qtbot, window, tmp_path):
    import onnx
    path = write_conv_model(tmp_path / "m.onnx")
    open_model(qtbot, window, path)
    _show_all(qtbot, window)
    # sig1 (after cast1 in the node list) feeds cast1: sig1 moves before cast1.
    (_, s_port), = _ports(window, "sig1")[1]
    cast_in = _ports(window, "cast1")[0][0][1]
    _drag(qtbot, window, s_port, cast_in)
    names = [n.name for n in window.model.graph.nodes]
    assert names.index("sig1") < names.index("cast1")
    assert _node(window.model, "cast1").inputs[0].name == "s"
    window.edit_actions.undo()                       # one step: order and input back
    assert [n.name for n in window.model.graph.nodes] == ["conv1", "relu1", "cast1", "sig1"]
    assert _node(window.model, "cast1").inputs[0].name == "r"
    window.edit_actions.redo()
    window.edit_actions.files.choose_save_path = lambda: str(tmp_path / "out.onnx")
    window.edit_actions.files.choose_weights = lambda: "Keep as they are"
    assert window.edit_actions.files.save_as()
    onnx.checker.check_model(onnx.load(str(tmp_path / "out.onnx")))


def _clip_model(path):
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("ReduceMin", ["x"], ["lo"], name="lo_node", keepdims=0),
             helper.make_node("Clip", ["x", "lo"], ["y"], name="clip"),
             helper.make_node("Relu", ["y"], ["z"], name="relu")]
    graph = helper.make_graph(nodes, "clip", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("z", TensorProto.FLOAT, [4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _edge(window, value_name, target_name):
    scene = window.graph.scene
    target = _node(window.model, target_name)
    return next(e for e in scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == value_name
                and scene.view_model.nodes[e.ref.target].node is target)


def _edge_menu_action(window, edge, text):
    from PySide6.QtWidgets import QMenu
    menu = QMenu(window)           # parented: alive while its action is triggered
    window.graph.edge_menu_hook(menu, edge)
    return next(a for a in menu.actions() if a.text().startswith(text))


def test_disconnect_from_the_edge_menu(qtbot, window, tmp_path):
    open_model(qtbot, window, _clip_model(tmp_path / "clip.onnx"))
    # Clip's min is optional: cleared (and, being last, left out).
    _edge_menu_action(window, _edge(window, "lo", "clip"), "Disconnect").trigger()
    clip = _node(window.model, "clip")
    assert [v.name for v in clip.inputs] == ["x"]
    assert window.document.undo_name.startswith("Disconnect lo")
    wait_idle(qtbot, window)
    # Relu's input is required: refused, named, nothing changes.
    index = window.document.index
    _edge_menu_action(window, _edge(window, "y", "relu"), "Disconnect").trigger()
    assert window.document.index == index
    assert "required" in window.edit_actions.last_refusal and "relu" in window.edit_actions.last_refusal
    window.edit_actions.undo()
    assert [v.name for v in clip.inputs] == ["x", "lo"]


def test_a_loose_node_dropped_on_an_edge_is_inserted(qtbot, window, tmp_path):
    path = write_conv_model(tmp_path / "m.onnx")
    open_model(qtbot, window, path)
    window.graph.scene.clearSelection()
    canvas = window.edit_actions.canvas
    assert canvas.add_node(("", "Neg"))                # Tab with nothing selected: a loose node
    _show_all(qtbot, window)
    neg = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    assert canvas.is_loose(neg)
    item = window.graph.scene.item_for_node(neg)
    edge = _edge(window, "r", "sig1")
    # A point on the edge's path, away from the cards.
    target = edge.path.pointAtPercent(0.5)
    seen = {}

    def over_edge():
        seen["edge"] = window.edit_actions.canvas.ports.over_edge
        seen["lit"] = edge.highlighted
        seen["status"] = window.statusBar().currentMessage()
    _drag(qtbot, window, item.scene_rect().center(), target, steps=6, check=over_edge)
    assert seen["edge"] is edge and seen["lit"] and "insert" in seen["status"].lower()
    neg = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    sig = _node(window.model, "sig1")
    assert neg.inputs[0].name == "r" and sig.inputs[0] is neg.outputs[0]
    assert _node(window.model, "cast1").inputs[0].name == "r"       # the other reader keeps its input
    window.edit_actions.undo()                                      # one step: loose again
    neg = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    assert canvas.is_loose(neg) and sig.inputs[0].name == "r"


@pytest.mark.slow
def test_after_an_edit_unmoved_items_are_kept_and_the_scene_matches_a_rebuild(qtbot, window, tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
    import onnx
    from synthetic_model import build
    from onnxstudio.core.edits import insert_on_edge
    from onnxstudio.ui.canvas.items import EdgeItem, NodeItem
    from onnxstudio.ui.canvas.scene import GraphScene
    path = tmp_path / "big.onnx"
    onnx.save(build(2500), str(path))
    open_model(qtbot, window, path)
    for _ in range(4):                 # nested groups open one level at a time
        window.graph.expand_all()
        wait_idle(qtbot, window, timeout=300_000)
    scene = window.graph.scene
    assert len(scene.node_items) > 500
    before = set(map(id, list(scene.node_items.values()) + list(scene.edge_items.values())))
    graph = window.model.graph
    target = next(n for n in graph.nodes[len(graph.nodes) // 2:] if n.op_type == "MatMul")
    name = target.name.rsplit("/", 1)[0] + "/neg_test"      # in its neighbour's group
    assert window.qdoc.apply(insert_on_edge(window.model, target.outputs[0].name, "Neg", name=name))
    wait_idle(qtbot, window)
    items = list(scene.node_items.values()) + list(scene.edge_items.values())
    kept = sum(id(i) in before for i in items)
    assert kept >= 0.9 * len(items), f"only {kept} of {len(items)} items kept"
    # The kept-and-patched scene is the one a full rebuild draws.
    fresh = GraphScene()
    fresh.populate(scene.view_model, scene.layout_result, window.graph.inferred)
    assert {k: (i.scene_rect(), i.title, i.lines, i.ref.node, i.ref.value) for k, i in scene.node_items.items()} == \
        {k: (i.scene_rect(), i.title, i.lines, i.ref.node, i.ref.value) for k, i in fresh.node_items.items()}
    assert {k: (i.points, i.full_label, i.ref.value, i.src_key, i.dst_key) for k, i in scene.edge_items.items()} == \
        {k: (i.points, i.full_label, i.ref.value, i.src_key, i.dst_key) for k, i in fresh.edge_items.items()}
    # Nothing left behind: every box and edge in the scene is one the scene knows.
    known = set(map(id, items))
    assert all(id(i) in known for i in scene.items() if isinstance(i, (NodeItem, EdgeItem)))
    frames = [i for i in scene.items() if type(i).__name__ == "GroupFrame"]
    assert len(frames) == len(scene.group_frames)
    titles = [i for i in scene.items() if type(i).__name__ == "GroupTitle"]
    assert len(titles) == len(frames)
    assert {p: (f.scene_rect(), f.title) for p, f in scene.group_frames.items()} == \
        {p: (f.scene_rect(), f.title) for p, f in fresh.group_frames.items()}
    window.edit_actions.undo()
    wait_idle(qtbot, window)
    assert not any(n.name == name for n in window.model.graph.nodes)


def test_an_edit_inside_a_collapsed_group_needs_no_layout_unless_it_renames(qtbot, window, tmp_path):
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
    import onnx
    from synthetic_model import build
    from onnxstudio.core.edits import SetAttribute, SetNodeField
    from onnxstudio.core.ir import AttrType
    path = tmp_path / "big.onnx"
    onnx.save(build(2500), str(path))
    open_model(qtbot, window, path)
    scene = window.graph.scene
    node = next(n for n in window.model.graph.nodes if n.op_type == "Softmax")
    box = scene.item_for_node(node)
    assert box is not None and box.kind == "group"         # hidden in a collapsed group
    items = set(map(id, scene.items()))
    assert window.qdoc.apply(SetAttribute(node.name, "axis", AttrType.INT, -1))
    assert not window.graph.layout_running                     # no re-layout started
    wait_idle(qtbot, window)
    assert set(map(id, scene.items())) == items
    # A new name may move the node to another group: laid out again.
    assert window.qdoc.apply(SetNodeField(node.name, "name", "elsewhere/Softmax_moved"))
    assert window.graph.layout_running
    wait_idle(qtbot, window)
    assert scene.item_for_node(node) is not box
