"""A graph input a damaged file declares twice (graph.input-duplicate) can be
fixed: RemoveGraphInput's `occurrence` names the repeat, which goes while
the value stays an input and its readers stay as they were; the checker's
finding goes, and the live checker agrees with a full check at every step.
Undo puts the repeat back as read (its own Value, kept out of the value
table, its type and verbatim message), so a save after undo writes the
file's bytes. Before, removing the input by name took the first
declaration, the one the nodes read, and was refused."""
from __future__ import annotations

import pathlib
import sys

import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import EditError, MoveGraphInput, RemoveGraphInput, RenameValue, graph_path
from onnxstudio.core.edits.script import dumps

from .models import like_a_full_check, parsed, saved, written

_CHECK_TESTS = pathlib.Path(__file__).resolve().parent.parent / "check"
if str(_CHECK_TESTS) not in sys.path:
    sys.path.insert(0, str(_CHECK_TESTS))

from check_bases import base_names, load_base  # noqa: E402
from mutations_graph import input_duplicate  # noqa: E402

DUPLICATE = "graph.input-duplicate"


def _codes(doc) -> list:
    return [d.code for d in doc.diagnostics]


def _bases_with_an_input():
    return [b for b in base_names() if input_duplicate(load_base(b)) is not None]


@pytest.mark.parametrize("base", _bases_with_an_input())
def test_the_repeat_goes_and_undo_gives_the_file_back(base, tmp_path):
    model = load_base(base)
    input_duplicate(model)
    path = written(tmp_path, model)
    doc = core.Document.open(path)
    g = doc.model.graph
    name = g.inputs[-1].name
    first = g.get_value(name)
    readers = list(first.uses)
    assert DUPLICATE in _codes(doc)
    before = core.to_bytes(doc.model)

    doc.apply(RemoveGraphInput(name, occurrence=1))
    assert doc.undo_name == f"Remove repeated input {name}"      # the input stays
    assert DUPLICATE not in _codes(doc)
    like_a_full_check(doc, "after the removal")
    assert [v for v in g.inputs if v.name == name] == [first] and g.get_value(name) is first
    assert first.uses == readers
    back = saved(doc, tmp_path / "fixed.onnx")
    assert [vi.name for vi in back.graph.input].count(name) == 1

    doc.undo()
    like_a_full_check(doc, "after undo")
    assert DUPLICATE in _codes(doc)
    assert core.to_bytes(doc.model) == before
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)

    doc.redo()
    like_a_full_check(doc, "after redo")
    assert DUPLICATE not in _codes(doc)


def _relu_model(*inputs):
    g = helper.make_graph([helper.make_node("Relu", ["X"], ["Y"], name="r")], "g", list(inputs),
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])


def test_the_first_declaration_is_refused_while_a_repeat_stays(tmp_path):
    doc = core.Document.open(written(tmp_path, _relu_model(X, X)))
    before = core.to_bytes(doc.model)
    for edit in (RemoveGraphInput("X"), RemoveGraphInput("X", occurrence=0)):
        with pytest.raises(EditError, match=r'graph/input\[0\] "X": input\[1\] declares \'X\' again; '
                                            r'remove that repeat first'):
            doc.apply(edit)
    with pytest.raises(EditError, match=r'graph/input "X": declared 2 times; there is no declaration 2'):
        doc.apply(RemoveGraphInput("X", occurrence=2))
    with pytest.raises(EditError, match=r'graph/input "X": declared 2 times; there is no declaration -1'):
        doc.apply(RemoveGraphInput("X", occurrence=-1))
    assert core.to_bytes(doc.model) == before and not doc.can_undo


def test_a_repeat_of_another_type_comes_back_as_it_was(tmp_path):
    other = helper.make_tensor_value_info("X", TensorProto.INT64, [3, "n"], doc_string="the other one")
    path = written(tmp_path, _relu_model(X, other))
    doc = core.Document.open(path)
    doc.apply(RemoveGraphInput("X", occurrence=1))
    like_a_full_check(doc, "after the removal")
    back = saved(doc, tmp_path / "fixed.onnx")
    # The declaration the nodes read stays as it was.
    assert [vi.SerializeToString() for vi in back.graph.input] == [X.SerializeToString()]
    doc.undo()
    like_a_full_check(doc, "after undo")
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_three_declarations_then_none_left_to_repeat(tmp_path):
    path = written(tmp_path, _relu_model(X, X, X))
    doc = core.Document.open(path)
    doc.apply(RemoveGraphInput("X", occurrence=2))
    assert DUPLICATE in _codes(doc)
    doc.apply(RemoveGraphInput("X", occurrence=1))
    assert DUPLICATE not in _codes(doc)
    like_a_full_check(doc, "after both")
    # The one left is an ordinary input: read by Relu, so removing it is refused as always.
    with pytest.raises(EditError, match=r"input 'X' is still used by Relu \"r\""):
        doc.apply(RemoveGraphInput("X"))
    doc.undo()
    doc.undo()
    like_a_full_check(doc, "after undoing both")
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_the_repeat_of_an_input_renamed_since(tmp_path):
    # Renaming the first declaration leaves the repeat the only 'X', still
    # outside the value table: removing it and undoing keeps it so.
    path = written(tmp_path, _relu_model(X, X))
    doc = core.Document.open(path)
    doc.apply(RenameValue("X", "Z"))
    doc.apply(RemoveGraphInput("X"))
    assert doc.model.graph.inputs.names() == ["Z"]
    like_a_full_check(doc, "after the removal")
    doc.undo()
    assert doc.model.graph.get_value("X") is None and doc.model.graph.inputs.names() == ["Z", "X"]
    like_a_full_check(doc, "after undo")
    doc.undo()
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_a_function_input_declared_twice(tmp_path):
    from mutations_scopes import function_duplicate_input
    model = load_base("with_function")
    function_duplicate_input(model)
    path = written(tmp_path, model)
    doc = core.Document.open(path)
    assert "function.input-duplicate" in _codes(doc)
    body = next(iter(doc.model.functions.values())).graph
    name = body.inputs[-1].name
    doc.apply(RemoveGraphInput(name, graph_path(body), occurrence=1))
    assert "function.input-duplicate" not in _codes(doc)
    like_a_full_check(doc, "after the removal")
    doc.undo()
    like_a_full_check(doc, "after undo")
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_the_removal_replays_from_a_script(tmp_path):
    path = written(tmp_path, _relu_model(X, X))
    doc = core.Document.open(path)
    doc.apply(RemoveGraphInput("X", occurrence=1))
    script = dumps(doc.applied_edits())
    assert '"occurrence": 1' in script
    again = core.Document.open(path)
    again.replay(script)
    assert core.to_bytes(again.model) == core.to_bytes(doc.model)
    assert DUPLICATE not in _codes(again)


def test_moving_the_input_moves_the_declaration_it_stands_for(tmp_path):
    z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2])
    other = helper.make_tensor_value_info("X", TensorProto.INT64, [3])
    path = written(tmp_path, _relu_model(X, z, other))
    doc = core.Document.open(path)
    g = doc.model.graph
    first = g.get_value("X")
    doc.apply(MoveGraphInput("X", 2))
    assert g.inputs.index(first) == 2
    # Moved back by name: the first declaration again, not the repeat now before it.
    doc.undo()
    assert g.inputs.index(first) == 0
    like_a_full_check(doc, "after undo")
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)
