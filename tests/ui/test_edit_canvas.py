"""Canvas edits through the app: delete, delete-and-reconnect, add, insert on
an edge, copy/paste, extract, cleanup; undo/redo; save and reload; and the
picture stays still outside the edited piece."""
from __future__ import annotations

import pytest

from PySide6.QtCore import Qt

from edit_models import write_conv_model
from edit_helpers import open_editable
from synthetic_models import synthetic_model_file
from viewer_helpers import wait_idle


def _select(window, *names):
    scene = window.graph.scene
    scene.clearSelection()
    for name in names:
        node = next(n for n in window.model.graph.nodes if n.name == name)
        scene.item_for_node(node).setSelected(True)


def _ops(model):
    return [n.op_type for n in model.graph.nodes]


def test_delete_bypass_add_insert_copy_paste_extract(qtbot, window, tmp_path):
    from onnxstudio import core
    path = write_conv_model(tmp_path / "m.onnx")
    open_editable(qtbot, window, path)
    canvas = window.edit_actions.canvas
    window.graph.view.setFocus()
    # Del on a node whose output is read is refused, naming the readers.
    _select(window, "relu1")
    qtbot.keyClick(window.graph.view, Qt.Key_Delete)
    assert _ops(window.model) == ["Conv", "Relu", "Cast", "Sigmoid"]
    assert "relu1" in window.edit_actions.last_refusal or "Relu" in window.edit_actions.last_refusal
    # Shift+Del reconnects the readers to the node's input.
    qtbot.keyClick(window.graph.view, Qt.Key_Delete, Qt.ShiftModifier)
    assert _ops(window.model) == ["Conv", "Cast", "Sigmoid"]
    assert window.model.graph.nodes[1].inputs[0].name == "c"
    window.edit_actions.undo()
    assert _ops(window.model) == ["Conv", "Relu", "Cast", "Sigmoid"]
    wait_idle(qtbot, window)
    # Insert on the edge relu1 -> sig1 (from the edge's context menu entry).
    scene = window.graph.scene
    sig = next(n for n in window.model.graph.nodes if n.name == "sig1")
    edge = next(e for e in scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == "r"
                and scene.view_model.nodes[e.ref.target].node is sig)
    assert canvas.insert_on_edge(edge, ("", "Neg"))
    neg = next(n for n in window.model.graph.nodes if n.op_type == "Neg")
    assert sig.inputs[0] is neg.outputs[0] and neg.inputs[0].name == "r"
    cast = next(n for n in window.model.graph.nodes if n.name == "cast1")
    assert cast.inputs[0].name == "r"          # the other reader keeps its input
    wait_idle(qtbot, window)
    # Add a node after the selected one (Tab opens the palette; chosen here).
    _select(window, "sig1")
    assert canvas.add_node(("", "Abs"))
    abs_node = next(n for n in window.model.graph.nodes if n.op_type == "Abs")
    assert abs_node.inputs[0] is sig.outputs[0]
    wait_idle(qtbot, window)
    # Copy / paste: fresh names, inputs kept where they exist.
    _select(window, "cast1")
    assert canvas.copy() == 1
    assert canvas.paste()
    casts = sorted((n for n in window.model.graph.nodes if n.op_type == "Cast"), key=lambda n: n.name)
    assert [c.name for c in casts] == ["cast1", "cast1_1"] and casts[1].inputs[0].name == "r"
    assert casts[1].outputs[0].name != "y"
    assert casts[1].attributes["to"].value == casts[0].attributes["to"].value
    wait_idle(qtbot, window)
    # Extract conv1 + relu1 into a new model.
    _select(window, "conv1", "relu1")
    out = tmp_path / "part.onnx"
    canvas.choose_extract_path = lambda: str(out)
    assert canvas.extract()
    part = core.load(out)
    assert _ops(part) == ["Conv", "Relu"] and [v.name for v in part.graph.inputs] == ["x"]
    # Cleanup removes the dangling Abs and pasted Cast (nothing reads them).
    assert canvas.cleanup()
    assert "Abs" not in _ops(window.model)
    window.edit_actions.undo()
    assert "Abs" in _ops(window.model)
    window.edit_actions.redo()
    assert window.edit_actions.files.save()
    again = core.load(path)
    assert _ops(again) == _ops(window.model)
    assert sorted(_ops(again)) == ["Cast", "Conv", "Neg", "Relu", "Sigmoid"]



def _boxes(scene):
    """Keyed by the IR node (box ids follow node positions, which an insert shifts)."""
    out = {}
    for key, item in scene.node_items.items():
        r = item.scene_rect()
        thing = item.ref.node if item.ref.node is not None else item.ref.value if item.ref.value is not None else key
        out[thing] = (round(r.x(), 2), round(r.y(), 2), round(r.width(), 2), round(r.height(), 2))
    return out


def _moved(window, before, after, piece):
    vm = window.graph.scene.view_model
    return [k for k in before if k in after and before[k] != after[k]
            and (vm.box_for(k) if hasattr(k, "op_type") else None) not in piece]


def _piece_ids(window, node):
    from onnxstudio.core.layout.api import MAX_PIECE
    from onnxstudio.core.layout.pieces import plan_pieces
    view_model = window.graph.scene.view_model
    box = view_model.box_for(node)
    for piece in plan_pieces(view_model.request, MAX_PIECE):
        ids = {n.id for n in piece.nodes}
        if box in ids:
            return ids, len(plan_pieces(view_model.request, MAX_PIECE))
    raise AssertionError("node not in any piece")


@pytest.mark.slow
def test_only_the_edited_piece_moves(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetAttribute
    from onnxstudio.core.ir import AttrType
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 2500))
    window.graph.expand_all()
    wait_idle(qtbot, window, timeout=300_000)
    graph = window.model.graph
    target = next(n for n in graph.nodes[len(graph.nodes) // 2:] if n.op_type == "MatMul")
    before = _boxes(window.graph.scene)
    # An attribute that adds a line to the box: its piece is laid out again.
    assert window.qdoc.apply(SetAttribute(target.name, "note_for_test", AttrType.STRING, "wider than before"))
    wait_idle(qtbot, window)
    after = _boxes(window.graph.scene)
    piece, count = _piece_ids(window, target)
    assert count > 2, "the test needs a graph cut into several pieces"
    moved = _moved(window, before, after, piece)
    assert not moved, f"{len(moved)} boxes outside the edited piece moved, e.g. {moved[:3]}"
    assert after[target] != before[target]
    # Insert on an edge.
    before = after
    value = target.outputs[0].name
    from onnxstudio.core.edits import insert_on_edge
    from onnxstudio.ui.canvas_edits import scoped_name
    assert window.qdoc.apply(insert_on_edge(window.model, value, "Relu", name=scoped_name(target, "Relu")))
    wait_idle(qtbot, window)
    after = _boxes(window.graph.scene)
    piece, _ = _piece_ids(window, target)
    moved = _moved(window, before, after, piece)
    assert not moved, f"{len(moved)} boxes outside the edited piece moved, e.g. {moved[:3]}"
    assert len(after) == len(before) + 1
