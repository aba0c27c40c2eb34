"""Derive an edit script from a diff and write it, off the UI thread
(a fully renamed 1,400-node model is ~2,800 steps, a few seconds), with
cancel. The diff's models are private copies (compare_window clones the
open model before matching), so nothing edits them meanwhile."""
from __future__ import annotations

from ..workers import friendly_error
from .compare_job import DiffJob


class ScriptJob(DiffJob):
    """Emits done(core.diff.to_script.DerivedScript) once it is written."""

    def __init__(self, diff, path: str, parent=None):
        super().__init__(parent)
        self.diff = diff
        self.path = path

    def run(self) -> None:
        from onnxstudio.core.diff import Cancelled
        from onnxstudio.core.diff.to_script import derive_script, write_script
        try:
            derived = derive_script(self.diff, check=self._check)
            self._check()
            write_script(derived, self.path)
        except Cancelled:
            return
        except Exception as exc:   # noqa: BLE001 - a file that cannot be written, or a bug: a message, never a crash
            self.failed.emit(friendly_error(exc, str(self.path)))
            return
        self.done.emit(derived)
