"""Live checking of an IR model while it is edited (the problems panel).

`LiveChecker(model)` checks the file form of an IR `Model` once, then keeps
a protobuf mirror of it (mirror.py) and the checker's results per unit in
step with edits. Every edit reports what it touched (`edits.Changes`); hand
that to `apply`, and only what the edit can have affected is re-written and
re-checked, insertions and removals included:

    live = LiveChecker(model, inference=Inference(model))
    changes = Changes()
    edit.apply(model, changes)
    diagnostics = live.apply(changes)      # inference updated first, then the checker
    diagnostics = live.refresh()           # everything from scratch

The result equals a fresh `LiveChecker(model)` (tests/edits/test_random_edits.py).
A new IR version or opset import re-checks everything: every verdict
depends on them.
"""
from __future__ import annotations

import pathlib

from ..ir.types import TensorType
from .ir_rules import bad_value_diagnostics, combine, declared_vs_inferred
from .mirror import Mirror
from .session import CheckSession

_EVERYTHING = frozenset({"ir_version", "opset_imports"})
_MISSING = object()


class LiveChecker:
    """`inference`: an optional `core.infer.Inference` over the same model. Its
    types fill in what the file does not declare, and `node_changed` updates
    it first so the re-check sees the new types (and re-checks the nodes
    whose input types moved)."""

    def __init__(self, model, inference=None):
        self.model = model
        self.inference = inference
        self.type_lookup = None
        if inference is not None:
            main = model.graph

            def lookup(graph_path, name):
                if graph_path != "graph":
                    return None
                value = main.get_value(name)
                return inference.type_of(value) if value is not None else None
            self.type_lookup = lookup
        self.refresh()

    @property
    def diagnostics(self) -> list:
        """The checker's findings on the file form, with the IR-level ones:
        attribute values serde cannot write, and declarations that
        contradict inference (ir_rules)."""
        found = self._session.diagnostics
        bad = self._mirror.bad_attributes() if self._mirror.bad_values else ()
        contradictions = []
        if self.inference is not None and self.inference.contradictions:
            contradictions = declared_vs_inferred(self.model, self.inference)
        if not bad and not contradictions:
            return found
        return combine(found, bad_value_diagnostics(self.model, bad), contradictions)

    def refresh(self) -> list:
        """Re-read the whole model and check everything."""
        if self.inference is not None:
            self.inference.run()
        path = getattr(self.model, "path", None)
        folder = pathlib.Path(path).resolve().parent if path else None
        self._mirror = Mirror(self.model)
        self._session = CheckSession(self._mirror.proto, model_dir=folder, type_lookup=self.type_lookup)
        return self.diagnostics

    def apply(self, changes) -> list:
        """Bring inference and the checker up to date after edits that
        recorded what they touched in `changes` (one Changes, or several merged)."""
        if not changes:
            return self.diagnostics
        if changes.model_fields & _EVERYTHING:
            return self.refresh()
        try:
            moved = self._update_inference(changes)
        except Exception:  # noqa: BLE001 - inference trouble must not stop checking
            return self.refresh()
        self._session.remember_names()
        plan = self._mirror.sync(changes)
        if plan is None:
            return self.refresh()
        session = self._session
        if len(plan) == 1 and session.names_unchanged(plan["rewritten"]):
            # Nodes edited in place, their names as they were (attributes,
            # op_type, node name): no name-level work at all.
            session.recheck(nodes=plan["rewritten"], lookup_changed=moved)
        else:
            session.update(lookup_changed=moved, **plan)
        return self.diagnostics

    def node_changed(self, node) -> list:
        """`node` (in the main graph or any subgraph below it) was edited in
        place: attributes, op_type, name, inputs or outputs."""
        from ..changes import Changes  # noqa: PLC0415
        changes = Changes()
        changes.node(node)
        return self.apply(changes)

    # -- inference ---------------------------------------------------------------------

    def _update_inference(self, changes):
        """Re-infer what the edits can have moved; the main-graph names whose
        type moved (None without inference)."""
        inference = self.inference
        if inference is None:
            return None
        main = self.model.graph
        nodes, values = set(), set()
        calls = set(changes.functions)
        for n in changes.nodes_removed:
            if n.graph is None:
                inference._diags.pop(n, None)
                for v in n.outputs:
                    if v is not None and (v.producer is None or v.producer is n):
                        inference.types.pop(v, None)
                        inference.consts.pop(v, None)
                        inference.syms.pop(v, None)
                        inference.contradictions.pop(v, None)
        for n in changes.nodes_changed | changes.nodes_added:
            if n.graph is main:
                nodes.add(n)
            elif n.graph is not None:
                top, key = _top(n.graph, main)
                if top is not None:
                    nodes.add(top)
                elif key is not None:
                    calls.add(key)
        for g in changes.graphs | changes.graph_io | changes.value_info:
            if g is main:
                continue
            top, key = _top(g, main)
            if top is not None:
                nodes.add(top)
            elif key is not None:
                calls.add(key)
        for v in changes.values_retyped | changes.initializers:
            if v.graph is None or v.graph is main:
                values.add(v)
            else:
                top, key = _top(v.graph, main)
                if top is not None:
                    nodes.add(top)
                elif key is not None:
                    calls.add(key)
        if main in changes.graph_io:
            values.update(main.inputs)
            nodes.update(v.producer for v in main.outputs if v.producer is not None)
        if calls:
            for g in main.walk():
                for n in g._nodes:
                    if (n.domain, n.op_type, n.overload) in calls:
                        nodes.add(n if g is main else _top(g, main)[0])
            nodes.discard(None)
        moved = inference.update(nodes=nodes, values=values)
        # The checker reads only what schemas.type_string keeps of a type
        # (element types): a new shape alone moves nothing for it.
        previous, types = inference.previous, inference.types
        names = set()
        # A new input dim moves every value: the usual case (a tensor keeping
        # its element type) is told inline, without a call per value.
        for v in moved:
            if v.graph is not main:
                continue
            old, new = previous.get(v), types.get(v, _MISSING)
            if new is _MISSING:
                new = inference.type_of(v)
            if type(old) is TensorType and type(new) is TensorType and old.elem_type == new.elem_type:
                continue
            if _moved_for_checker(old, new):
                names.add(v.name)
        return names


def _moved_for_checker(old, new) -> bool:
    if type(old) is TensorType and type(new) is TensorType:
        return old.elem_type != new.elem_type and (bool(old.elem_type) or bool(new.elem_type))
    return _seen(old) != _seen(new)


def _seen(t):
    from ..schemas import type_string  # noqa: PLC0415
    return None if t is None else type_string(t)


def _top(graph, main):
    """(the main-graph node holding `graph`, None), or (None, function key)
    for a function body, or (None, None) for a graph no longer attached."""
    node = None
    while graph is not main:
        holder = graph.parent_node
        if holder is None:
            owner = graph.owner
            return None, (owner.key if getattr(owner, "is_function", False) else None)
        node = holder
        graph = holder.graph
        if graph is None:
            return None, None
    return node, None
