"""Live checking of an IR model while it is edited (the problems panel).

`LiveChecker(model)` checks the file form of an IR `Model` once (written
for the check and let go: on_demand.py; weights left out, file_form.py),
then keeps the checker's results per unit, node findings per IR Node, in
step with edits. Every edit reports what it touched (`Changes`);
`Analysis` (core/analysis.py) hands that to inference first and then here,
with the values whose inferred type moved; edit_plan.py tells what the
edit can have affected, and only that is written again (one NodeProto per
node re-checked, the main graph's header when the edit touched it) and
re-checked, insertions and removals included. No protobuf copy of the
model is kept between edits:

    inference = Inference(model); inference.run()
    live = LiveChecker(model, inference)
    changes = Changes()
    edit.apply(model, changes)
    moved = inference.apply(changes)
    diagnostics = live.apply(changes, moved)
    diagnostics = live.refresh()           # everything from scratch

The result equals a fresh `LiveChecker(model)` (tests/edits/test_random_edits.py).
A new IR version or opset import re-checks everything: every verdict
depends on them.
"""
from __future__ import annotations

import pathlib

from ..ir.types import TensorType
from .damaged_text import DamagedText
from .edit_plan import EditPlanner
from .ir_rules import bad_value_diagnostics, combine, declared_vs_inferred, inferred_errors
from .on_demand import OnDemand
from .session import CheckSession


class LiveChecker:
    """`inference`: an optional `core.infer.Inference` over the same model,
    already run and kept up to date by the caller (Analysis). Its types fill
    in what the file does not declare; the values whose type an edit moved
    (what `Inference.apply` returns) tell which nodes to re-check."""

    def __init__(self, model, inference=None):
        self.model = model
        self.inference = inference
        self.type_lookup = None
        # Saved since it was read: the file holds U+FFFD where the source
        # messages hold invalid UTF-8, so that damage is no longer reported.
        self._text_saved = False
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
        attribute values serde cannot write, contradictions inference found
        in nodes, and declarations that contradict inference (ir_rules)."""
        found = self._session.diagnostics
        bad = self._bad_attributes() if self._bad_values else ()
        text = self._damaged.findings(self.model) if self._damaged else []
        contradictions = in_nodes = []
        inference = self.inference
        if inference is not None:
            contradictions = declared_vs_inferred(self.model, inference)
            if inference.errors:
                in_nodes = inferred_errors(self.model, inference)
        if not bad and not contradictions and not in_nodes and not text:
            return found
        return combine(found, bad_value_diagnostics(self.model, bad) + text + in_nodes, contradictions)

    def refresh(self) -> list:
        """Re-read the whole model and check everything (inference, when
        given, is the caller's to bring up to date first)."""
        path = getattr(self.model, "path", None)
        folder = pathlib.Path(path).resolve().parent if path else None
        # Attributes whose value their type cannot carry (set from Python):
        # written without a value, reported here.
        self._bad_values: dict = {}
        # Invalid UTF-8 the file held (the file form written for the rules has U+FFFD instead).
        self._damaged = None if self._text_saved else DamagedText.read(self.model)
        self._planner = EditPlanner(self.model)
        self._session = CheckSession(source=OnDemand(self.model, self._bad_value), model_dir=folder,
                                     type_lookup=self.type_lookup, ir_graph=self.model.graph)
        return self.diagnostics

    def file_rewritten(self) -> None:
        """The model was saved: its file now holds the text the IR holds
        (U+FFFD where the file read had invalid UTF-8), so that damage is
        not reported again. What serde writes as read (training info, a
        ref_attr_name) is judged on the file form and stays reported."""
        self._text_saved = True
        self._damaged = None

    def _bad_value(self, attr, exc) -> None:
        self._bad_values[id(attr)] = attr

    def _bad_attributes(self) -> list:
        """The attributes serde could not write that still hold a bad value."""
        from ..proto import onnx_pb2 as pb  # noqa: PLC0415
        from ..serde.convert import ProtoWriter  # noqa: PLC0415
        strict = ProtoWriter(lambda t: t.to_proto(with_data=False), False)
        for key, attr in list(self._bad_values.items()):
            try:
                strict.attr(attr, pb.AttributeProto())
            except (TypeError, ValueError, OverflowError, AttributeError):
                continue
            del self._bad_values[key]       # fixed since (e.g. its value set right in place)
        return list(self._bad_values.values())

    def apply(self, changes, moved=None) -> list:
        """Bring the checker up to date after edits that recorded what they
        touched in `changes` (one Changes, or several merged). `moved`: the
        Values whose inferred type moved (`Inference.apply`, run first);
        None when unknown."""
        if not changes:
            return self.diagnostics
        if changes.changes_every_verdict:
            return self.refresh()
        names = self._element_type_moves(moved)
        plan = self._planner.plan(changes)
        if plan is None:
            return self.refresh()
        session = self._session
        if len(plan) == 1 and session.names_unchanged(plan["rewritten"]):
            # Nodes edited in place, their names as they were (attributes,
            # op_type, node name): no name-level work at all.
            session.recheck(nodes=plan["rewritten"], lookup_changed=names)
        else:
            session.update(lookup_changed=names, **plan)
        return self.diagnostics

    def node_changed(self, node, moved=None) -> list:
        """`node` (in the main graph or any subgraph below it) was edited in
        place: attributes, op_type, name, inputs or outputs."""
        from ..changes import Changes  # noqa: PLC0415
        changes = Changes()
        changes.node(node)
        return self.apply(changes, moved)

    def _element_type_moves(self, moved):
        """The main-graph names among `moved` whose type moved as the rules
        see it (None when unknown or without inference). The rules read
        only what schemas.type_string keeps of a type (element types), so a
        new shape alone moves nothing for them."""
        inference = self.inference
        if inference is None or moved is None:
            return None
        main = self.model.graph
        names = set()
        for v in moved:
            if v.graph is not main:
                continue
            old, new = inference.type_before_update(v), inference.type_of(v)
            # A new input dim moves every value: the usual case (a tensor
            # keeping its element type) is told without building type strings.
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
