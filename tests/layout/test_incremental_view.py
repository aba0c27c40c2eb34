"""The view built after edits from the view shown before (build_view with
`previous` and the ids the canvas's EditTracker marked stale) equals the
view built from scratch: same boxes, labels, sizes, edges, groups and
request, in the same order, after random inserts, deletes, renames, attribute
edits, undo and redo, with groups open and closed."""
from __future__ import annotations

import random

import pytest
from synthetic_models import synthetic_model_file
from test_relayout_reuse import measure, random_edit

from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetAttribute, SetNodeField
from onnxstudio.core.ir import AttrType
from onnxstudio.core.layout import build_view
from onnxstudio.ui.canvas.edit_tracking import EditTracker


def snapshot(view):
    """Everything a view says, with IR objects by identity."""
    def ids(values):
        return tuple(id(v) for v in values)
    nodes = [(k, v.id, v.label, id(v.node), id(v.value), v.group, ids(v.folded), v.function_key)
             for k, v in view.nodes.items()]
    edges = [(k, e.id, e.source, e.target, id(e.value)) for k, e in view.edges.items()]
    groups = [(p, g.path, g.expanded, g.node_count, list(g.op_counts.items())) for p, g in view.groups.items()]
    request = (view.request.nodes, view.request.edges, view.request.rankdir,
               sorted(view.request.group_min_width.items()))
    return nodes, edges, groups, request, view.box_of_node, view.path_of_node, view.expanded


def edit_more(doc, rng, step):
    """random_edit, every third step an attribute edit (a relabelled box,
    same wiring), and every fourth a node left unnamed or named as another
    (box ids of such nodes go by position or carry a count)."""
    if step % 4 == 3:
        nodes = [n for n in doc.model.graph.nodes if n.op_type not in ("Constant", "Identity") and n.name]
        node, other = rng.sample(nodes, 2)
        doc.apply(SetNodeField(node.name, "name", rng.choice(["", other.name])))
        return "unnamed or repeated"
    if step % 3 == 2:
        node = rng.choice([n for n in doc.model.graph.nodes if n.op_type in ("Softmax", "Transpose") and n.name])
        name = "axis" if node.op_type == "Softmax" else "perm"
        value = rng.choice([-1, 1]) if name == "axis" else rng.choice([[0, 2, 1, 3], [0, 1, 3, 2]])
        doc.apply(SetAttribute(node.name, name, AttrType.INT if name == "axis" else AttrType.INTS, value))
        return "attribute"
    return random_edit(doc, rng)


@pytest.mark.parametrize("seed,open_all", [(3, True), (4, False), (5, True)])
def test_a_view_built_from_the_shown_one_equals_a_fresh_one(tmp_path, seed, open_all):
    doc = Document.open(synthetic_model_file(tmp_path, 1200))
    graph = doc.model.graph
    tracker = EditTracker()
    doc.subscribe(lambda event: tracker.note(event.changes))
    expanded = set(build_view(graph, measure).groups) if open_all else None
    view = build_view(graph, measure, expanded=expanded)
    tracker.laid_out(graph)
    rng = random.Random(seed)
    kinds = set()
    for step in range(12):
        kinds.add(edit_more(doc, rng, step))
        after = build_view(graph, measure, expanded=view.expanded, previous=view, stale=tracker.stale_ids())
        fresh = build_view(graph, measure, expanded=after.expanded)
        assert snapshot(after) == snapshot(fresh)
        view = after
        tracker.laid_out(graph)
    assert {"insert", "attribute"} <= kinds and len(kinds) >= 4
