"""The Document seen from Qt: one QObject whose signals every panel observes.

Panels never hold their own copy of the model or its types: they read
`qdoc.document` and redraw what `changed` says was touched. Every gesture
becomes an Edit pushed with `qdoc.apply`, which reports a refused edit as a
message instead of raising into the event loop."""
from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from onnxstudio.core.document import Document, DocumentEvent
from onnxstudio.core.edits import EditError


class QtDocument(QObject):
    changed = Signal(object)            # DocumentEvent, after every edit / undo / redo / save
    history_changed = Signal()          # steps, index or clean state moved
    refused = Signal(str)               # an edit was refused: the message names place and reason

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self.document = document
        self._unsubscribe = document.subscribe(self._on_event)

    def _on_event(self, event: DocumentEvent) -> None:
        self.changed.emit(event)
        self.history_changed.emit()

    def apply(self, edit, *, name: str = "", merge: bool = True) -> bool:
        """Push `edit`; False (and `refused` emitted) when the edit was refused."""
        try:
            self.document.apply(edit, name=name, merge=merge)
        except EditError as e:
            self.refused.emit(str(e))
            return False
        return True

    def undo(self) -> None:
        self.document.undo()

    def redo(self) -> None:
        self.document.redo()

    def close(self) -> None:
        self._unsubscribe()
