"""What the calls of model-local functions give the values of their bodies.

A function body is inferred once per call, with that call's types, into the
same `Inference.types` the rest of the model uses (its nodes read their
inputs from there). Left at that, a body value would show the last call's
type: float[7] where the first call passes float[2,3]. So after each call
its body's types are recorded, and once the walk is over each body value is
given what holds for every call (`merge.common_type`): float[2,3] and
float[7] show as float, two calls of one shape show that shape.

Records are kept per main-graph node (a call, or a node whose subgraphs make
calls, directly or through other functions), because that is the unit
`Inference.update` re-infers: re-inferring a node replaces its record, and
removing it drops the record, so a call's old types never linger. After an
update only the body values whose records changed are merged again (one
pass over the records); a full run merges everything once, at the end. A
call re-inferred with the same record as before still wrote its own types
over the merged ones while its body was walked: those are put back from
what was shown, without merging again.
"""
from __future__ import annotations

from .merge import common_type

_MISSING = object()


class CallTypes:
    """Per main-graph node, the types its calls gave body values; and the
    merged type each body value shows."""

    def __init__(self):
        self._records: dict = {}     # main-graph node -> {body Value: type}
        self._shown: dict = {}       # body Value -> its merged type, as last settled
        self._stale: set = set()     # body Values whose records changed since
        self._restore: set = set()   # body Values a call overwrote with its own types, records unchanged
        self._all_stale = True       # after clear(): merge every record
        self._values: dict = {}      # function graph -> its values, for one run or update
        self._current = None         # the record being filled, while a node is inferred
        self._disagree: dict = {}    # body Value -> calls_disagree(), until the next settle

    def clear(self) -> None:
        """Before a full run."""
        self._records.clear()
        self._shown.clear()
        self._stale.clear()
        self._restore.clear()
        self._all_stale = True
        self.new_pass()

    def new_pass(self) -> None:
        """Before an update: edits since the last pass may have changed bodies."""
        self._values.clear()
        self._current = None

    def begin(self, node) -> None:
        """`node` (of the main graph) is about to be inferred."""
        self._current = {}

    def note_body(self, body, types: dict) -> None:
        """A call just typed `body` (a function's graph) into `types`. Two
        calls under one node (nested functions, both branches of an If)
        are merged into its record as they come."""
        record = self._current
        if record is None:
            return
        values = self._values.get(body)
        if values is None:
            values = self._values[body] = _values_of(body)
        get = types.get
        if not record:
            record.update({v: get(v) for v in values})
            return
        for v in values:
            t = get(v)
            old = record.get(v, _MISSING)
            record[v] = t if old is _MISSING else common_type(old, t)

    def end(self, node) -> None:
        """`node` is inferred: its record replaces the one it had."""
        record, self._current = self._current, None
        old = self._records.pop(node, None)
        if record:
            self._records[node] = record
        if self._all_stale or not (old or record):
            return
        stale = self._stale
        # Comparing the records costs more than it saves once their values
        # are stale anyway (an update re-inferring many calls).
        if old and record and stale.issuperset(record) and stale.issuperset(old):
            return
        if old == record:
            # The merged types stand, but this call's walk wrote its own
            # over them (a renamed call of two would show its types only).
            self._restore.update(record)
            return
        if old:
            stale.update(old)
        if record:
            stale.update(record)

    def drop(self, node) -> None:
        """`node` left the model: its calls no longer count."""
        old = self._records.pop(node, None)
        if old and not self._all_stale:
            self._stale.update(old)

    def settle(self, types: dict) -> list:
        """Store in `types` the merged type of each body value whose records
        changed (a value no call reaches any more loses its entry); returns
        [(value, type shown before)] for those whose shown type moved."""
        targets = None if self._all_stale else self._stale
        self._put_back_shown(types, targets)
        if targets is not None and not targets:
            return []
        merged: dict = {}
        records = self._records.values()
        if targets is None:
            for record in records:
                for v, t in record.items():
                    old = merged.get(v, _MISSING)
                    merged[v] = t if old is _MISSING else common_type(old, t)
        else:
            for v in targets:
                m = _MISSING
                for record in records:
                    t = record.get(v, _MISSING)
                    if t is not _MISSING:
                        m = t if m is _MISSING else common_type(m, t)
                if m is not _MISSING:
                    merged[v] = m
        shown = self._shown
        moved = []
        for v in (merged if targets is None else targets):
            before = shown.get(v)
            t = merged.get(v, _MISSING)
            if t is _MISSING:
                shown.pop(v, None)
                types.pop(v, None)
                t = None
            else:
                shown[v] = types[v] = t
            if t != before:
                moved.append((v, before))
        self._stale = set()
        self._all_stale = False
        self._disagree.clear()
        return moved

    def _put_back_shown(self, types: dict, targets) -> None:
        """What calls with unchanged records overwrote gets its merged type
        back (values about to be merged again need not)."""
        restore, self._restore = self._restore, set()
        if targets is None:
            return
        shown = self._shown
        for v in restore:
            if v in targets:
                continue
            t = shown.get(v, _MISSING)
            if t is _MISSING:
                types.pop(v, None)
            else:
                types[v] = t

    def calls_disagree(self, value) -> bool:
        """True when the calls reaching body `value` give it different types
        (what is shown is then what they have in common)."""
        if value not in self._shown:
            return False            # not a body value, or no call reaches it
        found = self._disagree.get(value)
        if found is None:
            found = self._disagree[value] = self._records_disagree(value)
        return found

    def _records_disagree(self, value) -> bool:
        first = _MISSING
        for record in self._records.values():
            t = record.get(value, _MISSING)
            if t is _MISSING:
                continue
            if first is _MISSING:
                first = t
            elif t != first:
                return True
        return False


def _values_of(body) -> tuple:
    """Every value a function body (and the subgraphs in it) defines."""
    found = []
    for g in body.walk():
        found.extend(g.inputs)
        for node in g.nodes:
            found.extend(v for v in node.outputs if v is not None)
    return tuple(found)
