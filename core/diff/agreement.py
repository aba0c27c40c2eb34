"""Whether a pair of nodes agrees with the wiring around it, for the
matching (match.py) and the list of changes (changes.py).

A pair agrees when both are the same op with the same attributes, the
partners of A's inputs are B's inputs, and the outputs and their readers
pair alike. Name pairs that do not agree are what an exporter exchanging
two nodes' names leaves behind; `match_models` tries them by structure
and keeps a move only where it leaves fewer nodes in trouble.
"""
from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Optional

from ..ir import Model, Node, Value
from .commutative import is_commutative
from .signature import op_key

if TYPE_CHECKING:
    from .match import Matching


def agrees(m: Matching, na: Node, nb: Optional[Node], *, readers: bool = True) -> bool:
    """Whether `nb` is `na` in the same place: same op and attributes, the
    partners of its inputs (each pair made by a pair of producers), its
    outputs paired with nb's, and (`readers`) every paired reader of an
    output reading the partner at the same slot."""
    return (nb is not None and op_key(na) == op_key(nb) and m.attrs(na) == m.attrs(nb)
            and not wiring_changed(m, na, nb) and _inputs_follow_producers(m, na)
            and _outputs_follow(m, na, nb, readers))


def _inputs_follow_producers(m: Matching, na: Node) -> bool:
    # A node paired by name pairs its inputs before their producers pair:
    # when B exchanged the names of those producers, the value pairs go
    # crosswise while the producers then pair by structure, and the
    # reader seems to agree.
    for va in na.inputs:
        producer = va.producer if va is not None else None
        if producer is not None and producer in m.nodes:
            vb = m.values.get(va)
            if vb is None or vb.producer is not m.nodes[producer]:
                return False
    return True


def _outputs_follow(m: Matching, na: Node, nb: Node, readers: bool) -> bool:
    if len(na.outputs) != len(nb.outputs):
        return False
    for oa, ob in zip(na.outputs, nb.outputs):
        if oa is None or ob is None:
            if oa is not ob:
                return False
            continue
        if m.values.get(oa) is not ob:
            return False
        if readers and not (_readers_follow(m.nodes, oa, ob) and _readers_follow(m.nodes_back, ob, oa)):
            return False
    return True


def _readers_follow(partners: dict, v: Value, w: Value) -> bool:
    """Every paired reader of `v` has a partner reading `w` where it reads
    `v` (anywhere among a commutative op's inputs)."""
    for reader, slot in v.iter_uses():
        other = partners.get(reader)
        if other is None:
            continue
        if slot < len(other.inputs) and other.inputs[slot] is w:
            continue
        if not (is_commutative(other) and any(x is w for x in other.inputs)):
            return False
    return True


def crossed_name_pairs(m: Matching) -> frozenset:
    """The nodes of A paired by name that do not agree with their partner
    (`agrees`) where another node of the same op could take the partner's
    place: another pair of that op that disagrees, or a node of it left
    unpaired on either side. A lone attribute edit or rewiring has neither."""
    if not m.by_name:
        return frozenset()
    return frozenset(n for nodes in _troubles(m).values() if len(nodes) >= 2 for n in nodes if n in m.by_name)


def moves(m: Matching, trial: Matching, troubled: set) -> dict:
    """{node of A: its partner in `trial`} for the nodes `trial` pairs with
    another than their name's partner where the pair agrees (its readers
    aside): a node `m` has in trouble, and the nodes next to a move, and
    next to those. A move far from any trouble would only trade one of
    two interchangeable nodes for the other."""
    found = {na: nb for na, nb in trial.nodes.items()
             if m.name_partners.get(na) not in (None, nb) and agrees(trial, na, nb, readers=False)}
    moves, todo = {}, [na for na in found if na in troubled]
    while todo:
        na = todo.pop()
        if na in moves:
            continue
        moves[na] = found[na]
        todo += [x for x in next_to(m, {na}) if x in found and x not in moves]
    return moves


def trouble_set(m: Matching) -> set:
    return {n for nodes in _troubles(m).values() for n in nodes}


def next_to(m: Matching, nodes: set) -> set:
    """The nodes of A among `nodes`, the producers of what they read and
    the readers of what they make (for a node of B, their partners)."""
    graphs_b = {gb for _, gb in m.graphs}
    out = set()
    for n in nodes:
        around = [n, *(v.producer for v in n.inputs if v is not None),
                  *(c for v in n.outputs if v is not None for c in v.consumers)]
        if n.graph in graphs_b:
            around = [m.nodes_back.get(x) for x in around]
        out.update(x for x in around if x is not None)
    return out


def disagreements(m: Matching) -> int:
    """How many nodes trouble the matching (`_troubles`), bodies left
    unmatched counted whole."""
    matched_a, matched_b = {ga for ga, _ in m.graphs}, {gb for _, gb in m.graphs}
    left = sum(len(g.nodes) for g in _graphs(m.a) if g not in matched_a)
    left += sum(len(g.nodes) for g in _graphs(m.b) if g not in matched_b)
    return left + sum(len(nodes) for nodes in _troubles(m).values())


def _troubles(m: Matching) -> dict:
    """(A's graph, op) -> the nodes there that trouble the matching: of A,
    unpaired or paired with a node that does not agree (`agrees`); of B,
    unpaired. Worked out once per matching.

    Judging every pair in full took twice as long as matching (10,000
    nodes). But a node's readers disagree only where a reader reads
    something else, and a node reads a value paired crosswise only where
    its producer's outputs are not paired with its partner's; so the pairs
    judged in full are those whose inputs or outputs are not paired with
    each other, the producers of what they read (on either side) and the
    readers of what they make."""
    if m.tally is not None:
        return m.tally
    places = defaultdict(list)
    loose = []
    for ga, gb in m.graphs:
        for na in ga.nodes:
            nb = m.nodes.get(na)
            if nb is None:
                places[(ga, op_key(na))].append(na)
            elif not _paired_alike(m, na, nb):
                loose.append(na)
        for nb in gb.nodes:
            if nb not in m.nodes_back:
                places[(ga, op_key(nb))].append(nb)
    judged = dict.fromkeys(loose)
    for na in loose:
        for v in (*na.inputs, *m.nodes[na].inputs):
            producer = v.producer if v is not None else None
            producer = producer if producer in m.nodes else m.nodes_back.get(producer)
            if producer is not None:
                judged[producer] = None
        for v in na.outputs:
            for reader in (v.consumers if v is not None else ()):
                if reader in m.nodes:
                    judged[reader] = None
    for na in judged:
        if not agrees(m, na, m.nodes[na]):
            places[(na.graph, op_key(na))].append(na)
    m.tally = places
    return places


def _paired_alike(m: Matching, na: Node, nb: Node) -> bool:
    """Each input and output of `na` paired with nb's at the same slot (the
    common case, checked fast), or the inputs wired alike (`wiring_changed`)."""
    outs_a, outs_b = na.outputs, nb.outputs
    if len(outs_a) != len(outs_b) or any(oa is not None and m.values.get(oa) is not ob
                                         for oa, ob in zip(outs_a, outs_b)):
        return False
    ins_a, ins_b = na.inputs, nb.inputs
    if len(ins_a) == len(ins_b) and all(va is vb is None or (va is not None and m.values.get(va) is vb)
                                        for va, vb in zip(ins_a, ins_b)):
        return True
    return not wiring_changed(m, na, nb)


def _graphs(model: Model) -> list:
    """Every graph of the model: the main graph, the functions', and their bodies."""
    return [*model.graph.walk(), *(g for f in model.functions.values() for g in f.graph.walk())]


def wiring_changed(m: Matching, na: Node, nb: Node) -> bool:
    """Whether a paired node reads other values than its partner: inputs
    at the same slots (a commutative op's as a multiset) must be paired
    with each other, unless an unpaired producer on either side (an
    inserted or removed node) explains the difference."""
    if len(na.inputs) != len(nb.inputs):
        return True
    if is_commutative(na) and is_commutative(nb):
        return _unordered_wiring_changed(m, na, nb)
    return _slots_changed(m, zip(na.inputs, nb.inputs))


def _unordered_wiring_changed(m: Matching, na: Node, nb: Node) -> bool:
    """Add(bias, x) against Add(x, bias): the inputs compared as a multiset
    of paired values; what is left over on each side is compared in order."""
    left_b = list(nb.inputs)
    left_a = []
    for va in na.inputs:
        if va is None:
            hit = next((i for i, vb in enumerate(left_b) if vb is None), None)
        else:
            partner = m.values.get(va)
            hit = None if partner is None else next((i for i, vb in enumerate(left_b) if vb is partner), None)
        if hit is None:
            left_a.append(va)
        else:
            del left_b[hit]
    return _slots_changed(m, zip(left_a, left_b))


def _slots_changed(m: Matching, slots) -> bool:
    for va, vb in slots:
        if va is None and vb is None:
            continue
        if va is None or vb is None:
            return True
        if m.values.get(va) is vb:
            continue
        explained = ((va.producer is not None and va.producer not in m.nodes)
                     or (vb.producer is not None and vb.producer not in m.nodes_back))
        if not explained:
            return True
    return False
