"""Derive an edit script from a diff and write it, off the UI thread
(a fully renamed 1,400-node model is ~2,800 steps, a few seconds), with
cancel. The diff's models are private copies (compare_window clones the
open model before matching), so nothing edits them meanwhile."""
from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from ..workers import friendly_error


class ScriptJob(QThread):
    done = Signal(object)            # core.diff.to_script.DerivedScript, written
    failed = Signal(str)             # one line naming the file

    def __init__(self, diff, path: str, parent=None):
        super().__init__(parent)
        self.diff = diff
        self.path = path
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def _check(self) -> None:
        from onnxstudio.core.diff import Cancelled
        if self.cancelled:
            raise Cancelled()

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
