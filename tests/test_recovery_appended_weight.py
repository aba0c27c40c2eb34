"""Crash recovery naming a weight that a save in place appended to its data
file. The weight is held in memory (it was edited), so nothing said which
data file the saved model reads it from: the recovery file named the model
file alone, and a data file changed since (the model file untouched) gave
back other bytes than the undo put back. It now names the data file too,
and replay refuses, naming it, when it changed."""
import json
import os

import numpy as np

from onnxstudio import core
from onnxstudio.core import recovery as rec
from onnxstudio.core.edits import SetInitializer

from test_recovery_undo_kinds import _external, _recovered

W1 = np.full((2, 128), 5, np.float32)


def _saved_in_place_then_elsewhere(tmp_path):
    """m.onnx (W in m.onnx.data) opened; W -> W1 saved over it (W1
    appended); W1 -> W2 saved as a copy in another folder; the last edit
    undone, past that save: the undo puts back W1, which m.onnx holds."""
    path = _external(tmp_path)
    doc = core.Document.open(path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(SetInitializer("W", W1))
    doc.save()
    writer.saved()
    assert doc.last_save.appended["m.onnx.data"] > 0
    doc.apply(SetInitializer("W", W1 * 2))
    (tmp_path / "copy").mkdir()
    doc.save(tmp_path / "copy" / "m.onnx")
    writer.saved()
    doc.undo()
    assert writer.write()
    return path, writer, core.to_bytes(doc.model)


def _named(writer):
    (ref,) = [e["array"]["$file_tensor"] for s in json.loads(writer.path.read_text())["steps"] for e in s["edits"]]
    return ref


def test_the_appended_weight_is_named_with_its_data_file_and_recovered(tmp_path):
    path, writer, undone = _saved_in_place_then_elsewhere(tmp_path)
    ref = _named(writer)
    assert ref["path"] == str(path.resolve()) and ref["name"] == "W"
    assert ref["data"]["location"] == "m.onnx.data"
    again, outcome = _recovered(writer)
    assert not outcome.skipped
    assert core.to_bytes(again.model) == undone


def test_a_data_file_changed_since_is_refused_naming_it(tmp_path):
    path, writer, _ = _saved_in_place_then_elsewhere(tmp_path)
    data = path.parent / "m.onnx.data"
    changed = bytearray(data.read_bytes())
    assert changed[-W1.nbytes:] == W1.tobytes()               # the appended W1, which m.onnx reads
    changed[-W1.nbytes:] = (W1 + 1).tobytes()                 # written over in place: same size
    data.write_bytes(bytes(changed))
    os.utime(data, ns=(1, 1))
    again, outcome = _recovered(writer)
    assert outcome.applied == 0
    (skipped,) = outcome.skipped
    assert "'W'" in skipped and "m.onnx.data" in skipped
