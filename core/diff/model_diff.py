"""diff_models(A, B): the matching, the rewrites it recognised, and every
difference left, with a status per node for drawing."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

from ..ir import Model, Node, Value
from ..serde.type_proto import type_from_proto
from .changes import NodeChange, WeightChange, node_change, pair_changed_ops, weight_change
from .match import Matching, first_declarations, match_models
from .rewrites import Rewrite, find_rewrites

SAME, CHANGED, ADDED, REMOVED, REWRITTEN = "same", "changed", "added", "removed", "rewritten"


@dataclass
class IoDiff:
    added: list = field(default_factory=list)       # Values of B
    removed: list = field(default_factory=list)     # Values of A
    changed: list = field(default_factory=list)     # (Value of A, Value of B): another type or name
    # A damaged file may declare a name twice. The first declarations are
    # compared above; a further one is (Value, position) here when the other
    # side has no declaration of that occurrence of the paired name.
    repeats_added: list = field(default_factory=list)      # of B
    repeats_removed: list = field(default_factory=list)    # of A

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.repeats_added or self.repeats_removed)


@dataclass(frozen=True)
class ModelFieldChange:
    field: str                  # "opset_import" or "ir_version"
    a: Optional[int]            # None: A does not import the domain
    b: Optional[int]
    domain: str = ""            # of an opset import; "" is ai.onnx

    @property
    def text(self) -> str:
        def shown(v):
            return "none" if v is None else str(v)     # the domain is not imported
        what = f"opset {self.domain or 'ai.onnx'}" if self.field == "opset_import" else "IR version"
        return f"{what} {shown(self.a)} -> {shown(self.b)}"


def model_field_changes(a: Model, b: Model) -> list[ModelFieldChange]:
    """The opset imports (per domain) and IR version that differ, A's and B's."""
    ia, ib = a.opset_imports, b.opset_imports
    out = [ModelFieldChange("opset_import", ia.get(d), ib.get(d), d)
           for d in sorted(set(ia) | set(ib)) if ia.get(d) != ib.get(d)]
    if a.ir_version != b.ir_version:
        out.append(ModelFieldChange("ir_version", a.ir_version, b.ir_version))
    return out


@dataclass
class ModelDiff:
    matching: Matching
    rewrites: list[Rewrite]
    changed: list[NodeChange]
    added: list[Node]
    removed: list[Node]
    weights_changed: list[WeightChange]
    weights_added: list[Value]
    weights_removed: list[Value]
    inputs: IoDiff
    outputs: IoDiff
    renamed_nodes: list[tuple[Node, Node]]
    renamed_values: list[tuple[Value, Value]]
    # The model's own fields a re-export changes: the opset imports and the
    # IR version decide which version of every operator a node runs.
    model_fields: list[ModelFieldChange] = field(default_factory=list)
    # Paired weights alike in dtype and shape whose data cannot be read on a
    # side (WeightChange.not_compared says why), and paired nodes with such
    # a tensor attribute (NodeChange.not_compared): neither equal nor
    # different by value.
    weights_not_compared: list[WeightChange] = field(default_factory=list)
    nodes_not_compared: list[NodeChange] = field(default_factory=list)
    _status_a: dict = field(default_factory=dict, repr=False)
    _status_b: dict = field(default_factory=dict, repr=False)

    @property
    def matched(self) -> int:
        return len(self.matching.nodes)

    @property
    def equal(self) -> bool:
        """Nothing differs and every value could be compared."""
        return not self.differs and not self.uncertain

    @property
    def uncertain(self) -> bool:
        """Some values could not be compared (their data cannot be read)."""
        return bool(self.weights_not_compared or self.nodes_not_compared)

    @property
    def differs(self) -> bool:
        """A difference is known (values not compared are not one)."""
        return bool(self.rewrites or self.changed or self.added or self.removed or self.weights_changed
                    or self.weights_added or self.weights_removed or self.inputs or self.outputs
                    or self.renamed_nodes or self.renamed_values or self.model_fields)

    def not_compared_of(self, value: Value) -> Optional[WeightChange]:
        """The paired weight's entry when its values were not compared."""
        return next((c for c in self.weights_not_compared if c.a is value or c.b is value), None)

    def status_a(self, node: Node) -> str:
        return self._status_a.get(node, SAME if node in self.matching.nodes else REMOVED)

    def status_b(self, node: Node) -> str:
        return self._status_b.get(node, SAME if node in self.matching.nodes_back else ADDED)

    def partner_of_a(self, node: Node) -> Optional[Node]:
        return self.matching.nodes.get(node)

    def partner_of_b(self, node: Node) -> Optional[Node]:
        return self.matching.nodes_back.get(node)

    def change_of(self, node: Node) -> Optional[NodeChange]:
        return next((c for c in self.changed if c.a is node or c.b is node), None)

    def weight_change_of(self, value: Value) -> Optional[WeightChange]:
        return next((c for c in self.weights_changed if c.a is value or c.b is value), None)


def diff_models(a: Model, b: Model, *, check: Callable[[], None] = lambda: None) -> ModelDiff:
    """Match A with B and classify. `check` is called between passes and
    may raise match.Cancelled."""
    m = match_models(a, b, check=check)
    rewrites = find_rewrites(m)
    claimed_a = {n for r in rewrites for n in r.a_nodes + r.a_constants}
    claimed_b = {n for r in rewrites for n in r.b_nodes + r.b_constants}
    pair_changed_ops(m, claimed_a | claimed_b)
    check()
    status_a, status_b = {}, {}
    for n in claimed_a:
        status_a[n] = REWRITTEN
    for n in claimed_b:
        status_b[n] = REWRITTEN
    changed, nodes_not_compared = [], []
    for na, nb in m.nodes.items():
        if na in claimed_a or nb in claimed_b:
            continue
        c = node_change(m, na, nb)
        if c.changed:
            changed.append(c)
            status_a[na] = status_b[nb] = CHANGED
        if c.not_compared:
            nodes_not_compared.append(c)
    removed, added = [], []
    for ga, gb in m.graphs:
        removed += [n for n in ga.nodes if n not in m.nodes and n not in claimed_a]
        added += [n for n in gb.nodes if n not in m.nodes_back and n not in claimed_b]
    explained_a = {v for r in rewrites for v in r.a_values}
    explained_b = {v for r in rewrites for v in r.b_values}
    weights_changed, weights_not_compared = [], []
    for va, vb in m.values.items():
        if va.const is not None and vb.const is not None and va not in explained_a and vb not in explained_b:
            c = weight_change(va, vb)
            if c is not None:
                (weights_changed if c.known_different else weights_not_compared).append(c)
    weights_removed, weights_added = [], []
    for ga, gb in m.graphs:
        weights_removed += [v for v in ga.initializers.values() if v not in m.values and v not in explained_a]
        weights_added += [v for v in gb.initializers.values() if v not in m.values_back and v not in explained_b]
    ga, gb = a.graph, b.graph
    # In A's order, not the order of pairing: two nodes whose names B
    # exchanged pair at different times and were rows apart in the list.
    renamed_nodes = [(x, m.nodes[x]) for ga, _ in m.graphs for x in ga.nodes
                     if x in m.nodes and x.name != m.nodes[x].name]
    renamed_values = [(x, y) for x, y in m.values.items() if x.name != y.name]
    return ModelDiff(m, rewrites, changed, added, removed, weights_changed, weights_added, weights_removed,
                     _io(m, ga.inputs, gb.inputs), _io(m, ga.outputs, gb.outputs), renamed_nodes, renamed_values,
                     model_field_changes(a, b), weights_not_compared, nodes_not_compared, status_a, status_b)


def _io(m: Matching, va: list, vb: list) -> IoDiff:
    d = IoDiff()
    fa, fb = first_declarations(va), first_declarations(vb)
    d.removed = [v for v in fa if m.values.get(v) not in fb]
    d.added = [v for v in fb if m.values_back.get(v) not in fa]
    d.changed = [(x, m.values[x]) for x in fa if m.values.get(x) in fb
                 and (str(x.type) != str(m.values[x].type) or x.name != m.values[x].name)]
    d.repeats_removed = _unmatched_repeats(va, fa, vb, fb, m.values)
    d.repeats_added = _unmatched_repeats(vb, fb, va, fa, m.values_back)
    return d


def _unmatched_repeats(mine: list, my_firsts: list, theirs: list, their_firsts: list, partners: dict) -> list:
    """(Value, position) of each further declaration of a name in `mine`
    that `theirs` does not declare as often (under the partner's name)."""
    if len(my_firsts) == len(mine):
        return []               # no name declared twice
    first_of = {v.name: v for v in my_firsts}
    their_types: dict = {}          # name -> the type each of its declarations says, in order
    for j, v in enumerate(theirs):
        their_types.setdefault(v.name, []).append(declared_type(theirs, j))
    seen: dict = {}
    out = []
    for i, v in enumerate(mine):
        k = seen[v.name] = seen.get(v.name, -1) + 1
        if k == 0:
            continue
        partner = partners.get(first_of[v.name])
        types = their_types.get(partner.name, []) if partner is not None and partner in their_firsts else []
        if len(types) <= k or types[k] != declared_type(mine, i):
            out.append((v, i))
    return out


def declared_type(entries, index: int) -> str:
    """The type graph input or output entry `index` declares, as text: a
    repeated output's entries hold one Value, so what each says is read
    from its kept message when it has one."""
    message = entries.override(index) if hasattr(entries, "override") else None
    if message is not None and message.HasField("type"):
        return str(type_from_proto(message.type))
    return str(entries[index].type)
