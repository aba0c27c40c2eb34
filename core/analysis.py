"""Inference and checking kept in step with a Document's edits.

Edits report what they touched (`edits.Changes`); `note` collects those, and
the next read of `diagnostics()` or `type_of()` brings inference up to date
first (its types feed the checker), then the checker. Work is done on
demand, so replaying a long edit script costs one update, not one per edit.
"""
from __future__ import annotations

from .changes import Changes


class Analysis:
    def __init__(self, model):
        from .check.live import LiveChecker
        from .infer import Inference
        self.model = model
        self.inference = Inference(model)
        self.checker = LiveChecker(model, self.inference)   # runs inference and a full check
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
        if pending:
            self.checker.apply(pending)

    def diagnostics(self) -> list:
        self._flush()
        return list(self.checker.diagnostics)

    def type_of(self, value):
        self._flush()
        return self.inference.type_of(value)

    def types_in(self, graph) -> dict:
        self._flush()
        return self.inference.types_in(graph)

