"""Node names looked up through an index during a run of edits
(core/edits/refs.py `node_names_indexed`) give exactly the answers of a pass
over the graph: after renames that make and unmake duplicates, added and
removed nodes, a compound step that renames and then names the node again,
and a compound step rolled back part way."""
from __future__ import annotations

import pytest

from onnxstudio.core import edits
from onnxstudio.core.changes import Changes
from onnxstudio.core.edits import EditError, Macro
from onnxstudio.core.edits.refs import find_node, node_names_indexed, node_ref

from .models import chain

THEN = (("node", "if", "then_branch"),)


def _graphs(model):
    return list(model.graph.walk()) + [f.graph for f in model.functions.values()]


def _expected_ref(node):
    """node_ref's rule, by a pass over the graph."""
    same = [n for n in node.graph.nodes if n.name == node.name]
    if node.name and len(same) == 1:
        return node.name
    first = next((v.name for v in node.outputs if v is not None and v.name), None)
    return {"output": first} if first else {"index": node.index}


def _assert_answers_like_a_scan(model, what):
    # Names first: a lookup of a node itself may make the index scan again.
    for g in _graphs(model):
        for name in sorted({n.name for n in g.nodes}) + ["no_such_node"]:
            hits = [n for n in g.nodes if n.name == name]
            if len(hits) == 1:
                assert find_node(g, name) is hits[0], f"{what}: find_node({name!r})"
            else:
                with pytest.raises(EditError):
                    find_node(g, name)
    for g in _graphs(model):
        for n in g.nodes:
            assert node_ref(n) == _expected_ref(n), f"{what}: node_ref of {n}"


def _steps(m):
    return [
        ("a node takes another's name", edits.SetNodeField("a", "name", "b")),
        ("the duplicate named by output", edits.SetNodeField({"output": "b_out"}, "name", "c")),
        ("the names come apart again", edits.SetNodeField({"output": "a_out"}, "name", "a2")),
        ("a node added under a taken name", edits.AddNode("Neg", ["y"], ["neg_out"], name="a2")),
        ("a node removed", edits.RemoveNode({"output": "neg_out"})),
        ("renamed, then named by its new name in the same step",
         Macro([edits.SetNodeField("a2", "name", "fresh"),
                edits.SetAttribute("fresh", "note", 2, 5)], "rename and tag")),
        ("a branch's node renamed", edits.SetNodeField("inner", "name", "fresh", graph=THEN)),
        ("a function body's node renamed",
         edits.SetNodeField("twice_add", "name", "fresh", graph=(("function", "local", "Twice", ""),))),
    ]


def test_each_step_answers_like_a_scan():
    m = chain()
    with node_names_indexed(m) as index:
        _assert_answers_like_a_scan(m, "before")
        for what, edit in _steps(m):
            changes = Changes()
            index.follow(changes)
            edit.apply(m, changes)
            _assert_answers_like_a_scan(m, what)


def test_a_step_rolled_back_part_way_is_forgotten():
    """A compound step whose second part fails undoes its first part with
    Changes of its own: the index is told to forget, and answers as a scan."""
    m = chain()
    with node_names_indexed(m) as index:
        _assert_answers_like_a_scan(m, "before")
        changes = Changes()
        index.follow(changes)
        failing = Macro([edits.SetNodeField("a", "name", "b"), edits.RemoveNode("no_such_node")], "fails")
        with pytest.raises(EditError):
            failing.apply(m, changes)
        index.forget()
        _assert_answers_like_a_scan(m, "after the rollback")
        assert find_node(m.graph, "a").op_type == "Relu"


def test_a_rename_the_index_was_not_told_of_is_still_found():
    """A node renamed with no Changes followed: a lookup of its new name,
    or of the node itself, falls back to a pass over the graph."""
    m = chain()
    with node_names_indexed(m):
        assert find_node(m.graph, "a").op_type == "Relu"
        m.graph.find_node("a").name = "renamed_quietly"
        with pytest.raises(EditError):
            find_node(m.graph, "a")         # filed under "a", but no longer called so
        node = find_node(m.graph, "renamed_quietly")
        assert node.op_type == "Relu" and node_ref(node) == "renamed_quietly"


def test_other_models_are_looked_up_by_a_scan():
    m, other = chain(), chain()
    with node_names_indexed(m) as index:
        assert index.named(other.graph, "a") is None
        assert find_node(other.graph, "a").graph is other.graph


def test_a_replayed_script_names_the_nodes_a_plain_apply_does():
    """replay_report looks names up through the index: a script whose steps
    make and unmake a duplicate name, and name nodes by the names they just
    took, gives the bytes the same edits give applied one by one."""
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import replay_report, to_script
    steps = [edits.SetNodeField("a", "name", "b"),
             edits.SetNodeField({"output": "b_out"}, "name", "p"),
             edits.SetAttribute("b", "tag", 2, 1),         # the Relu, the only "b" now
             edits.SetAttribute("p", "tag", 2, 2),
             Macro([edits.SetNodeField("p", "name", "b"),
                    edits.SetNodeField({"output": "a_out"}, "name", "q"),
                    edits.SetAttribute("b", "tag", 2, 3)], "swap back")]
    plain = chain()
    for e in steps:
        e.apply(plain, Changes())
    doc = Document(chain())
    assert len(replay_report(doc, to_script(steps))) == len(steps)
    assert core.to_bytes(doc.model) == core.to_bytes(plain)
    added = find_node(doc.model.graph, "b")
    assert added.op_type == "Add" and added.attributes["tag"].value == 3
    doc.undo()
    assert core.to_bytes(doc.model) == core.to_bytes(chain())
