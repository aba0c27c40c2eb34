"""Load one model and match it with another off the UI thread, cancellable
between matching passes. The model handed in must not change meanwhile
(Show Changes Since Save hands in a clone of the document's model)."""
from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from ..workers import friendly_error


class DiffJob(QThread):
    """A diff's work off the UI thread that stops at the next check after
    `cancel` (core.diff's passes call `_check` between steps)."""
    done = Signal(object)            # what the job made
    failed = Signal(str)             # one line naming the file

    def __init__(self, parent=None):
        super().__init__(parent)
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def _check(self) -> None:
        from onnxstudio.core.diff import Cancelled
        if self.cancelled:
            raise Cancelled()


class CompareJob(DiffJob):
    """Emits done(core.diff.ModelDiff)."""

    def __init__(self, model_a, path_b: str, parent=None, *, loaded_is_a: bool = False):
        super().__init__(parent)
        self.model_a = model_a
        self.path_b = path_b
        self.loaded_is_a = loaded_is_a     # the file read is A (the saved model), the model given B

    def run(self) -> None:
        from onnxstudio import core
        from onnxstudio.core.diff import Cancelled, diff_models
        try:
            model_b = core.load(self.path_b)
            _ = model_b.graph.nodes
        except Exception as exc:   # noqa: BLE001 - any failure to read B becomes a message naming it
            if not self.cancelled:
                self.failed.emit(friendly_error(exc, str(self.path_b)))
            return
        try:
            a, b = (model_b, self.model_a) if self.loaded_is_a else (self.model_a, model_b)
            diff = diff_models(a, b, check=self._check)
        except Cancelled:
            return
        except Exception as exc:   # noqa: BLE001 - a matching bug is shown, never a crash of the window
            self.failed.emit(friendly_error(exc, "matching"))
            return
        if not self.cancelled:
            self.done.emit(diff)
