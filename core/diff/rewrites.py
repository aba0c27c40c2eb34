"""Common rewrites between A and B, recognised where the evidence is clear,
so that they read as what they are rather than as unrelated removals and
additions:

- fused: MatMul followed by Add in A, one Gemm in B reading the same data;
- folded: a BatchNormalization after a Conv in A is gone in B, whose Conv
  (paired with A's) now feeds what the BatchNormalization fed;
- constant folded: nodes of A computing only from constants and from the
  shapes of tensors (Shape), an initializer of B in their place (torch's
  legacy exporter computes reshape targets from Shape; dynamo writes them);
- Q/DQ inserted: B reads a paired value through a new QuantizeLinear ->
  DequantizeLinear pair;
- split: Slices of one tensor in A (with the arithmetic of their bounds),
  one Split of its partner in B (torch.chunk by the legacy and the dynamo
  exporter).

Each is found at a disagreement: a slot where a paired node of A reads a
value whose partner is not what its partner in B reads (or a graph output
whose producers are not paired)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

from ..ir import Node, Value
from .match import Matching


@dataclass
class Rewrite:
    kind: str              # "fused", "folded", "constant_folded", "qdq_inserted", "split"
    text: str                                   # "MatMul+Add -> Gemm"
    a_nodes: list = field(default_factory=list)
    b_nodes: list = field(default_factory=list)
    a_values: list = field(default_factory=list)    # initializers of A it explains (gone, changed)
    b_values: list = field(default_factory=list)    # initializers of B it explains (new, changed)
    a_constants: list = field(default_factory=list)  # Constant nodes of A holding its weights
    b_constants: list = field(default_factory=list)

    @classmethod
    def over(cls, kind: str, text: str, a_nodes: list, b_nodes: list, *, b_values=()) -> "Rewrite":
        """The rewrite of `a_nodes` into `b_nodes`, explaining the weights they read."""
        a_values, a_constants = _weights(a_nodes)
        b_weights, b_constants = _weights(b_nodes)
        return cls(kind, text, a_nodes, b_nodes, a_values, b_weights + list(b_values), a_constants, b_constants)


def disagreements(m: Matching) -> Iterator[tuple[Value, Value]]:
    """(value of A, value of B) read at the same place by paired readers, or
    paired graph outputs, where the two are not each other's partners (or,
    for outputs, their producers are not paired)."""
    for na, nb in list(m.nodes.items()):
        for va, vb in zip(na.inputs, nb.inputs):
            if va is not None and vb is not None and m.values.get(va) is not vb:
                yield va, vb
    for ga, gb in m.graphs:
        for oa, ob in zip(ga.outputs, gb.outputs):
            if oa.producer is not None and m.nodes.get(oa.producer) is not ob.producer:
                yield oa, ob


def find_rewrites(m: Matching) -> list[Rewrite]:
    found, claimed = [], set()
    for va, vb in list(disagreements(m)):
        for finder in (_fused, _folded, _constant_folded, _qdq_inserted, _split_of_slices):
            r = finder(m, va, vb)
            if r is not None and not claimed.intersection(r.a_nodes + r.b_nodes):
                claimed.update(r.a_nodes + r.b_nodes)
                found.append(r)
                break
    return found


def _unpaired(m: Matching, node: Optional[Node], side: str) -> bool:
    if node is None:
        return False
    return node not in (m.nodes if side == "a" else m.nodes_back)


def _only_reader(v: Value, node: Node) -> bool:
    return all(c is node for c in v.consumers) and not v.is_graph_output


def _fused(m: Matching, va: Value, vb: Value) -> Optional[Rewrite]:
    add, gemm = va.producer, vb.producer
    if not (add is not None and gemm is not None and add.op_type == "Add" and gemm.op_type == "Gemm"
            and _unpaired(m, add, "a") and _unpaired(m, gemm, "b")):
        return None
    for i, x in enumerate(add.inputs):
        mm = x.producer if x is not None else None
        if mm is not None and mm.op_type == "MatMul" and _unpaired(m, mm, "a") and _only_reader(x, add):
            data = mm.inputs[0]
            if m.values.get(data) is not gemm.inputs[0]:
                return None
            m.pair_values(va, vb)
            bias = gemm.inputs[2] if len(gemm.inputs) > 2 else None
            for wa, wb in ((mm.inputs[1], gemm.inputs[1]), (add.inputs[1 - i], bias)):
                if wa is not None and wb is not None and wa.const is not None and wb.const is not None:
                    m.pair_values(wa, wb)
            return Rewrite.over("fused", "MatMul+Add -> Gemm", [mm, add], [gemm])
    return None


def _folded(m: Matching, va: Value, vb: Value) -> Optional[Rewrite]:
    bn, conv_b = va.producer, vb.producer
    if not (bn is not None and bn.op_type == "BatchNormalization" and _unpaired(m, bn, "a")
            and conv_b is not None and conv_b.op_type == "Conv" and bn.inputs[0] is not None):
        return None
    conv_a = bn.inputs[0].producer
    if conv_a is None or m.nodes.get(conv_a) is not conv_b or not _only_reader(bn.inputs[0], bn):
        return None
    return Rewrite.over("folded", "Conv+BatchNormalization -> Conv", [conv_a, bn], [conv_b])


def _constant_folded(m: Matching, va: Value, vb: Value) -> Optional[Rewrite]:
    if vb.const is None or vb in m.values_back or va.producer is None or not _unpaired(m, va.producer, "a"):
        return None
    cone = _constant_cone(m, va.producer)
    if cone is None:
        return None
    m.pair_values(va, vb)
    what = "1 node" if len(cone) == 1 else f"{len(cone)} nodes"
    return Rewrite.over("constant_folded", f"{what} folded into a constant", cone, [], b_values=[vb])


def _constant_cone(m: Matching, top: Node) -> Optional[list]:
    """The unpaired nodes `top` is computed from, when they read only
    constants or shapes; else None."""
    seen, stack = [], [top]
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        if not _unpaired(m, n, "a") or n.subgraphs():
            return None
        seen.append(n)
        if n.op_type == "Shape" and not n.domain:
            continue                 # a tensor's shape: an exporter that knows it writes a constant
        for v in n.inputs:
            if v is None or v.const is not None:
                continue
            if v.producer is None:
                return None          # a graph input: not a constant
            stack.append(v.producer)
    return seen[::-1]


def _qdq_inserted(m: Matching, va: Value, vb: Value) -> Optional[Rewrite]:
    dq = vb.producer
    if dq is None or dq.op_type != "DequantizeLinear" or not _unpaired(m, dq, "b"):
        return None
    q = dq.inputs[0].producer if dq.inputs[0] is not None else None
    if q is None or q.op_type != "QuantizeLinear" or not _unpaired(m, q, "b"):
        return None
    if m.values.get(va) is not q.inputs[0]:
        return None
    return Rewrite.over("qdq_inserted", "QuantizeLinear/DequantizeLinear inserted", [], [q, dq])


def _split_of_slices(m: Matching, va: Value, vb: Value) -> Optional[Rewrite]:
    slice_a, split = va.producer, vb.producer
    if not (slice_a is not None and split is not None and slice_a.op_type == "Slice"
            and split.op_type == "Split" and not slice_a.domain and not split.domain
            and _unpaired(m, slice_a, "a") and _unpaired(m, split, "b") and slice_a.inputs[0] is not None
            and m.values.get(slice_a.inputs[0]) is split.inputs[0]):
        return None
    slices = [c for c in slice_a.inputs[0].consumers if c.op_type == "Slice" and not c.domain
              and c.inputs[0] is slice_a.inputs[0] and _unpaired(m, c, "a")]
    if len(slices) != len(split.outputs):
        return None
    bounds = []
    for s in slices:
        for v in s.inputs[1:]:
            if v is None or v.const is not None or v.producer is None:
                continue
            cone = _constant_cone(m, v.producer)
            if cone is None:
                return None     # bounds computed from data: not a plain split
            bounds += [n for n in cone if n not in bounds]
    # Each Slice's result is the Split output read where its readers' partners read.
    for s in slices:
        for c, slot in s.outputs[0].uses:
            partner = m.nodes.get(c)
            vb_read = partner.inputs[slot] if partner is not None and slot < len(partner.inputs) else None
            if vb_read is not None and vb_read.producer is split:
                m.pair_values(s.outputs[0], vb_read)
    text = f"{len(slices)} Slice -> Split"
    return Rewrite.over("split", text, slices + bounds, [split])   # the Slices first: where a click goes


def _weights(nodes: list) -> tuple[list, list]:
    """(initializers, Constant nodes) the nodes read directly."""
    values, constants = [], []
    for n in nodes:
        for v in n.inputs:
            if v is None:
                continue
            if v.const is not None:
                values.append(v)
            elif v.producer is not None and v.producer.op_type == "Constant" and v.producer not in nodes:
                constants.append(v.producer)
    return values, constants
