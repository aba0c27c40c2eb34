"""After a recovery the window shows the recovered steps as unsaved edits
that can be undone (QA): the steps are recorded as each macro closes, after
the edits' own events, so the title lacked its * and Undo stayed greyed
until the next edit. pytest-qt, offscreen."""
from __future__ import annotations

import json
import subprocess
import sys

from edit_models import write_conv_model


def _dead_instances_recovery(tmp_path, model_path):
    from onnxstudio.core import recovery as rec
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import insert_on_edge
    doc = Document.open(model_path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(insert_on_edge(doc.model, "r", "Neg", consumers=["sig1"], name="neg1"))
    assert writer.write()
    data = json.loads(writer.path.read_text())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    data["pid"] = dead.pid
    writer.path.write_text(json.dumps(data))


def test_recovered_steps_show_as_unsaved_and_undoable(qtbot, window, tmp_path, monkeypatch):
    model = write_conv_model(tmp_path / "m.onnx")
    _dead_instances_recovery(tmp_path, model)
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    window.edit_actions.prompter.answers = ["Recover"]
    assert window.recovery.offer()
    qtbot.waitUntil(lambda: window.recovery.last_outcome is not None, timeout=60_000)
    assert window.recovery.last_outcome.applied == 1
    assert window.windowTitle().startswith("m.onnx*")
    undo = window.edit_actions.undo_action
    assert undo.isEnabled() and "Neg" in undo.text()
