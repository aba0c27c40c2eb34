"""What differs between paired things, and what is only on one side.

A paired node is changed when its op, domain, attributes or input wiring
differ. An attribute left out on one side is compared with the default the
operator's signature gives it; a commutative op's inputs are compared as a
multiset (Add(bias, x) is Add(x, bias)). A wiring difference that an added node upstream in B (an insertion)
or a removed node upstream in A (a bypass) explains is not counted: the
insertion or removal is the difference. A paired weight is changed when
its dtype, shape or values differ (largest absolute and relative
difference, share of elements changed). A weight (or a node's tensor
attribute) whose data cannot be read on either side is compared by what is
known without its bytes, and its values are "not compared", with the
reason: neither equal nor different by value."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .. import schemas
from ..ir import AttrType, Model, Node, Value
from .agreement import wiring_changed
from .match import Matching, unique_names
from .signature import attr_value_key, op_key, tensor_key, unreadable_reason


@dataclass
class NodeChange:
    a: Node
    b: Node
    op: Optional[tuple] = None               # (A's op, B's op) when they differ
    domain: Optional[tuple] = None
    attributes: list = field(default_factory=list)   # names added, removed or with another value
    inputs: bool = False                     # wired to other values (unexplained)
    # Tensor attributes alike in what is known (dtype, shape) whose data
    # cannot be read on a side: (name, reason), values not compared.
    not_compared: list = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.op or self.domain or self.attributes or self.inputs)


@dataclass
class WeightChange:
    a: Value
    b: Value
    dtype: Optional[tuple] = None
    shape: Optional[tuple] = None
    max_abs: Optional[float] = None
    max_rel: Optional[float] = None
    share_changed: Optional[float] = None
    # Why the values were not compared ("A: ...; B: ..."), or None: the
    # data of one side or both cannot be read.
    not_compared: Optional[str] = None

    @property
    def known_different(self) -> bool:
        """Differs in what can be known without the values (dtype, shape),
        or in values both sides let us read."""
        return bool(self.dtype or self.shape) or self.not_compared is None


def pair_changed_ops(m: Matching, claimed: set) -> None:
    """Pair unpaired nodes of different ops only on evidence that they are
    the same node, changed: the same name (unique on each side), or a node
    replaced in place between paired neighbours (`_replaced_in_place`).
    Without it they are a removed node and an added one: two unrelated
    models' last nodes, whose outputs pair only by position, are not one
    node changed."""
    for ga, gb in m.graphs:
        named_b = unique_names(gb.nodes)
        named_a = unique_names(ga.nodes)
        for na in ga.nodes:
            if na in m.nodes or na in claimed:
                continue
            nb = named_b.get(na.name) if na.name in named_a else None
            if nb is None or nb in m.nodes_back or nb in claimed:
                nb = _replaced_in_place(m, na, gb, claimed)
            if nb is not None:
                m.pair_nodes(na, nb)


def _replaced_in_place(m: Matching, na: Node, gb, claimed: set) -> Optional[Node]:
    """The unpaired node of B that stands where `na` stands: it reads the
    partners of na's inputs at the same slots, and the readers of each of
    its outputs are the partners of the readers of na's (a graph output
    standing for its partner). Both sides must hold: producers alone pair
    any two nodes fed by positionally paired graph inputs, readers alone
    any two last nodes."""
    ins = [m.values.get(v) if v is not None else None for v in na.inputs]
    if not ins or any(v is None for v in ins) or not na.outputs:
        return None
    cands = [c for c, _ in ins[0].iter_uses() if c.graph is gb and c not in m.nodes_back and c not in claimed
             and list(c.inputs) == ins and len(c.outputs) == len(na.outputs) and _readers_paired(m, na, c)]
    return cands[0] if len(cands) == 1 else None


def _readers_paired(m: Matching, na: Node, nb: Node) -> bool:
    for oa, ob in zip(na.outputs, nb.outputs):
        if oa is None or ob is None:
            if oa is not ob:
                return False
            continue
        if (oa.is_graph_output or ob.is_graph_output) and m.values.get(oa) is not ob:
            return False
        readers_a = {m.nodes.get(c) for c in oa.consumers}
        if None in readers_a or readers_a != set(ob.consumers):
            return False
    return True


def node_change(m: Matching, na: Node, nb: Node) -> NodeChange:
    c = NodeChange(na, nb)
    if (na.op_type, na.overload) != (nb.op_type, nb.overload):
        c.op = (na.op_type, nb.op_type)
    if (na.domain or "") != (nb.domain or ""):
        c.domain = (na.domain, nb.domain)
    names = sorted(set(na.attributes) | set(nb.attributes))
    for name in names:
        x, y = na.attributes.get(name), nb.attributes.get(name)
        if x is None:
            same = _is_default(y, _default_of(m.a, na, name))
        elif y is None:
            same = _is_default(x, _default_of(m.b, nb, name))
        else:
            reason = _unreadable_attr(x, y) if x.type == y.type else None
            if reason is not None:
                # Compared by what is known without the data: dtype and shape.
                if _tensor_keys(x) == _tensor_keys(y):
                    c.not_compared.append((name, reason))
                    continue
                same = False
            else:
                same = x.type == y.type and attr_value_key(x) == attr_value_key(y)
        if not same:
            c.attributes.append(name)
    c.inputs = wiring_changed(m, na, nb)
    return c


def _attr_tensors(a) -> list:
    if a.type == AttrType.TENSOR:
        return [a.value] if a.value is not None else []
    return list(a.value or ()) if a.type == AttrType.TENSORS else []


def _tensor_keys(a) -> list:
    return [tensor_key(t) for t in _attr_tensors(a)]


def _unreadable_attr(x, y) -> Optional[str]:
    """Why tensor attributes cannot be compared by value ("A: ... | B:
    ..."), or None when every tensor of both can be read."""
    return sides_unreadable([unreadable_reason(t) for t in _attr_tensors(x)],
                            [unreadable_reason(t) for t in _attr_tensors(y)])


def sides_unreadable(a_reasons, b_reasons) -> Optional[str]:
    """"A: reason | B: reason" for the sides whose data cannot be read, or
    None (serde's reasons hold semicolons of their own)."""
    parts = [f"{side}: {r}" for side, reasons in (("A", a_reasons), ("B", b_reasons))
             for r in reasons if r is not None]
    return " | ".join(parts) or None


def _default_of(model: Model, node: Node, name: str):
    """The value an attribute the node leaves out takes: the default in the
    operator's signature for the node's domain under the opsets in force
    where it stands (a function's own imports over the model's); None when
    the signature is unknown or gives no default."""
    g = node.graph
    while g is not None and g.parent_graph is not None:
        g = g.parent_graph
    imports = dict(model.opset_imports)
    owner = g.owner if g is not None else None
    if owner is not None and getattr(owner, "is_function", False):
        imports.update(owner.opset_imports)
    schema = schemas.bind(node.domain or "", node.op_type, imports)
    spec = schema.attributes.get(name) if schema is not None else None
    return None if spec is None else spec.default


def _is_default(attr, default) -> bool:
    # Exporters differ in writing defaults out (torch's legacy exporter writes
    # auto_pad="NOTSET", its dynamo exporter leaves it out): written at its
    # default, an attribute says what leaving it out says.
    if default is None or attr.ref_attr_name:
        return False
    value = attr.value
    if attr.type in (AttrType.FLOAT, AttrType.FLOATS):
        # Stored as float32: 1e-5 written out reads back as 9.9999997e-06.
        try:
            return bool(np.array_equal(np.asarray(value, np.float32), np.asarray(default, np.float32)))
        except (TypeError, ValueError):
            return False
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, (list, tuple)):
        value = tuple(v.decode("utf-8", "replace") if isinstance(v, bytes) else v for v in value)
    return value == default


def weight_change(va: Value, vb: Value) -> Optional[WeightChange]:
    """None when both hold the same dtype, shape and bytes (both are read).
    When a side's data cannot be read, its `not_compared` says why and no
    value is read: dtype and shape are all that is compared."""
    ta, tb = va.const, vb.const
    c = WeightChange(va, vb)
    if ta.dtype != tb.dtype:
        c.dtype = (ta.dtype, tb.dtype)
    if tuple(ta.shape) != tuple(tb.shape):
        c.shape = (tuple(ta.shape), tuple(tb.shape))
    c.not_compared = sides_unreadable([unreadable_reason(ta)], [unreadable_reason(tb)])
    if c.dtype or c.shape or c.not_compared:
        return c
    if not hasattr(ta, "raw_bytes") or not hasattr(tb, "raw_bytes"):
        xa, xb = ta.to_dense(), tb.to_dense()
    else:
        if np.array_equal(np.frombuffer(ta.raw_bytes(), np.uint8), np.frombuffer(tb.raw_bytes(), np.uint8)):
            return None
        xa, xb = ta.numpy(), tb.numpy()
    if xa.dtype.kind in "fciub" and xa.dtype.kind == xb.dtype.kind:
        fa, fb = xa.astype(np.float64, copy=False), xb.astype(np.float64, copy=False)
        delta = np.abs(fa - fb)
        c.max_abs = float(delta.max()) if delta.size else 0.0
        scale = float(np.abs(fa).max()) if fa.size else 0.0
        c.max_rel = c.max_abs / scale if scale > 0 else (0.0 if c.max_abs == 0 else float("inf"))
        c.share_changed = float(np.count_nonzero(fa != fb)) / fa.size if fa.size else 0.0
    else:
        same = np.asarray(xa == xb)
        c.share_changed = 1.0 - float(same.mean()) if same.size else 0.0
        if c.share_changed == 0.0:
            return None
    return c


def op_text(node: Node) -> str:
    d, op, overload = op_key(node)
    return f"{d + '::' if d else ''}{op}"
