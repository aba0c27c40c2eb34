"""Load model B and match it with A off the UI thread, cancellable between
matching passes."""
from __future__ import annotations

from PySide6.QtCore import QThread, Signal

from ..workers import friendly_error


class CompareJob(QThread):
    done = Signal(object)            # core.diff.ModelDiff
    failed = Signal(str)             # one line naming the file

    def __init__(self, model_a, path_b: str, parent=None):
        super().__init__(parent)
        self.model_a = model_a
        self.path_b = path_b
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True

    def _check(self) -> None:
        from onnxstudio.core.diff import Cancelled
        if self.cancelled:
            raise Cancelled()

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
            diff = diff_models(self.model_a, model_b, check=self._check)
        except Cancelled:
            return
        except Exception as exc:   # noqa: BLE001 - a matching bug is shown, never a crash of the window
            self.failed.emit(friendly_error(exc, "matching"))
            return
        if not self.cancelled:
            self.done.emit(diff)
