"""The edits through a Document: refusals leave model, history and revision
alone; a macro failing half-way rolls back; events say what changed; a model
with errors still saves."""
import pytest

from onnxstudio import core
from onnxstudio.core import Document
from onnxstudio.core.edits import (AddNode, EditError, Macro, RemoveNode, SetAttribute, SetNodeField,
                                   SetNodeInput, insert_on_edge, replace_with_node)
from onnxstudio.core.ir import AttrType

from .models import chain


def test_a_refused_edit_changes_nothing_anywhere():
    doc = Document(chain())
    events = []
    doc.subscribe(events.append)
    before = core.to_bytes(doc.model)
    for edit in (RemoveNode("a"), SetNodeInput("a", 0, "y"), AddNode("Relu", ["x"], ["y"]),
                 SetAttribute("a", "alpha", AttrType.FLOAT, "high")):
        with pytest.raises(EditError):
            doc.apply(edit)
    assert core.to_bytes(doc.model) == before
    assert doc.revision == 0 and not doc.can_undo and not doc.dirty and events == []


def test_a_macro_failing_half_way_rolls_back():
    doc = Document(chain())
    before = core.to_bytes(doc.model)
    bad = Macro([SetNodeField("a", "doc_string", "first"), AddNode("Neg", ["x"], ["n1"]), RemoveNode("a")])
    with pytest.raises(EditError, match='cannot remove Relu "a"'):
        doc.apply(bad)
    assert core.to_bytes(doc.model) == before and not doc.can_undo
    with pytest.raises(EditError):
        # A selection with an outside reader in between: the rewire is refused.
        doc.apply(replace_with_node(doc.model, ["a", "c"], "Sum"))
    assert core.to_bytes(doc.model) == before


def test_events_say_what_changed():
    doc = Document(chain())
    events = []
    doc.subscribe(events.append)
    doc.apply(insert_on_edge(doc.model, "a_out", "Neg"))
    ev = events[-1]
    g = doc.model.graph
    neg = g.nodes[1]
    assert ev.kind == "edit" and ev.changes.nodes_added == {neg}
    assert {n.name for n in ev.changes.nodes_changed} == {"b", "inner"}
    body = g.find_node("if").attributes["then_branch"].value
    assert ev.changes.graphs == {g, body}
    doc.undo()
    assert events[-1].kind == "undo" and {n.op_type for n in events[-1].changes.nodes_removed} == {"Neg"}


def test_a_model_with_errors_still_saves(tmp_path):
    doc = Document(chain())
    doc.apply(SetAttribute("a", "bogus", AttrType.INT, 1))
    assert any("bogus" in d.path for d in doc.diagnostics)
    doc.save(tmp_path / "broken.onnx")
    again = core.load(tmp_path / "broken.onnx")
    assert again.graph.find_node("a").attr("bogus") == 1 and not doc.dirty


def test_a_macro_tells_its_listeners_when_its_step_is_recorded():
    """The edits inside a macro report their changes as they go, before the
    step exists; the closing event lets a title or an Undo action show it."""
    doc = Document(chain())
    seen = []
    doc.subscribe(lambda ev: seen.append((ev.kind, doc.can_undo, doc.undo_name, doc.dirty)))
    with doc.macro("Two renames"):
        doc.apply(SetNodeField("a", "doc_string", "first"))
        doc.apply(SetNodeField("b", "doc_string", "second"))
    assert [s[0] for s in seen] == ["edit", "edit", "recorded"]
    assert seen[-1] == ("recorded", True, "Two renames", True)
    with doc.macro("Nothing"):
        pass
    assert len(seen) == 3           # no step, no event
