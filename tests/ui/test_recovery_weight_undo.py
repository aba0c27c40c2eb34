"""In the window: a weight kept in an external data file is edited and saved
with Ctrl+S (it stays in the data file), the edit is undone past the save,
and autosave keeps that undo for crash recovery. Autosave said "Autosave
failed: an undo past the last save (Set initializer W) cannot be kept for
crash recovery" and a crash lost the undo."""
from __future__ import annotations

import json

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from external_saves import saved_with_weights_outside
from viewer_helpers import open_model


def _external_model(folder):
    folder.mkdir()
    w = numpy_helper.from_array(np.arange(512, dtype=np.float32).reshape(2, 256), "W")
    g = helper.make_graph([helper.make_node("Add", ["x", "W"], ["y"], name="add")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 256])], [w])
    return saved_with_weights_outside(g, folder / "m.onnx")


def test_an_edited_external_weight_saved_and_undone_is_kept_for_recovery(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio import core
    from onnxstudio.core import recovery as rec
    from onnxstudio.core.edits import SetInitializer
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    path = _external_model(tmp_path / "m")
    open_model(qtbot, window, path)
    original = core.to_bytes(window.document.model)
    assert window.qdoc.apply(SetInitializer("W", np.ones((2, 256), np.float32)))
    assert window.edit_actions.files.save()
    stored = {t.name: (t.data_location, len(t.raw_data))
              for t in onnx.load(str(path), load_external_data=False).graph.initializer}
    assert stored == {"W": (TensorProto.EXTERNAL, 0)}
    window.qdoc.undo()
    window.statusBar().clearMessage()
    assert window.recovery.autosave()
    assert "Autosave failed" not in window.statusBar().currentMessage()
    writer = window.recovery.writer
    (step,) = json.loads(writer.path.read_text())["steps"]
    assert step["name"] == "Undo Set initializer W"
    again = core.Document.open(path)
    outcome = rec.recover(again, rec.read(writer.path))
    assert outcome.applied == 1 and not outcome.skipped
    assert core.to_bytes(again.model) == original
    window.edit_actions.prompter.answers = ["Discard"]
    window.close()
