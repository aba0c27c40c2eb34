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
from .agreement import crossed_name_pairs, disagreements, moves, next_to, trouble_set
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
        self.tally: Optional[dict] = None                 # agreement.py's troubles, once matching is done
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
    if not m.clashes or not crossed_name_pairs(m):
        return m
    # Structure first, names only for what it leaves: where it pairs a node
    # with another than its name's, and the pair agrees, it moves.
    trial = _matched(a, b, check, set_aside=frozenset(m.name_partners), like=m)
    before = trouble_set(m)
    moved = moves(m, trial, before)
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
        new = trouble_set(final) - before
        if not new:
            return final if disagreements(final) < disagreements(m) else m
        # A pair that agreed by name and no longer does was broken by a
        # move next to it: two nodes that B truly rewired each agree by
        # structure with the other's partner, and what reads them then
        # disagrees. Those moves are undone.
        kept = {na: nb for na, nb in moved.items() if na not in next_to(final, new)}
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
