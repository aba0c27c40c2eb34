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
    changed = Signal(object)            # DocumentEvent, after every edit / undo / redo / save / macro step
    history_changed = Signal()          # steps, index or clean state moved
    refused = Signal(str)               # an edit was refused: the message names place and reason
    analysed = Signal()                 # inferred types and diagnostics became available
    unexpected = Signal(str, object)    # what failed, the exception (a bug: shown with details)

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
        except Exception as e:  # noqa: BLE001 - a bug must not reach the event loop
            self.unexpected.emit(name or _describe(edit), e)
            return False
        return True

    def goto(self, index: int) -> None:
        """Undo or redo until `index` steps are applied (the history dock)."""
        self._guarded(self.tr("Going back in the history"), self.document.goto, index)

    def _guarded(self, what: str, fn, *args) -> None:
        try:
            fn(*args)
        except EditError as e:
            self.refused.emit(str(e))
        except Exception as e:  # noqa: BLE001
            self.unexpected.emit(what, e)

    # -- types and analysis ----------------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Inference and the checker have run (in the background at open)."""
        return self.document.analysis_ready

    def seed(self, analysis, revision: int) -> bool:
        if self.document.seed_analysis(analysis, revision):
            self.analysed.emit()
            return True
        return False

    def type_of(self, value):
        """The value's type: inferred once the analysis is ready, declared before
        (panels never make the UI thread wait for a first inference)."""
        if value is None:
            return None
        if self.ready:
            return self.document.type_of(value)
        return getattr(value, "type", None)

    @property
    def types(self) -> "TypeLookup":
        return TypeLookup(self)

    def undo(self) -> None:
        self._guarded(self.tr("Undo"), self.document.undo)

    def redo(self) -> None:
        self._guarded(self.tr("Redo"), self.document.redo)

    def close(self) -> None:
        self._unsubscribe()


def _describe(edit) -> str:
    try:
        return edit.describe()
    except Exception:  # noqa: BLE001
        return type(edit).__name__


class TypeLookup:
    """The document's types as the mapping the canvas helpers expect
    (`lookup.get(value)`); empty until the analysis is ready."""

    def __init__(self, qdoc: QtDocument):
        self.qdoc = qdoc

    def __bool__(self) -> bool:
        return self.qdoc.ready

    def get(self, key, default=None):
        if isinstance(key, str) or not self.qdoc.ready:
            return default
        found = self.qdoc.document.type_of(key)
        return default if found is None else found

    def varies_by_call(self, value) -> bool:
        """Whether `value` is in a function body whose calls give it
        different types (its type is then what they all share). Asked
        right after `get(value)`, which brought the analysis up to date."""
        if isinstance(value, str) or not self.qdoc.ready:
            return False
        return self.qdoc.document.analysis.inference.calls.calls_disagree(value)
