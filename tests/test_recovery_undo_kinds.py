"""Crash recovery after "edit, save, undo": the recovery file holds the
undone step as the edit that brings the undone state back. An undo whose
inverse was an initializer change, a declared type change, an opset change
or a deleted node could not be written (it holds the very objects it puts
back), so the status bar said to save and a crash lost the undo. Each is
now written from plain data: set_initializer with the old values (or a
reference to a file on disk that still holds that very tensor),
set_value_type, set_opset_import, add_node with the node's fields."""
import json
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core import recovery as rec
from onnxstudio.core.edits import (RemoveGraphInput, RemoveInitializer, RemoveNode, SetInitializer, SetMetadata,
                                   SetOpsetImport, SetValueType, bypass_node)
from onnxstudio.core.serde.io import SaveOptions

from edits.models import chain_model


def _model_bytes() -> bytes:
    """x -> Add(W) -> Mul(k, a Constant) "m" (with a doc string) -> LeakyRelu -> y, a Shape "probe"
    nothing reads, three opset imports in the file's own order."""
    w = numpy_helper.from_array(np.arange(256, dtype=np.float32).reshape(2, 128), "W")
    unused = numpy_helper.from_array(np.full(8, 2, np.int64), "unused")
    const = helper.make_node("Constant", [], ["k"], name="k", value=numpy_helper.from_array(
        np.linspace(0, 1, 256, dtype=np.float32).reshape(2, 128), ""))
    mul = helper.make_node("Mul", ["h", "k"], ["p"], name="m", doc_string="scales h")
    nodes = [helper.make_node("Add", ["x", "W"], ["h"], name="add"), const, mul,
             helper.make_node("LeakyRelu", ["p"], ["y"], name="act", alpha=0.25),
             helper.make_node("Shape", ["h"], ["dead"], name="probe", start=1)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 128])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 128])], [w, unused],
                          value_info=[helper.make_tensor_value_info("h", TensorProto.FLOAT, ["N", 128])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("com.example", 1),
                                            helper.make_opsetid("ai.onnx.ml", 3)], ir_version=10)
    return m.SerializeToString()


@pytest.fixture
def model_path(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(_model_bytes())
    return path


def _undo_past_save(path, edit, tmp_path, save_to=None):
    """Open `path`, apply `edit`, save (to `save_to` or over it), undo and
    write the recovery file. Returns the document, the writer and the
    undone state's bytes."""
    doc = core.Document.open(path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(edit(doc.model) if callable(edit) else edit)
    doc.save(save_to)
    writer.saved()
    doc.undo()
    assert writer.write()
    return doc, writer, core.to_bytes(doc.model)


def _recovered(writer):
    """A fresh Document of the saved file with the recovery replayed."""
    rf = rec.read(writer.path)
    again = core.Document.open(rf.model_path)
    outcome = rec.recover(again, rf)
    return again, outcome


def _kinds(writer) -> set:
    def walk(edits):
        for e in edits:
            yield e["kind"]
            if e["kind"] == "macro":
                yield from walk(e["edits"])
    return {k for s in json.loads(writer.path.read_text())["steps"] for k in walk(s["edits"])}


EDITS = {
    "initializer values": SetInitializer("W", np.ones((2, 128), np.float32)),
    "initializer dtype": SetInitializer("W", dtype=TensorProto.FLOAT16),
    "initializer removed": RemoveInitializer("unused"),
    "value_info type": SetValueType("h", TensorProto.DOUBLE, [3, "M"]),
    "output type": SetValueType("y", None, None),
    "opset version": SetOpsetImport("", 19),
    "opset added": SetOpsetImport("com.other", 2),
    "opset removed (the middle one)": SetOpsetImport("com.example", None),
    "node deleted": RemoveNode("probe"),
    "node with a doc string deleted and bypassed": lambda m: bypass_node(m, "m"),
    "constant deleted": lambda m: core.edits.Macro([SetMetadata("x", "1"), bypass_node(m, "m"), RemoveNode("k")]),
}


@pytest.mark.parametrize("edit", list(EDITS.values()), ids=list(EDITS))
def test_an_undo_past_a_save_is_recovered_exactly(model_path, tmp_path, edit):
    _, writer, undone = _undo_past_save(model_path, edit, tmp_path)
    assert _kinds(writer) <= set(core.edits.EDIT_KINDS)
    again, outcome = _recovered(writer)
    assert outcome.skipped == [] and outcome.applied == 1
    assert core.to_bytes(again.model) == undone
    assert onnx.load_from_string(core.to_bytes(again.model)) == onnx.load_from_string(_model_bytes())


def test_a_bypass_that_declared_an_untyped_output_is_recovered(tmp_path):
    """Delete and reconnect of the node producing a graph output: the value
    it reads becomes the output and gets its type; undo takes both back
    (a value_info-less intermediate has no type), which is now written as
    set_value_type untyped and remove_graph_output."""
    path = tmp_path / "chain.onnx"
    path.write_bytes(chain_model())
    _, writer, undone = _undo_past_save(path, lambda m: bypass_node(m, "c"), tmp_path)
    assert _kinds(writer) <= set(core.edits.EDIT_KINDS)
    again, outcome = _recovered(writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == undone == chain_model()


def test_a_sparse_initializer_change_is_recovered(tmp_path):
    path = tmp_path / "chain.onnx"
    path.write_bytes(chain_model())
    _, writer, undone = _undo_past_save(path, SetInitializer("S", np.array([0, 0, 4, 0], np.float32)), tmp_path)
    again, outcome = _recovered(writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == undone


def _external(tmp_path):
    folder = tmp_path / "ext"
    folder.mkdir()
    (folder / "inline.onnx").write_bytes(_model_bytes())
    path = folder / "m.onnx"
    core.save(core.load(folder / "inline.onnx"), path, SaveOptions(external_data="m.onnx.data", size_threshold=0))
    (folder / "inline.onnx").unlink()
    return path


def test_an_external_weight_undone_after_saving_over_its_file_is_written_with_its_values(tmp_path):
    """Saved over its own file, the old values are on disk nowhere else:
    the recovery file holds them."""
    path = _external(tmp_path)
    _, writer, undone = _undo_past_save(path, SetInitializer("W", np.ones((2, 128), np.float32)), tmp_path)
    text = writer.path.read_text()
    assert "$file_tensor" not in text and "base64" in text
    again, outcome = _recovered(writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == undone


def test_a_weight_the_opened_file_still_holds_is_named_not_written(tmp_path):
    """Opened, edited, saved as a copy, undone: the opened file still holds
    the old tensor, so the recovery file names it (no megabytes of weights
    written into it)."""
    path = _external(tmp_path)
    big = np.ones((2, 128), np.float32)
    copy = path.parent / "copy.onnx"
    _, writer, undone = _undo_past_save(path, SetInitializer("W", big), tmp_path, save_to=copy)
    data = json.loads(writer.path.read_text())
    assert data["original"]["path"] == str(copy.resolve())
    (ref,) = [e["array"]["$file_tensor"] for s in data["steps"] for e in s["edits"]]
    assert ref["path"] == str(path.resolve()) and ref["name"] == "W"
    assert "base64" not in writer.path.read_text() and writer.path.stat().st_size < 2000
    again, outcome = _recovered(writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == undone


def test_a_named_weight_whose_file_changed_since_is_skipped_naming_the_file(tmp_path):
    path = _external(tmp_path)
    copy = path.parent / "copy.onnx"
    _, writer, _ = _undo_past_save(path, SetInitializer("W", np.ones((2, 128), np.float32)), tmp_path,
                                   save_to=copy)
    data_file = path.parent / "m.onnx.data"
    data_file.write_bytes(data_file.read_bytes()[::-1])
    os.utime(data_file, ns=(1, 1))
    again, outcome = _recovered(writer)
    assert outcome.applied == 0
    (skipped,) = outcome.skipped
    assert "'W'" in skipped and str(path.resolve()) in skipped and "m.onnx.data" in skipped
    assert core.to_bytes(again.model) == (copy.parent / "copy.onnx").read_bytes() or not again.dirty


def test_an_input_put_back_still_cannot_be_written(model_path, tmp_path):
    """What a script cannot say stays refused, naming the step (a graph
    input's declaration put back by undo)."""
    doc = core.Document.open(model_path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(SetInitializer("W", np.ones((2, 128), np.float32)))
    doc.apply(core.edits.AddGraphInput("W"))
    doc.apply(RemoveGraphInput("W"))
    doc.save()
    writer.saved()
    doc.undo()
    with pytest.raises(rec.Unrecordable, match="Remove input W"):
        writer.write()


def test_an_edit_after_the_undo_is_written_after_it(model_path, tmp_path):
    """The undo step's text is kept between autosaves (a weight of many MB
    is encoded once); what follows it is still written as it is now."""
    doc, writer, _ = _undo_past_save(model_path, SetInitializer("W", np.ones((2, 128), np.float32)), tmp_path)
    first = json.loads(writer.path.read_text())["steps"]
    doc.apply(SetMetadata("later", "1"))
    assert writer.write()
    steps = json.loads(writer.path.read_text())["steps"]
    assert steps[0] == first[0] and [s["name"] for s in steps] == ["Undo Set initializer W", "Set metadata later"]
    again, outcome = _recovered(writer)
    assert outcome.applied == 2
    assert core.to_bytes(again.model) == core.to_bytes(doc.model)
