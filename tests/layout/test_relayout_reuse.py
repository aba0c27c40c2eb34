"""A re-layout after an edit takes the pieces the edit left equal from the
layout on screen (layout(previous=...)): pinned back, the picture is the one
a re-layout that lays out and stacks every piece again gives, after inserts,
deletes, renames, undo and redo."""
from __future__ import annotations

import random

import pytest
from synthetic_models import synthetic_model_file

from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetNodeField, bypass_node, insert_on_edge
from onnxstudio.core.layout import LayoutCache, build_view, layout
from onnxstudio.ui.canvas.pinning import pin_to_shown

# A kept piece stays exactly where it was shown; one laid out and stacked
# again is pinned back by its shift rounded to 0.1 (pinning._piece_delta),
# so within 0.05 of that place when the stacking moved it by a fraction.
TOLERANCE = 0.05 + 1e-9


def measure(label):
    if label.kind == "group_title":
        return 7.0 * len(label.title) + 30, 0.0
    return 8.0 * max([len(label.title)] + [len(s) for s in label.lines]) + 20, 20.0 * (1 + len(label.lines))



def random_edit(doc, rng):
    graph = doc.model.graph
    nodes = [n for n in graph.nodes if n.op_type not in ("Constant", "Identity") and n.outputs and n.name]
    kind = rng.choice(["insert", "insert", "bypass", "rename", "undo", "redo"])
    if kind == "undo" and doc.can_undo:
        doc.undo()
    elif kind == "redo" and doc.can_redo:
        doc.redo()
    elif kind == "bypass":
        node = rng.choice([n for n in nodes if n.op_type in ("Relu", "Softmax", "Sqrt", "Transpose")])
        doc.apply(bypass_node(doc.model, node.name))
    elif kind == "rename":
        node = rng.choice(nodes)
        scope = node.name.rsplit("/", 1)[0]
        doc.apply(SetNodeField(node.name, "name", f"{scope}/renamed_{rng.randrange(10**6)}"))
    else:
        node = rng.choice(nodes)
        scope = node.name.rsplit("/", 1)[0]
        doc.apply(insert_on_edge(doc.model, node.outputs[0].name, "Relu", name=f"{scope}/Relu_{rng.randrange(10**6)}"))
    return kind


def assert_same_picture(a, b):
    assert a.nodes.keys() == b.nodes.keys()
    for key, box in a.nodes.items():
        other = b.nodes[key]
        assert max(abs(box.x - other.x), abs(box.y - other.y), abs(box.width - other.width),
                   abs(box.height - other.height)) <= TOLERANCE, key
    assert a.edges.keys() == b.edges.keys()
    for key, edge in a.edges.items():
        other = b.edges[key].points
        assert len(edge.points) == len(other), key
        assert all(abs(p[0] - q[0]) <= TOLERANCE and abs(p[1] - q[1]) <= TOLERANCE
                   for p, q in zip(edge.points, other)), key
    assert a.groups.keys() == b.groups.keys()
    for key, g in a.groups.items():
        other = b.groups[key]
        assert max(abs(g.x - other.x), abs(g.y - other.y), abs(g.width - other.width),
                   abs(g.height - other.height)) <= TOLERANCE, key


@pytest.mark.parametrize("seed", [1, 2])
def test_pieces_kept_from_the_shown_layout_give_the_same_picture(tmp_path, seed):
    doc = Document.open(synthetic_model_file(tmp_path, 1500))
    graph = doc.model.graph
    cache = LayoutCache(tmp_path / "cache")
    view = build_view(graph, measure, expanded=set(build_view(graph, measure).groups))
    shown = layout(view.request, cache=cache)
    assert len(shown.pieces) > 5
    rng = random.Random(seed)
    kept_some = False
    for step in range(8):
        if step % 4 == 3:       # an unnamed node: its box id, and those of later unnamed ones, go by position
            node = rng.choice([n for n in graph.nodes if n.op_type == "MatMul" and n.name])
            doc.apply(SetNodeField(node.name, "name", ""))
        else:
            random_edit(doc, rng)
        new_view = build_view(graph, measure, expanded=view.expanded, previous=view)
        reused = layout(new_view.request, cache=cache, keep_whole=False, between_pieces=False, previous=shown)
        fresh = layout(new_view.request, cache=cache, keep_whole=False, between_pieces=False)
        kept_some |= bool(reused.deferred)
        assert not fresh.deferred
        pinned, same, changed = pin_to_shown(shown, view, new_view, reused)
        expected, same_fresh, changed_fresh = pin_to_shown(shown, view, new_view, fresh)
        assert_same_picture(pinned, expected)
        assert same == same_fresh and changed == changed_fresh
        view, shown = new_view, pinned
    assert kept_some        # the edits left pieces equal, and they were kept


def test_a_kept_piece_is_drawn_when_its_boxes_are_other_nodes_now(tmp_path):
    """Unnamed nodes' boxes go by position: after an insert an equal piece
    may hold other nodes than before. It is laid out and pinned as they
    were, not left where the former nodes were drawn."""
    from onnxstudio.core.layout import LayoutEdge, LayoutNode, LayoutRequest

    def chain(names, offset=0):
        nodes = [LayoutNode(n, 60.0, 30.0, (g,)) for n, g in names]
        edges = [LayoutEdge(f"e{offset + k}", a.id, b.id) for k, (a, b) in enumerate(zip(nodes, nodes[1:]))]
        return nodes, edges
    cache = False       # no whole result to find: every piece is looked at
    names = [(f"n{k}", "a" if k < 25 else "b") for k in range(50)]
    nodes, edges = chain(names)
    before = layout(LayoutRequest(nodes, edges), cache=cache, max_piece=30)
    assert len(before.pieces) == 2
    again = layout(LayoutRequest(nodes, edges), cache=cache, max_piece=30, keep_whole=False,
                   between_pieces=False, previous=before)
    assert set(again.deferred) == {0, 1}
    # Every box now shows the thing the box one place further on showed before.
    from onnxstudio.ui.canvas.pinning import pin
    shifted = {n.id: nodes[k + 1].id for k, n in enumerate(nodes[:-1])}
    pinned, _ = pin(before, again, again.pieces, shifted)
    fresh = layout(LayoutRequest(nodes, edges), cache=cache, max_piece=30, keep_whole=False, between_pieces=False)
    expected, _ = pin(before, fresh, fresh.pieces, shifted)
    assert_same_picture(pinned, expected)
