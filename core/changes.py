"""What one or more edits touched (`Changes`).

Edits fill one in; `Analysis` hands it to inference and then the checker.
It lives below all three so the checker and inference need not import the
edits package.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field


# Model fields whose change makes every verdict stale (see changes_every_verdict).
_EVERY_VERDICT = frozenset({"ir_version", "opset_imports"})


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

    @property
    def changes_every_verdict(self) -> bool:
        """A new IR version or opset import: every node's signature, and so
        every inferred type and every finding, may differ; inference and the
        checker start over rather than update."""
        return bool(self.model_fields & _EVERY_VERDICT)

    def __bool__(self) -> bool:
        return any(bool(getattr(self, f.name)) for f in dataclasses.fields(self))

    # -- helpers for edits ------------------------------------------------------------

    def node(self, node) -> None:
        self.nodes_changed.add(node)
        if node.graph is not None:
            self.graph(node.graph)

    def graph(self, graph) -> None:
        """`graph` was touched (its lists or a node in it); a function body
        being touched also marks that function's body as changed."""
        self.graphs.add(graph)
        owner = graph
        while owner.parent_graph is not None:
            owner = owner.parent_graph
        if getattr(owner.owner, "is_function", False):
            self.functions.add(owner.owner.key)
