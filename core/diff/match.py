"""Pair the nodes, values and initializers of model A with those of model B.

Names first, where both sides use the same one for the same kind of thing.
Then structure, so that a re-export that renamed everything still pairs
everything:

- anchors: graph inputs and outputs (by name, then by position where
  their element types agree: two unrelated models' outputs are not one
  renamed) and
  initializers (by name where the two may be one weight, then by content: a hash of the bytes, computed
  only for weights whose dtype and shape some weight on the other side
  shares; a lone weight of a given dtype and shape on each side pairs as
  a changed weight; a weight whose data cannot be read is never hashed:
  it pairs by name or as that lone weight only);
- forward: a node whose inputs are all paired pairs with the node of the
  same op reading the partners of those inputs (value numbering: with
  every input anchored this alone pairs a renamed model in one pass), the
  one making the partners of its outputs first where those are paired;
- backward: the producers of paired values pair when their ops agree;
- along an edge: a node with one paired input pairs with the only
  consumer of that input's partner that has the same op at the same slot
  (preferring equal attributes), which carries on past a changed weight;
- a Weisfeiler-Lehman-style signature (op, attributes, the ops around it,
  refined twice) for what is left, pairing signatures unique on both sides.

Name pairs are checked against structure (`match_models`): where an
exporter exchanged the names of nodes of one op, they pair by structure
and the list says the names changed.

Paired nodes pair their inputs and outputs by position where the values
are still unpaired and of the same kind (an initializer with an
initializer, a Conv's output with a Conv's output), so an inserted node
does not pull the wrong value into a pair.

Bodies (If/Loop/Scan) of paired nodes are matched by attribute name the
same way, as are model-local functions by (domain, name, overload). One
map spans every graph, so a body's reads of outer values are already
paired when the body is matched.
"""
from __future__ import annotations

from collections import defaultdict
from typing import Callable, Iterable, Optional

from ..ir import Graph, Model, Node, Value
from .commutative import is_commutative
from .signature import (attr_signature, may_be_one_weight, op_key, tensor_digest, tensor_key, types_agree,
                        value_kind)


class Cancelled(Exception):
    """The caller asked matching to stop."""


class Matching:
    """Pairs found between model A and model B (objects of each, by identity)."""

    def __init__(self, a: Model, b: Model):
        self.a, self.b = a, b
        self.nodes: dict[Node, Node] = {}
        self.nodes_back: dict[Node, Node] = {}
        self.values: dict[Value, Value] = {}
        self.values_back: dict[Value, Value] = {}
        self.graphs: list[tuple[Graph, Graph]] = []       # every graph pair matched, outermost first
        self.by_name: set[Node] = set()                   # nodes of A paired by their name
        self.name_partners: dict[Node, Node] = {}         # the node of B with A's node's name and op
        # Nodes of A whose name pair is tried last, after structure (match_models says why).
        self.names_set_aside: frozenset = frozenset()
        self.pinned: dict[Node, Node] = {}                # pairs made in place of a name's (match_models)
        self._tally: Optional[dict] = None                # `_troubles`, once matching is done
        # Values asked to pair with another than their partner: where none
        # was, every pair agrees with its wiring and there is nothing to check.
        self.clashes = 0
        self._attrs: dict[Node, tuple] = {}

    # -- pairs -------------------------------------------------------------------

    def pair_values(self, va: Optional[Value], vb: Optional[Value]) -> bool:
        if va is None or vb is None:
            return False
        if va in self.values or vb in self.values_back:
            if self.values.get(va) is not vb:
                self.clashes += 1
            return False
        self.values[va] = vb
        self.values_back[vb] = va
        return True

    def pair_nodes(self, na: Node, nb: Node) -> None:
        self.nodes[na] = nb
        self.nodes_back[nb] = na
        for oa, ob in zip(na.outputs, nb.outputs):
            self.pair_values(oa, ob)
        if is_commutative(na) and is_commutative(nb):
            self._pair_unordered_inputs(na, nb)
            return
        for ia, ib in zip(na.inputs, nb.inputs):
            if ia is not None and ib is not None and value_kind(ia) == value_kind(ib):
                self.pair_values(ia, ib)

    def _pair_unordered_inputs(self, na: Node, nb: Node) -> None:
        # Add(bias, x) against Add(x, bias): an input pairs with the one input
        # of the same kind on the other side, wherever it stands.
        rest_b = [ib for ib in nb.inputs if ib is not None]
        for ia in na.inputs:
            if ia is None:
                continue
            if ia in self.values:
                if self.values[ia] in rest_b:
                    rest_b.remove(self.values[ia])
                continue
            same = [ib for ib in rest_b if value_kind(ib) == value_kind(ia) and ib not in self.values_back]
            if len(same) == 1:
                self.pair_values(ia, same[0])
                rest_b.remove(same[0])

    def attrs(self, node: Node) -> tuple:
        sig = self._attrs.get(node)
        if sig is None:
            sig = self._attrs[node] = attr_signature(node)
        return sig


def match_models(a: Model, b: Model, *, check: Callable[[], None] = lambda: None) -> Matching:
    """Everything of A paired with what it is in B. `check` is called
    between passes; it may raise Cancelled to stop.

    Names pair first, and a name is nearly always right. But an exporter
    may exchange the names of two nodes of one op (two adjacent Adds): the
    name pairs then go crosswise, pull their inputs and outputs crosswise
    too, and the list called both nodes and their neighbours rewired
    (bert_small with adjacent nodes' names exchanged: 98 nodes 'inputs
    rewired' and 14 Constants 'changed'). So when name pairs of one op
    disagree with their wiring (`agrees`), the model is matched once more
    by structure first, names last; a node that pairs there with another
    node than its name's, in agreement, moves to it if it is in trouble or
    next to a move (an exchange spreads along the pairs it pulled), and the
    names pair the rest. A move that breaks a pair that agreed before is
    undone (two Relus whose inputs B truly exchanged each agree by
    structure with the other's partner, and their readers then disagree),
    and the new matching is kept only with fewer nodes in trouble, so a
    real rewiring is still listed as rewired.
    """
    m = _matched(a, b, check)
    if not m.clashes or not _crossed_name_pairs(m):
        return m
    # Structure first, names only for what it leaves: where it pairs a node
    # with another than its name's, and the pair agrees, it moves.
    trial = _matched(a, b, check, set_aside=frozenset(m.name_partners), like=m)
    before = _trouble_set(m)
    moved = _moves(m, trial, before)
    for _ in range(_TRIES):
        if not moved:
            return m
        # Names first again, the moved nodes pinned to their structural
        # partners; a node whose name's partner a moved node took waits for
        # structure (B exchanged two names and rewired one of the nodes).
        if all(trial.nodes.get(na) in (nb, moved.get(na)) for na, nb in m.name_partners.items()):
            final = trial       # what it pairs is a name's pair or a move: matching again gives the same
        else:
            taken = set(moved.values())
            waiting = frozenset(na for na, nb in m.name_partners.items() if nb in taken and na not in moved)
            final = _matched(a, b, check, set_aside=waiting, pinned=moved, like=m)
        new = _trouble_set(final) - before
        if not new:
            return final if _disagreements(final) < _disagreements(m) else m
        # A pair that agreed by name and no longer does was broken by a
        # move next to it: two nodes that B truly rewired each agree by
        # structure with the other's partner, and what reads them then
        # disagrees. Those moves are undone.
        kept = {na: nb for na, nb in moved.items() if na not in _next_to(final, new)}
        if len(kept) == len(moved):
            return m            # no move to blame: the same matching again would break the same
        moved = kept
    return m


# Each try matches the whole model once more.
_TRIES = 3


def _matched(a: Model, b: Model, check, *, set_aside: frozenset = frozenset(),
             pinned: Optional[dict] = None, like: Optional[Matching] = None) -> Matching:
    m = Matching(a, b)
    m.names_set_aside, m.pinned = set_aside, pinned or {}
    if like is not None:
        m._attrs = like._attrs        # a node's attribute signature (Constants' tensors hashed) is its own
    _match_graph(m, a.graph, b.graph, check)
    for key, fa in a.functions.items():
        fb = b.functions.get(key)
        if fb is not None:
            _match_graph(m, fa.graph, fb.graph, check)
    return m


def _match_graph(m: Matching, ga: Graph, gb: Graph, check) -> None:
    m.graphs.append((ga, gb))
    _pair_named_or_positional(m, ga.inputs, gb.inputs)
    _pair_named_or_positional(m, ga.outputs, gb.outputs)
    _pair_initializers(m, ga, gb)
    _pair_named_nodes(m, ga, gb)
    check()
    while True:
        progress = _forward(m, ga, gb) + _backward(m, ga) + _along_edges(m, ga)
        check()
        if not progress:
            progress = _names_set_aside(m, ga) or _by_signature(m, ga, gb)
            if not progress:
                break
    for na in ga.nodes:
        nb = m.nodes.get(na)
        if nb is None:
            continue
        bodies_b = dict(nb.subgraphs())
        for attr, body_a in na.subgraphs():
            body_b = bodies_b.get(attr)
            if body_b is not None:
                _match_graph(m, body_a, body_b, check)


def _pair_named_or_positional(m: Matching, va: list, vb: list) -> None:
    # A damaged file may declare a name twice: only the first declaration
    # (the value the name stands for) pairs; how often each side repeats a
    # name is compared apart (model_diff.IoDiff's repeats).
    va, vb = first_declarations(va), first_declarations(vb)
    by_name = {v.name: v for v in vb}
    for v in va:
        if v.name in by_name:
            m.pair_values(v, by_name[v.name])
    rest_a = [v for v in va if v not in m.values]
    rest_b = [v for v in vb if v not in m.values_back]
    if len(rest_a) == len(rest_b):
        for x, y in zip(rest_a, rest_b):
            if types_agree(x, y):
                m.pair_values(x, y)


def first_declarations(entries) -> list:
    """The graph input or output entries that are not a repeat of an earlier
    entry's name, in order."""
    seen, out = set(), []
    for v in entries:
        if v.name not in seen:
            seen.add(v.name)
            out.append(v)
    return out


def _pair_initializers(m: Matching, ga: Graph, gb: Graph) -> None:
    # A name pairs at once where dtype and shape agree too; a same-named
    # weight of another dtype or shape waits until the contents have paired
    # what they can (dynamo's counter names, val_70, are given to other
    # weights in another export) and pairs only if both are still free.
    held = []
    for name, va in ga.initializers.items():
        vb = gb.initializers.get(name)
        if vb is None:
            continue
        if tensor_key(va.const) == tensor_key(vb.const):
            m.pair_values(va, vb)
        elif may_be_one_weight(va.const, vb.const):
            held.append((va, vb))
    left_a = _by_tensor_key(v for v in ga.initializers.values() if v not in m.values)
    left_b = _by_tensor_key(v for v in gb.initializers.values() if v not in m.values_back)
    for key, xs in left_a.items():
        ys = left_b.get(key)
        if not ys:
            continue
        # Only weights that share dtype and shape with one on the other side are read.
        digests_b = defaultdict(list)
        for y in ys:
            digests_b[tensor_digest(y.const)].append(y)
        digests_b.pop(None, None)       # data that cannot be read pairs by name or kind only
        for x in xs:
            digest = tensor_digest(x.const)
            same = digests_b.get(digest) if digest is not None else None
            if same:
                m.pair_values(x, same.pop(0))
    for va, vb in held:
        if va not in m.values and vb not in m.values_back:
            m.pair_values(va, vb)
    for key, xs in left_a.items():
        xs = [x for x in xs if x not in m.values]
        ys = [y for y in left_b.get(key, ()) if y not in m.values_back]
        if len(xs) == 1 and len(ys) == 1:
            m.pair_values(xs[0], ys[0])   # the one weight of its kind on each side: changed values


def _by_tensor_key(values: Iterable[Value]) -> dict:
    out = defaultdict(list)
    for v in values:
        out[tensor_key(v.const)].append(v)
    return out


def _pair_named_nodes(m: Matching, ga: Graph, gb: Graph) -> None:
    by_name = unique_names(gb.nodes)
    for na in ga.nodes:
        nb = by_name.get(na.name) if na.name else None
        if nb is not None and op_key(na) == op_key(nb):
            m.name_partners[na] = nb
        if na in m.pinned:
            nb = m.pinned[na]
        if nb is None or na in m.names_set_aside or nb in m.nodes_back or op_key(na) != op_key(nb):
            continue
        m.pair_nodes(na, nb)
        if na not in m.pinned:
            m.by_name.add(na)


def _names_set_aside(m: Matching, ga: Graph) -> int:
    """Pair by name the nodes whose names were set aside and that structure
    left unpaired."""
    if not m.names_set_aside:
        return 0
    found = 0
    for na in ga.nodes:
        if na not in m.names_set_aside or na in m.nodes:
            continue
        nb = m.name_partners.get(na)
        if nb is not None and nb not in m.nodes_back:
            m.pair_nodes(na, nb)
            m.by_name.add(na)
            found += 1
    return found


def unique_names(nodes) -> dict:
    """name -> node for the names only one node of `nodes` has."""
    counts: dict = defaultdict(int)
    for n in nodes:
        if n.name:
            counts[n.name] += 1
    return {n.name: n for n in nodes if n.name and counts[n.name] == 1}


def _forward(m: Matching, ga: Graph, gb: Graph) -> int:
    index = defaultdict(list)
    for nb in gb.nodes:
        if nb not in m.nodes_back:
            index[_input_key(m, nb, [id(v) if v is not None else None for v in nb.inputs])].append(nb)
    found = 0
    for na in ga.nodes:
        if na in m.nodes:
            continue
        key = []
        for v in na.inputs:
            if v is None:
                key.append(None)
            elif v in m.values:
                key.append(id(m.values[v]))
            else:
                break
        else:
            bucket = index.get(_input_key(m, na, key))
            nb = _pick(m, na, [c for c in bucket if c not in m.nodes_back], unique=False) if bucket else None
            if nb is not None:
                bucket.remove(nb)
                m.pair_nodes(na, nb)
                found += 1
    return found


def _input_key(m: Matching, node: Node, inputs: list) -> tuple:
    # A node reading nothing (Constant, RandomNormal) is told apart by its attributes.
    # A commutative op's inputs are a set: exporters order them differently
    # (torch's legacy exporter writes Add(bias, x), its dynamo exporter Add(x, bias)).
    if is_commutative(node):
        inputs = sorted(inputs, key=lambda i: (i is None, i or 0))
    return (op_key(node), tuple(inputs), None if inputs else m.attrs(node))


def _backward(m: Matching, ga: Graph) -> int:
    found = 0
    for na in reversed(ga.nodes):
        if na in m.nodes:
            continue
        for i, oa in enumerate(na.outputs):
            ob = m.values.get(oa) if oa is not None else None
            nb = ob.producer if ob is not None else None
            if (nb is not None and nb.graph is not None and nb not in m.nodes_back and op_key(nb) == op_key(na)
                    and i < len(nb.outputs) and nb.outputs[i] is ob):
                m.pair_nodes(na, nb)
                found += 1
                break
    return found


def _along_edges(m: Matching, ga: Graph) -> int:
    found = 0
    for na in ga.nodes:
        if na in m.nodes:
            continue
        for slot, va in enumerate(na.inputs):
            vb = m.values.get(va) if va is not None else None
            if vb is None:
                continue
            any_slot = is_commutative(na)
            cands = [c for c, j in vb.uses if (j == slot or any_slot) and c.graph is not None
                     and c not in m.nodes_back and op_key(c) == op_key(na)]
            nb = _pick(m, na, cands, unique=True)
            if nb is not None:
                m.pair_nodes(na, nb)
                found += 1
                break
    return found


def _pick(m: Matching, na: Node, cands: list, *, unique: bool) -> Optional[Node]:
    """The candidate to pair with `na`: one with equal attributes first.
    With `unique`, only when the choice is not ambiguous."""
    if not cands:
        return None
    if len(cands) == 1:
        return cands[0]
    # A node whose outputs are paired already (through readers paired by
    # name) belongs with their producer: two nodes of one op reading one
    # value are told apart by what reads them.
    cands = [c for c in cands if _makes_partners_of_outputs(m, na, c)] or cands
    if len(cands) == 1:
        return cands[0]
    sig = m.attrs(na)
    same = [c for c in cands if m.attrs(c) == sig]
    if unique:
        return same[0] if len(same) == 1 else None
    return same[0] if same else cands[0]


def _makes_partners_of_outputs(m: Matching, na: Node, nb: Node) -> bool:
    for oa, ob in zip(na.outputs, nb.outputs):
        partner = m.values.get(oa) if oa is not None else None
        if partner is not None and partner is not ob:
            return False
    return True


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


def _crossed_name_pairs(m: Matching) -> frozenset:
    """The nodes of A paired by name that do not agree with their partner
    (`agrees`) where another node of the same op could take the partner's
    place: another pair of that op that disagrees, or a node of it left
    unpaired on either side. A lone attribute edit or rewiring has neither."""
    if not m.by_name:
        return frozenset()
    return frozenset(n for nodes in _troubles(m).values() if len(nodes) >= 2 for n in nodes if n in m.by_name)


def _moves(m: Matching, trial: Matching, troubled: set) -> dict:
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
        todo += [x for x in _next_to(m, {na}) if x in found and x not in moves]
    return moves


def _trouble_set(m: Matching) -> set:
    return {n for nodes in _troubles(m).values() for n in nodes}


def _next_to(m: Matching, nodes: set) -> set:
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


def _disagreements(m: Matching) -> int:
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
    if m._tally is not None:
        return m._tally
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
    m._tally = places
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


def _by_signature(m: Matching, ga: Graph, gb: Graph) -> int:
    """Pair what is left by a signature of op, attributes and neighbourhood,
    refined twice; only signatures that occur once on each side pair."""
    left_a = [n for n in ga.nodes if n not in m.nodes]
    left_b = [n for n in gb.nodes if n not in m.nodes_back]
    if not left_a or not left_b:
        return 0
    sig_a = _signatures(m, left_a, m.values)
    sig_b = _signatures(m, left_b, m.values_back, mirror=True)
    count_a, count_b = defaultdict(int), defaultdict(int)
    for s in sig_a.values():
        count_a[s] += 1
    for s in sig_b.values():
        count_b[s] += 1
    by_sig = {s: n for n, s in sig_b.items() if count_b[s] == 1}
    found = 0
    for na, s in sig_a.items():
        if count_a[s] == 1 and s in by_sig:
            m.pair_nodes(na, by_sig[s])
            found += 1
    return found


def _signatures(m: Matching, nodes: list, pairs: dict, *, mirror: bool = False) -> dict:
    """{node: signature}. A paired value is named by A's object on both
    sides (`mirror` for B), so the two sides' signatures agree."""
    def source(v, sig) -> object:
        if v is None:
            return None
        if v in pairs:
            return ("paired", id(pairs[v]) if mirror else id(v))
        if v.producer in sig:
            return sig[v.producer]
        return op_key(v.producer) if v.producer is not None else "unpaired"

    sig = {n: hash((op_key(n), m.attrs(n))) for n in nodes}
    for _ in range(2):
        sig = {n: hash((sig[n], tuple(source(v, sig) for v in n.inputs),
                        tuple(sorted(hash(op_key(c)) for v in n.outputs if v is not None for c in v.consumers))))
               for n in nodes}
    return sig
