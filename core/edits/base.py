"""The shape every model edit has, and the record of what an edit touched.

An `Edit` is a small value object (a dataclass of names, paths and plain
values). `apply(model, changes)` performs it through the IR's mutators,
records what it touched in `changes`, and returns the inverse edit, which is
again an `Edit`. Edits name things by path and name, never by Python
identity, so an inverse still applies after its target was deleted and
re-created by other undo steps.

An edit that would break the IR's invariants raises `EditError` *before*
changing anything; a `Macro` that fails half-way undoes the steps it did.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Optional

from ..ir import IRError


class EditError(IRError):
    """An edit was refused. The message names the place and the reason; the
    model is unchanged."""


@dataclass
class Changes:
    """What one or more edits touched, for the Document to route: inference
    first, then the checker, then listeners (canvas, layout cache, run cache).

    The sets hold live IR objects as they were right after the edit; they are
    meant to be consumed at once, not kept.
    """
    nodes_changed: set = field(default_factory=set)    # Node edited in place (fields, attributes, inputs, outputs)
    nodes_added: set = field(default_factory=set)      # Node
    nodes_removed: set = field(default_factory=set)    # Node (detached now)
    values_retyped: set = field(default_factory=set)   # Value whose declared type changed
    values_renamed: list = field(default_factory=list)  # (Graph, old name, new name)
    graph_io: set = field(default_factory=set)         # Graph whose inputs/outputs list changed
    initializers: set = field(default_factory=set)     # Value whose initializer was added/removed/replaced
    value_info: set = field(default_factory=set)       # Graph whose value_info list changed
    graphs: set = field(default_factory=set)           # every Graph touched (including the above's)
    functions: set = field(default_factory=set)        # function keys (domain, name, overload) whose body changed
    model_fields: set = field(default_factory=set)     # names of Model fields ("ir_version", "opset_imports", ...)

    def merge(self, other: "Changes") -> "Changes":
        for f in dataclasses.fields(self):
            mine, theirs = getattr(self, f.name), getattr(other, f.name)
            if isinstance(mine, list):
                mine.extend(theirs)
            else:
                mine |= theirs
        return self

    @property
    def structural(self) -> bool:
        """True when the set of nodes, names or graph IO changed (not only
        fields/attributes of existing nodes or declared types)."""
        return bool(self.nodes_added or self.nodes_removed or self.values_renamed or self.graph_io
                    or self.initializers or self.functions or self.model_fields)

    def __bool__(self) -> bool:
        return any(bool(getattr(self, f.name)) for f in dataclasses.fields(self))

    # -- helpers for edits ------------------------------------------------------------

    def node(self, node) -> None:
        self.nodes_changed.add(node)
        if node.graph is not None:
            self._graph(node.graph)

    def _graph(self, graph) -> None:
        self.graphs.add(graph)
        owner = graph
        while owner.parent_graph is not None:
            owner = owner.parent_graph
        if getattr(owner.owner, "is_function", False):
            self.functions.add(owner.owner.key)


# Edit kinds by their JSON name, for edit scripts.
EDIT_KINDS: dict[str, type] = {}


def register(cls):
    """Class decorator: make an Edit kind known to edit scripts under `cls.kind`."""
    if cls.kind in EDIT_KINDS:
        raise AssertionError(f"edit kind {cls.kind!r} registered twice")
    EDIT_KINDS[cls.kind] = cls
    return cls


class Edit:
    """Base of every edit. Subclasses are dataclasses whose fields are plain
    JSON-able data (see script.py for tensors and graphs)."""
    kind: ClassVar[str] = ""

    def apply(self, model, changes: Optional[Changes] = None) -> "Edit":
        """Do the edit; record what it touched in `changes`; return the inverse."""
        raise NotImplementedError

    def describe(self) -> str:
        """A short name for menus and the history ("Set attribute kernel_shape of Conv \"c1\"")."""
        return self.kind

    def merge_key(self) -> Optional[tuple]:
        """Consecutive edits with the same non-None key merge into one undo step
        (typing into one field, dragging one slider)."""
        return None


@register
@dataclass
class Macro(Edit):
    """Several edits applied (and undone) as one."""
    kind: ClassVar[str] = "macro"
    edits: list = field(default_factory=list)
    name: str = ""

    def apply(self, model, changes: Optional[Changes] = None) -> "Macro":
        changes = changes if changes is not None else Changes()
        done: list[Edit] = []
        try:
            for e in self.edits:
                done.append(e.apply(model, changes))
        except Exception:
            for inv in reversed(done):
                inv.apply(model, Changes())
            raise
        return Macro(list(reversed(done)), self.name)

    def describe(self) -> str:
        return self.name or (self.edits[0].describe() if len(self.edits) == 1 else f"{len(self.edits)} edits")
