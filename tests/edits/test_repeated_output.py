"""A graph output a damaged file lists twice: both entries hold one Value and
differ only by position (and by what each declares), so MoveGraphOutput and
RemoveGraphOutput name an entry by its `occurrence` (0 the first) and their
inverses name the very entry they moved or took out. Undo then restores
the file's order and a save after undo writes the file as read. Before,
undoing a move of the first declaration past the repeat moved the repeat
back by name (the first entry of the name by then), so the two copies
changed places: with two declared types, other bytes."""
from __future__ import annotations

import pathlib
import sys

import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import EditError, MoveGraphOutput, RemoveGraphOutput
from onnxstudio.core.edits.script import dumps

from .models import like_a_full_check, parsed, saved, written

_CHECK_TESTS = pathlib.Path(__file__).resolve().parent.parent / "check"
if str(_CHECK_TESTS) not in sys.path:
    sys.path.insert(0, str(_CHECK_TESTS))

from check_bases import base_names, load_base  # noqa: E402

X = helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])
Y_FLOAT = helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])
Y_INT = helper.make_tensor_value_info("Y", TensorProto.INT64, [3, "n"], doc_string="the repeat")
W = helper.make_tensor_value_info("W", TensorProto.FLOAT, [2])


def _model(*outputs):
    nodes = [helper.make_node("Relu", ["X"], ["Y"], name="r"), helper.make_node("Neg", ["X"], ["W"], name="n")]
    g = helper.make_graph(nodes, "g", [X], list(outputs))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def _outputs(doc, tmp_path) -> list:
    """(name, declared element type, doc_string) of each output as a save writes it."""
    back = saved(doc, tmp_path / "outputs.onnx")
    return [(o.name, o.type.tensor_type.elem_type, o.doc_string) for o in back.graph.output]


FILE_ORDER = [("Y", TensorProto.FLOAT, ""), ("W", TensorProto.FLOAT, ""), ("Y", TensorProto.INT64, "the repeat")]


def test_moving_the_first_past_the_repeat_and_undoing_gives_the_file_back(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    assert _outputs(doc, tmp_path) == FILE_ORDER
    doc.apply(MoveGraphOutput("Y", 2))
    moved = [FILE_ORDER[1], FILE_ORDER[2], FILE_ORDER[0]]
    assert _outputs(doc, tmp_path) == moved
    like_a_full_check(doc, "after the move")
    doc.undo()
    # Before the fix: [Y int64, W, Y float], the repeat moved back in the first's place.
    assert _outputs(doc, tmp_path) == FILE_ORDER
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)
    like_a_full_check(doc, "after undo")
    doc.redo()
    assert _outputs(doc, tmp_path) == moved


def test_the_repeat_moves_by_its_occurrence(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    doc.apply(MoveGraphOutput("Y", 0, occurrence=1))
    assert _outputs(doc, tmp_path) == [FILE_ORDER[2], FILE_ORDER[0], FILE_ORDER[1]]
    doc.undo()
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_every_move_of_either_copy_undoes_to_the_file(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    for occurrence in (0, 1):
        for index in range(3):
            doc.apply(MoveGraphOutput("Y", index, occurrence=occurrence))
            doc.apply(MoveGraphOutput("W", 0))
            doc.undo()
            doc.undo()
            assert saved(doc, tmp_path / "undone.onnx") == parsed(path), (occurrence, index)


def test_removing_the_repeat_keeps_the_first_and_undo_puts_it_back(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    doc.apply(RemoveGraphOutput("Y", occurrence=1))
    assert doc.undo_name == "Remove repeated output Y"
    assert _outputs(doc, tmp_path) == FILE_ORDER[:2]
    like_a_full_check(doc, "after the removal")
    doc.undo()
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)
    like_a_full_check(doc, "after undo")
    doc.redo()
    assert _outputs(doc, tmp_path) == FILE_ORDER[:2]


def test_removing_the_first_keeps_the_repeat_and_undo_puts_it_back(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    doc.apply(RemoveGraphOutput("Y"))
    assert doc.undo_name == "Remove output Y"
    assert _outputs(doc, tmp_path) == FILE_ORDER[1:]
    assert doc.model.graph.get_value("Y").is_graph_output      # the repeat still lists it
    doc.undo()
    assert saved(doc, tmp_path / "undone.onnx") == parsed(path)


def test_an_occurrence_the_file_does_not_have_is_refused(tmp_path):
    doc = core.Document.open(written(tmp_path, _model(Y_FLOAT, W, Y_INT)))
    before = core.to_bytes(doc.model)
    for edit in (RemoveGraphOutput("Y", occurrence=2), MoveGraphOutput("Y", 0, occurrence=2)):
        with pytest.raises(EditError, match=r'graph/output "Y": declared 2 times; there is no declaration 2'):
            doc.apply(edit)
    with pytest.raises(EditError, match=r'graph/output "W": declared once; there is no declaration 1'):
        doc.apply(MoveGraphOutput("W", 0, occurrence=1))
    assert core.to_bytes(doc.model) == before and not doc.can_undo


def test_the_occurrence_replays_from_a_script(tmp_path):
    path = written(tmp_path, _model(Y_FLOAT, W, Y_INT))
    doc = core.Document.open(path)
    doc.apply(MoveGraphOutput("Y", 0, occurrence=1))
    doc.apply(RemoveGraphOutput("Y", occurrence=1))
    script = dumps(doc.applied_edits())
    assert '"occurrence": 1' in script
    again = core.Document.open(path)
    again.replay(script)
    assert core.to_bytes(again.model) == core.to_bytes(doc.model)
    assert _outputs(again, tmp_path) == [FILE_ORDER[2], FILE_ORDER[1]]


def _bases_with_an_output():
    return [b for b in base_names() if len(load_base(b).graph.output)]


@pytest.mark.parametrize("base", _bases_with_an_output())
def test_a_repeated_output_of_another_type_in_every_base(base, tmp_path):
    """The first output listed again at the end with another element type:
    moving the first declaration to the end and undoing, and removing the
    repeat and undoing, save the file as read; the live checker agrees
    with a full check throughout."""
    model = load_base(base)
    repeat = type(model.graph.output[0])()
    repeat.CopyFrom(model.graph.output[0])
    repeat.type.tensor_type.elem_type = TensorProto.INT8 if repeat.type.tensor_type.elem_type != TensorProto.INT8 \
        else TensorProto.INT16
    repeat.doc_string = "listed again"
    model.graph.output.append(repeat)
    path = written(tmp_path, model)
    doc = core.Document.open(path)
    g = doc.model.graph
    name = repeat.name
    last = len(g.outputs) - 1
    doc.apply(MoveGraphOutput(name, last))
    like_a_full_check(doc, "after the move")
    doc.undo()
    like_a_full_check(doc, "after undo")
    assert saved(doc, tmp_path / "moved_undone.onnx") == parsed(path)
    doc.apply(RemoveGraphOutput(name, occurrence=1))
    assert [o.name for o in saved(doc, tmp_path / "removed.onnx").graph.output].count(name) == 1
    like_a_full_check(doc, "after the removal")
    doc.undo()
    like_a_full_check(doc, "after undoing the removal")
    assert saved(doc, tmp_path / "removed_undone.onnx") == parsed(path)
