"""Autosave and crash recovery: an app process is killed mid-session and a new
instance recovers its edits; steps that no longer apply are named and the
rest kept; a clean save or close leaves no recovery file; the edit script
written by "Save Edits as Script…" replays on the original file."""
from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys
import textwrap

from edit_models import write_conv_model
from viewer_helpers import open_model, wait_idle

CHILD = textwrap.dedent("""
    import os, sys, time
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from onnxstudio.app import create_application
    app = create_application()
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.core.edits import SetAttribute, insert_on_edge
    from onnxstudio.core.ir import AttrType
    model_path, settings_path = sys.argv[1], sys.argv[2]
    w = MainWindow(Settings(QSettings(settings_path, QSettings.IniFormat)))
    w.show()
    w.open_path(model_path)
    def pump(cond, limit=60):
        end = time.time() + limit
        while not cond():
            app.processEvents()
            time.sleep(0.01)
            if time.time() > end:
                print("TIMEOUT", flush=True); sys.exit(3)
    pump(lambda: w.qdoc is not None and not w.busy)
    assert w.qdoc.apply(SetAttribute("conv1", "dilations", AttrType.INTS, [1, 1]))
    assert w.qdoc.apply(insert_on_edge(w.model, "r", "Neg", consumers=["sig1"], name="neg1"))
    assert w.qdoc.apply(SetAttribute("cast1", "to", AttrType.INT, 10))
    w.qdoc.undo()          # the recovery holds what is applied, not the undone step
    directory = os.environ["ONNXSTUDIO_RECOVERY_DIR"]
    pump(lambda: any(n.endswith(".json") for n in os.listdir(directory))
         if os.path.isdir(directory) else False)
    print("AUTOSAVED", flush=True)
    while True:            # mid-session: killed from outside
        app.processEvents()
        time.sleep(0.01)
""")


def _node(model, name):
    return next(n for n in model.graph.nodes if n.name == name)


def _attr(node, name):
    return node.attributes.get(name)


def test_killed_app_is_recovered_in_a_new_instance(qtbot, window, tmp_path, monkeypatch):
    model = pathlib.Path(write_conv_model(tmp_path / "m.onnx"))
    recovery = tmp_path / "recovery"
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, ONNXSTUDIO_RECOVERY_DIR=str(recovery), ONNXSTUDIO_AUTOSAVE_MS="200",
               QT_QPA_PLATFORM="offscreen")
    child = subprocess.Popen([sys.executable, str(script), str(model), str(tmp_path / "child.ini")],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        assert line.strip() == "AUTOSAVED", child.stderr.read() if child.poll() is not None else line
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    files = list(recovery.glob("*.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert [s["name"] for s in data["steps"]][0].startswith("Set")
    assert len(data["steps"]) == 2 and files[0].stat().st_size < 4096   # edits, not the model
    # A new instance offers the recovery and ends with the edited model.
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(recovery))
    prompter = window.edit_actions.prompter
    prompter.answers = ["Recover"]
    assert window.recovery.offer()
    title, text = prompter.asked[-1]
    assert "m.onnx" in text and "2 steps" in text
    qtbot.waitUntil(lambda: window.recovery.last_outcome is not None, timeout=60_000)
    wait_idle(qtbot, window)
    outcome = window.recovery.last_outcome
    assert outcome.applied == 2 and not outcome.skipped
    m = window.model
    assert list(_attr(_node(m, "conv1"), "dilations").value) == [1, 1]
    neg = _node(m, "neg1")
    assert _node(m, "sig1").inputs[0] is neg.outputs[0] and neg.inputs[0].name == "r"
    assert _attr(_node(m, "cast1"), "to").value == 1             # the undone step stayed undone
    doc = window.document
    assert doc.dirty and doc.index == 2                          # one undo step per recovered step
    doc.undo()
    assert _node(m, "sig1").inputs[0].name == "r"
    doc.redo()
    # The dead instance's file is gone; the recovered edits are autosaved by this one.
    assert not files[0].exists()
    assert window.recovery.writer.path.exists()
    # Saving writes the edited model and removes the recovery file.
    window.edit_actions.files.choose_save_path = lambda: str(tmp_path / "fixed.onnx")
    window.edit_actions.files.choose_weights = lambda: "Keep as they are"
    assert window.edit_actions.files.save_as()
    assert not window.recovery.writer.path.exists()
    import onnx
    saved = onnx.load(str(tmp_path / "fixed.onnx"))
    assert [n.op_type for n in saved.graph.node] == ["Conv", "Relu", "Neg", "Cast", "Sigmoid"]
    onnx.checker.check_model(saved)


def _write_recovery(tmp_path, model_path):
    """A recovery file as a dead instance would leave it (written by the core,
    with a pid that no longer runs)."""
    from onnxstudio.core import recovery as rec
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute, insert_on_edge
    from onnxstudio.core.ir import AttrType
    doc = Document.open(model_path)
    writer = rec.RecoveryWriter(doc, tmp_path / "recovery")
    doc.apply(SetAttribute("cast1", "to", AttrType.INT, 10))
    doc.apply(insert_on_edge(doc.model, "r", "Neg", consumers=["sig1"], name="neg1"))
    assert writer.write()
    data = json.loads(writer.path.read_text())
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    data["pid"] = dead.pid
    writer.path.write_text(json.dumps(data))
    return writer.path


def test_a_step_that_no_longer_applies_is_named_and_the_rest_kept(qtbot, window, tmp_path, monkeypatch):
    import onnx
    model = pathlib.Path(write_conv_model(tmp_path / "m.onnx"))
    rfile = _write_recovery(tmp_path, model)
    # The original changed meanwhile: cast1 is gone.
    proto = onnx.load(str(model))
    proto.graph.node[2].name = "cast_renamed"
    onnx.save(proto, str(model))
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    prompter = window.edit_actions.prompter
    prompter.answers = ["Recover"]
    assert window.recovery.offer()
    assert "changed since" in prompter.asked[-1][1]
    qtbot.waitUntil(lambda: window.recovery.last_outcome is not None, timeout=60_000)
    outcome = window.recovery.last_outcome
    assert outcome.applied == 1 and len(outcome.skipped) == 1
    assert "step 1" in outcome.skipped[0] and "cast1" in outcome.skipped[0]
    assert any("step 1" in text for _title, text in prompter.asked)
    assert _node(window.model, "sig1").inputs[0] is _node(window.model, "neg1").outputs[0]
    assert not rfile.exists()


def test_discard_and_files_of_running_instances(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.core import recovery as rec
    model = pathlib.Path(write_conv_model(tmp_path / "m.onnx"))
    rfile = _write_recovery(tmp_path, model)
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    # A file written by a process that still runs is not offered.
    data = json.loads(rfile.read_text())
    live = dict(data, pid=os.getpid())
    (rfile.parent / "live.json").write_text(json.dumps(live))
    (rfile.parent / "junk.json").write_text("{not json")
    found, problems = rec.pending()
    assert [f.path for f in found] == [rfile]
    assert len(problems) == 1 and "junk.json" in problems[0]
    prompter = window.edit_actions.prompter
    prompter.answers = ["Discard"]
    assert not window.recovery.offer()
    assert not rfile.exists() and (rfile.parent / "live.json").exists()
    assert window.model is None


def test_autosave_follows_edits_save_and_close(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.core.edits import SetAttribute
    from onnxstudio.core.ir import AttrType
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    path = write_conv_model(tmp_path / "m.onnx")
    open_model(qtbot, window, path)
    writer = window.recovery.writer
    assert not window.recovery.autosave() and not writer.path.exists()   # nothing to save yet
    assert window.qdoc.apply(SetAttribute("cast1", "to", AttrType.INT, 10))
    assert window.recovery.autosave() and writer.path.exists()
    window.qdoc.undo()                                  # back to the file's state: nothing to recover
    window.recovery.autosave()
    assert not writer.path.exists()
    window.qdoc.redo()
    # The edit-burst timer writes soon after the edits stop.
    window.recovery.settle.setInterval(50)
    assert window.qdoc.apply(SetAttribute("cast1", "to", AttrType.INT, 11))
    qtbot.waitUntil(writer.path.exists, timeout=60_000)
    assert window.edit_actions.files.save()
    assert not writer.path.exists()
    # Save, undo past the save point, edit: the file holds the undo, then the edit.
    assert window.qdoc.apply(SetAttribute("conv1", "dilations", AttrType.INTS, [1, 1]))
    window.qdoc.undo()
    window.qdoc.undo()
    assert window.qdoc.apply(SetAttribute("cast1", "to", AttrType.INT, 6))
    assert window.recovery.autosave()
    steps = json.loads(writer.path.read_text())["steps"]
    assert [s["name"].startswith("Undo") for s in steps] == [True, False]
    # Replaying them on the saved file gives the current model.
    from onnxstudio.core import recovery as rec
    from onnxstudio.core.document import Document
    other = Document.open(path)
    outcome = rec.recover(other, rec.read(writer.path))
    assert outcome.applied == 2 and not outcome.skipped
    assert _attr(_node(other.model, "cast1"), "to").value == 6
    # A clean close removes the file.
    window.edit_actions.prompter.answers = ["Discard"]
    window.close()
    assert not writer.path.exists()


def test_save_edits_as_script_replays_on_the_original(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute, insert_on_edge
    from onnxstudio.core.ir import AttrType
    from onnxstudio.ui import file_actions
    path = write_conv_model(tmp_path / "m.onnx")
    open_model(qtbot, window, path)
    assert window.qdoc.apply(SetAttribute("conv1", "dilations", AttrType.INTS, [1, 1]))
    assert window.qdoc.apply(insert_on_edge(window.model, "r", "Neg", consumers=["sig1"], name="neg1"))
    target = tmp_path / "edits.json"
    monkeypatch.setattr(file_actions.QFileDialog, "getSaveFileName",
                        staticmethod(lambda *a, **k: (str(target), "")))
    window.edit_actions.script_action.trigger()
    assert target.exists()
    other = Document.open(path)
    assert other.replay(json.loads(target.read_text())) == len(window.document.applied_edits())
    assert [n.name for n in other.model.graph.nodes] == [n.name for n in window.model.graph.nodes]
    assert list(_attr(_node(other.model, "conv1"), "dilations").value) == [1, 1]
    assert _node(other.model, "sig1").inputs[0] is _node(other.model, "neg1").outputs[0]


def test_recovered_steps_show_as_unsaved_and_undoable(qtbot, window, tmp_path, monkeypatch):
    """After a recovery the window shows the recovered steps as unsaved edits
    that can be undone (QA): the steps are recorded as each macro closes, after
    the edits' own events, so the title lacked its * and Undo stayed greyed
    until the next edit."""
    model = write_conv_model(tmp_path / "m.onnx")
    _write_recovery(tmp_path, model)
    monkeypatch.setenv("ONNXSTUDIO_RECOVERY_DIR", str(tmp_path / "recovery"))
    window.edit_actions.prompter.answers = ["Recover"]
    assert window.recovery.offer()
    qtbot.waitUntil(lambda: window.recovery.last_outcome is not None, timeout=60_000)
    assert window.recovery.last_outcome.applied == 2
    assert window.windowTitle().startswith("m.onnx*")
    undo = window.edit_actions.undo_action
    assert undo.isEnabled() and "Neg" in undo.text()
