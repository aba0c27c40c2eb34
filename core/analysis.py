"""Inference and checking kept in step with a Document's edits.

Edits report what they touched (`Changes`); `note` collects those, and the
next read of `diagnostics()` or `type_of()` brings everything up to date in
this order: inference takes the changes and tells which values' types moved;
the checker re-checks the touched nodes and the readers of those values.
(Listeners hear of an edit from the Document when it is applied; they read
results through here.) Work is done on demand, so replaying a long edit
script costs one update, not one per edit.
"""
from __future__ import annotations

from .changes import Changes


class Analysis:
    def __init__(self, model):
        from .check.live import LiveChecker
        from .infer import Inference
        self.model = model
        self.inference = Inference(model)
        self.inference.run()
        self.checker = LiveChecker(model, self.inference)   # a full check, with inferred types
        self._pending = Changes()
        self._noted = False

    def note(self, changes: Changes) -> None:
        self._pending.merge(changes)
        self._noted = True

    def _flush(self) -> None:
        # Panels read type_of once per edge label: the common case (nothing
        # noted since the last read) must cost nothing.
        if not self._noted:
            return
        pending, self._pending, self._noted = self._pending, Changes(), False
        if not pending:
            return
        try:
            moved = self.inference.apply(pending)
        except Exception:  # noqa: BLE001 - inference trouble must not stop checking: start both over
            self.inference.run()
            self.checker.refresh()
            return
        self.checker.apply(pending, moved)

    def file_rewritten(self) -> None:
        """The model was just saved (see LiveChecker.file_rewritten)."""
        self.checker.file_rewritten()

    def diagnostics(self) -> list:
        self._flush()
        return list(self.checker.diagnostics)

    def type_of(self, value):
        self._flush()
        return self.inference.type_of(value)

    def types_in(self, graph) -> dict:
        self._flush()
        return self.inference.types_in(graph)
