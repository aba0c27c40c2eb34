"""Crash recovery after undoing past a save. The recovery file holds the
steps from the file on disk to the document, so an undo past the save is
written as the inverse edit. An output removed and put back by undo was
written as a step of a kind scripts do not know ("declare"), which recovery
could not replay; and where an undo cannot be written at all, the older
recovery file stayed and would have brought back edits since undone."""
import json

import pytest

from onnxstudio import core
from onnxstudio.core import recovery as rec
from onnxstudio.core.edits import AddGraphInput, RemoveGraphInput, RemoveGraphOutput, RemoveValueInfo, SetMetadata

from edits.models import chain_model


@pytest.fixture
def saved_doc(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(chain_model())
    doc = core.Document.open(path)
    return path, doc, rec.RecoveryWriter(doc, tmp_path / "recovery")


def _recovered(path, writer):
    doc = core.Document.open(path)
    outcome = rec.recover(doc, rec.read(writer.path))
    return doc, outcome


@pytest.mark.parametrize("edit", [RemoveGraphOutput("w"), RemoveValueInfo("a_out")], ids=["output", "value_info"])
def test_a_declaration_put_back_by_undo_after_a_save_is_recovered(saved_doc, edit):
    path, doc, writer = saved_doc
    original = core.to_bytes(doc.model)
    doc.apply(edit)
    doc.save()
    writer.saved()
    doc.undo()
    assert writer.write()
    kinds = {e["kind"] for s in json.loads(writer.path.read_text())["steps"] for e in s["edits"]}
    assert kinds <= set(core.edits.EDIT_KINDS)
    again, outcome = _recovered(path, writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == original


def test_an_undo_that_cannot_be_written_removes_the_older_recovery_file(saved_doc):
    path, doc, writer = saved_doc
    doc.apply(AddGraphInput("W"))
    doc.apply(RemoveGraphInput("W"))    # a graph input put back by undo has no script form
    doc.save()
    writer.saved()
    doc.apply(SetMetadata("later", "1"))
    assert writer.write() and writer.path.exists()      # the edit after the save is kept
    doc.undo()
    doc.undo()                                         # past the save: the input comes back
    with pytest.raises(rec.Unrecordable, match=r"Remove input W.*save the model"):
        writer.write()
    assert not writer.path.exists()        # it would have brought back "later", undone since


def test_an_undo_putting_back_an_unreadable_weight_is_refused_by_name(tmp_path):
    """A weight whose external reference cannot be followed opens (kept as
    read). Replaced, saved in place, then undone: the recovery file would
    have to write the old weight's values, which cannot be read and which
    the file on disk no longer holds. The write says so (Unrecordable,
    naming the step and the tensor), as the autosave reports it, instead
    of failing with a load error the autosave does not expect."""
    import numpy as np
    from onnxstudio.core.edits import SetInitializer

    from unreadable_models import weight_outside
    path = weight_outside(tmp_path)
    doc = core.Document.open(path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(SetInitializer("w", np.ones(4, np.float32)))
    doc.save()
    writer.saved()
    doc.undo()
    with pytest.raises(rec.Unrecordable, match=r"save the model.*tensor 'w'"):
        writer.write()
    assert not writer.path.exists()
