"""A save that fails says where once: the serde error already names the
file, and the dialog put the path before it a second time (QA: "/d/out.onnx:
/d/out.onnx: cannot write (No such file or directory); nothing was changed")."""
from __future__ import annotations

from edit_helpers import open_conv_model


def test_a_failed_save_as_names_the_file_once(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    files = window.edit_actions.files
    target = tmp_path / "no_such_folder" / "out.onnx"
    files.choose_save_path = lambda: str(target)
    assert not files.save_as()
    title, text = files.prompter.asked[-1]
    assert title == "Save failed"
    assert text.count(str(target)) == 1 and "cannot write" in text
    assert not target.parent.exists()
