"""Ctrl+S on a document with nothing to save leaves its file alone (on a
multi-GB model with external data a rewrite is a long, pointless write that
also moves the mtime) and says so in the status bar; Save As still writes.
A file a save would repair (damaged text) or one changed on disk still
saves."""
from __future__ import annotations

import os
import pathlib

from edit_helpers import open_editable
from edit_models import write_conv_model
from test_problems_damaged_text import _write_damaged_op_type

_OLD = 10**18         # an mtime (ns) no write at test time can leave behind


def _aged(path):
    os.utime(path, ns=(_OLD, _OLD))
    return pathlib.Path(path)


def test_save_of_an_unedited_model_writes_nothing_and_says_so(qtbot, window, tmp_path):
    path = open_editable(qtbot, window, _aged(write_conv_model(tmp_path / "m.onnx")))
    data = path.read_bytes()
    files = window.edit_actions.files
    assert files.save()
    assert path.stat().st_mtime_ns == _OLD and path.read_bytes() == data
    assert window.statusBar().currentMessage().startswith("Nothing to save: m.onnx has no changes")
    # Save As still writes, and the copy is then the document's file.
    copy = tmp_path / "copy.onnx"
    files.choose_save_path = lambda: str(copy)
    assert files.save_as()
    assert copy.read_bytes() == data
    assert window.statusBar().currentMessage() == f"Saved {copy}"


def test_an_edit_undone_leaves_nothing_to_save(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetNodeField
    path = open_editable(qtbot, window, _aged(write_conv_model(tmp_path / "m.onnx")))
    assert window.qdoc.apply(SetNodeField("relu1", "doc_string", "x"))
    window.document.undo()
    assert window.edit_actions.files.save()
    assert path.stat().st_mtime_ns == _OLD


def test_a_damaged_file_still_saves_and_is_repaired(qtbot, window, tmp_path):
    open_editable(qtbot, window, _aged(_write_damaged_op_type(tmp_path / "damaged.onnx")))
    path = window.document.path
    assert window.edit_actions.files.save()
    assert path.stat().st_mtime_ns != _OLD
    assert "Rel\ufffd".encode() in path.read_bytes()
    # Repaired, the file now holds the model: a second save has nothing to do.
    written = []
    save = window.document.save
    window.document.save = lambda *args: written.append(args) or save(*args)
    assert window.edit_actions.files.save()
    assert written == [] and window.statusBar().currentMessage().startswith("Nothing to save")

def test_a_file_changed_on_disk_still_saves_after_asking(qtbot, window, tmp_path):
    path = open_editable(qtbot, window, _aged(write_conv_model(tmp_path / "m.onnx")))
    os.utime(path, ns=(_OLD + 10**9, _OLD + 10**9))
    prompter = window.edit_actions.prompter
    prompter.answers = ["Overwrite"]
    assert window.edit_actions.files.save()
    assert prompter.asked[-1][0] == "File changed on disk"
    assert path.stat().st_mtime_ns != _OLD + 10**9
