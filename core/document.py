"""The Document: one open model with its history, diagnostics and types.

Everything that changes a model goes through `Document.apply` (scripts, the
CLI and the app alike), so there is one undo history and one place that keeps
inference and the checker in step:

    doc = Document.open("model.onnx")
    doc.apply(SetAttribute("conv1", "group", AttrType.INT, 2))
    doc.diagnostics                 # live checker, updated incrementally
    doc.undo(); doc.redo()
    doc.save("fixed.onnx")          # atomic; the document is clean again
    doc.subscribe(listener)         # listener(DocumentEvent) after every change

No Qt here: the app wraps a Document in a small QObject (ui/document_qt.py)
that turns events into signals.

Threads: edits happen on one thread. `revision` grows with every change; a
background job (layout, a run) remembers the revision it started from and
drops its result when the document has moved on.
"""
from __future__ import annotations

import contextlib
import pathlib
from dataclasses import dataclass, field
from typing import Callable, Optional

from .changes import Changes
from .edits.base import Edit, Macro


@dataclass
class HistoryStep:
    """One undo step: the edits as applied, and their inverses in undo order."""
    name: str
    forward: list = field(default_factory=list)
    inverse: list = field(default_factory=list)
    merge_key: Optional[tuple] = None


@dataclass
class DocumentEvent:
    kind: str              # "edit", "undo", "redo", "saved", "recorded" (a macro's step added; no change)
    changes: Changes
    revision: int
    step: str = ""         # the name of the step applied or undone


class Document:
    def __init__(self, model, path=None):
        self.model = model
        self.path = pathlib.Path(path) if path is not None else getattr(model, "path", None)
        self.steps: list[HistoryStep] = []
        self.index = 0                 # steps[:index] are applied
        self.clean_index: Optional[int] = 0   # None: the saved state is no longer reachable
        self.revision = 0
        self._listeners: list[Callable] = []
        self._macro: Optional[HistoryStep] = None
        self._macro_changes: Optional[Changes] = None
        self._merge_open = True        # a save or an undo closes merging into the last step
        self._analysis = None          # Analysis (inference + checker), created on first use
        self._saved_once = False       # saved since read: the file's text is the IR's (Analysis.file_rewritten)
        self.last_save = None          # serde.io.Saved of the last save (None before one)

    @classmethod
    def open(cls, path) -> "Document":
        from .serde.io import load
        return cls(load(path), path)

    # -- history ---------------------------------------------------------------------------

    def apply(self, edit: Edit, *, name: str = "", merge: bool = True) -> Changes:
        """Apply `edit` as a new undo step (or into the open macro). Refused
        edits raise EditError and leave the model and the history unchanged."""
        changes = Changes()
        inverse = edit.apply(self.model, changes)
        if self._macro is not None:
            self._macro.forward.append(edit)
            self._macro.inverse.insert(0, inverse)
            self._macro_changes.merge(changes)
            self._changed("edit", changes, self._macro.name)
            return changes
        key = edit.merge_key() if merge else None
        del self.steps[self.index:]
        if self.clean_index is not None and self.clean_index > self.index:
            self.clean_index = None
        last = self.steps[-1] if self.steps and self.index == len(self.steps) else None
        if key is not None and last is not None and last.merge_key == key and self._merge_open \
                and self.clean_index != self.index:
            last.forward.append(edit)
            last.inverse.insert(0, inverse)
        else:
            self.steps.append(HistoryStep(name or edit.describe(), [edit], [inverse], key))
            self.index += 1
            self._merge_open = True
        self._changed("edit", changes, self.steps[self.index - 1].name)
        return changes

    @contextlib.contextmanager
    def macro(self, name: str):
        """Edits applied inside `with doc.macro("Insert Relu"):` form one undo
        step. If the block raises, its edits are undone and nothing is recorded."""
        if self._macro is not None:       # nested: joins the outer macro
            yield
            return
        self._macro = HistoryStep(name)
        self._macro_changes = Changes()
        try:
            yield
        except BaseException:
            step, self._macro = self._macro, None
            undo_changes = Changes()
            for inv in step.inverse:
                inv.apply(self.model, undo_changes)
            if step.forward:
                self._changed("undo", undo_changes, name)
            raise
        step, self._macro = self._macro, None
        if step.forward:
            del self.steps[self.index:]
            if self.clean_index is not None and self.clean_index > self.index:
                self.clean_index = None
            self.steps.append(step)
            self.index += 1
            self._merge_open = False
            # The edits' own events came before the step existed: listeners
            # that show the history (title, Undo, the history dock) learn here.
            self._emit(DocumentEvent("recorded", Changes(), self.revision, name))

    def undo(self) -> Optional[Changes]:
        if not self.can_undo:
            return None
        step = self.steps[self.index - 1]
        changes = Changes()
        Macro(list(step.inverse)).apply(self.model, changes)
        self.index -= 1
        self._merge_open = False
        self._changed("undo", changes, step.name)
        return changes

    def redo(self) -> Optional[Changes]:
        if not self.can_redo:
            return None
        step = self.steps[self.index]
        changes = Changes()
        # Redo re-applies the recorded edits; their fresh inverses replace the
        # old ones (they name the same things, but hold the current objects).
        inverses = Macro(list(step.forward)).apply(self.model, changes)
        step.inverse = list(inverses.edits)
        self.index += 1
        self._merge_open = False
        self._changed("redo", changes, step.name)
        return changes

    def goto(self, index: int) -> None:
        """Undo or redo until `index` steps are applied (the history dock)."""
        if not 0 <= index <= len(self.steps):
            raise IndexError(f"history has {len(self.steps)} steps")
        while self.index > index:
            self.undo()
        while self.index < index:
            self.redo()

    @property
    def can_undo(self) -> bool:
        return self.index > 0 and self._macro is None

    @property
    def can_redo(self) -> bool:
        return self.index < len(self.steps) and self._macro is None

    @property
    def undo_name(self) -> str:
        return self.steps[self.index - 1].name if self.can_undo else ""

    @property
    def redo_name(self) -> str:
        return self.steps[self.index].name if self.can_redo else ""

    @property
    def dirty(self) -> bool:
        """True when the model differs from what was last opened or saved."""
        return self.clean_index != self.index

    def applied_edits(self) -> list[Edit]:
        """The forward edits of the applied steps, in order (the edit script)."""
        return [e for s in self.steps[:self.index] for e in s.forward]

    def script(self) -> list:
        """The applied edits as an edit script (JSON-able; see edits.script)."""
        from .edits.script import to_script
        return to_script(self.applied_edits())

    def replay(self, script, name: str = "Replay edit script") -> int:
        """Apply an edit script as one undo step. A step that no longer applies
        raises ScriptError naming it; the document is then unchanged."""
        from .edits.script import replay
        return replay(self, script, name)

    # -- saving ------------------------------------------------------------------------------

    def save(self, path=None, options=None) -> pathlib.Path:
        """Save atomically (serde.save) to `path` or the document's own path;
        the document is then clean and named after the file."""
        from .serde.io import save
        target = pathlib.Path(path) if path is not None else self.path
        if target is None:
            raise ValueError("this document has no file yet: give a path")
        # What the save appended to data files (a save in place only grows them): the app says so.
        self.last_save = save(self.model, target, options) if options is not None else save(self.model, target)
        self.path = target
        # The file now holds U+FFFD for any invalid UTF-8 read: not damaged any more.
        self._saved_once = True
        if self._analysis is not None:
            self._analysis.file_rewritten()
        self.clean_index = self.index
        self._merge_open = False
        self._emit(DocumentEvent("saved", Changes(), self.revision))
        return target

    # -- analysis ---------------------------------------------------------------------------

    @property
    def analysis(self):
        if self._analysis is None:
            from .analysis import Analysis
            self._analysis = Analysis(self.model)
            if self._saved_once:
                self._analysis.file_rewritten()
        return self._analysis

    @property
    def analysis_ready(self) -> bool:
        """True once inference and the checker have run (reading `diagnostics`
        or `type_of` before that runs them here and now)."""
        return self._analysis is not None

    def seed_analysis(self, analysis, revision: int) -> bool:
        """Adopt an Analysis built elsewhere (the app builds it in a background
        thread at open) if the model has not changed since `revision`."""
        if self._analysis is not None or revision != self.revision or analysis.model is not self.model:
            return False
        self._analysis = analysis
        if self._saved_once:
            analysis.file_rewritten()
        return True

    @property
    def diagnostics(self) -> list:
        """Every problem of the model as it is now (checked incrementally)."""
        return self.analysis.diagnostics()

    def type_of(self, value):
        """The inferred type of an IR value (declared types refined by inference)."""
        return self.analysis.type_of(value)

    # -- events ------------------------------------------------------------------------------

    def subscribe(self, listener: Callable[[DocumentEvent], None]) -> Callable[[], None]:
        """Call `listener(event)` after every change; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self, kind: str, changes: Changes, step: str) -> None:
        self.revision += 1
        if self._analysis is not None:
            self._analysis.note(changes)
        self._emit(DocumentEvent(kind, changes, self.revision, step))

    def _emit(self, event: DocumentEvent) -> None:
        for listener in list(self._listeners):
            listener(event)
