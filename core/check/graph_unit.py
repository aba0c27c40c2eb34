"""The main graph's unit of a live check, kept up to date from the IR.

A full check replays the graph's definitions over every node into a dict
(graph_rules.check_structure). A live check has the IR at hand, whose
def-use links already say where each name is defined: `MainDefinitions`
reads positions from them (Value.producer and Node.index, graph inputs,
initializers), so a structural edit needs no walk over the nodes:

- the graph unit's findings are kept per part (header: name, inputs,
  initializers; declarations: outputs and value_info; the summary over all
  names). The header part runs again when the edit touched the header.
  Each graph output and value_info entry keeps its findings both ways
  (its name defined or not: nothing else of the graph reaches them), so
  an edit that defines or undefines a declared name picks the other way
  without writing the header. The summary is counted up and down from
  the names the edit defined and undefined.
- SSA and def-before-use are tested for the touched nodes and for the
  readers of the names they (un)defined. When the last run found a name
  defined twice or used before its definition, or this edit introduces
  one, the unit runs in full (the detailed passes then say where), as it
  does when the IR's definitions and the replayed ones disagree after a
  full run (a file the IR could not represent name for name).
- derived element types (Scope.inferred) are kept per name and worked out
  again for the touched nodes and, while they change, their readers.

The unit reads the nodes' names from the IR, and the file form of the
header and of the nodes whose types it derives again from the session's
source (on_demand.py), written when asked.
"""
from __future__ import annotations

import heapq
import itertools

from ..diagnostics import Collector
from ..ir import AttrType
from ..ir.nesting import top_level_node
from .context import Scope, declared_types, graph_parts
from .graph_rules import (INIT_POS, INPUT_POS, check_elem_type_given, check_header,
                          check_names, check_nodes_structure, declaration_entries, infer_node, type_too_new)
from .scan import is_odd, odd_summary
from .tensor_rules import tensor_clean

_STRUCTURAL = frozenset({"graph.redefinition", "graph.undefined-input", "graph.not-topological", "graph.cycle"})


class MainDefinitions:
    """name -> position in the main graph (INPUT_POS, INIT_POS, or the index
    of the node defining it), read from the IR: a Scope's `defs` for live
    re-checks. Only `get` and `in` are offered: nothing iterates the names."""
    __slots__ = ("graph",)

    def __init__(self, graph):
        self.graph = graph

    def get(self, name, default=None):
        v = self.graph.get_value(name)
        if v is None:
            return default
        g = self.graph
        producer = v.producer
        if producer is not None:
            return producer.index if producer.graph is g else default
        if v in g.inputs:
            return INPUT_POS
        if v.const is not None:
            return INIT_POS
        return default

    def __contains__(self, name) -> bool:
        return self.get(name) is not None


class DefinedNames(set):
    """Context.memo["defined"] of a live check: the names graphs checked so
    far define (scan.py's shadowing test reads it), the main graph's
    answered by the IR instead of being copied in."""

    def __init__(self, main: MainDefinitions):
        super().__init__()
        self.main = main

    def __contains__(self, name) -> bool:
        return set.__contains__(self, name) or name in self.main


def node_names(node) -> tuple:
    """(inputs, outputs, holds a subgraph) of an IR node, as the file form
    spells them ("" for an empty slot)."""
    ins = tuple([v.name if v is not None else "" for v in node.inputs])
    outs = tuple([v.name if v is not None else "" for v in node.outputs])
    attrs = node.attributes
    return ins, outs, bool(attrs) and any(a.type in _SUBGRAPH_TYPES for a in attrs.values())


_SUBGRAPH_TYPES = (AttrType.GRAPH, AttrType.GRAPHS)


class MainGraphUnit:
    def __init__(self, graph):
        self.graph = graph                  # the IR's main graph
        self.defs = MainDefinitions(graph)
        self.ok = False         # the last run found no structural problem and the IR agreed
        self.head: list = []    # findings per part, in the order a full check gives them
        self.nodes: list = []
        self.tail: list = []
        self.summary: list = []
        self.types: dict = {}   # declared types (context.declared_types)
        self.names: dict = {}   # IR Node -> node_names, as last checked
        self.holders: set = set()   # IR Nodes holding a subgraph (some may be detached since)
        self.rederived: set = set()     # names whose derived type moved in the last update
        self._clean: dict = {}      # initializer name -> tensor_clean verdict
        self._clean_ir = None
        self._seen: set = set()     # initializer names met in this run
        self._vi_clean: dict = {}   # value_info position -> passed its type tests
        self._header_defs: dict = {}
        self._header_names: tuple = (0, [], [])     # odd_summary of the header's names
        self._entries: list = []        # per output and value_info entry: (findings if its name is defined, if not)
        self._chosen: list = []         # per entry: the findings that hold now
        self._declared: dict = {}       # name -> positions of its entries
        self._undeclared = frozenset()  # names the last header edit stopped declaring
        self._odd = 0                   # node outputs that are not C identifiers
        self._first: list = []          # the first three of them, in node order

    @property
    def findings(self) -> list:
        return self.head + self.nodes + self.tail + self.summary

    @property
    def header_defs(self) -> dict:
        """The graph inputs and initializers: name -> INPUT_POS / INIT_POS."""
        return self._header_defs

    # -- a full run ----------------------------------------------------------------------

    def full(self, pg, ctx) -> Scope:
        """The unit from scratch over the file form's GraphProto `pg` (what
        graph_rules.check_structure does, part by part), and the state an
        update starts from."""
        parts = graph_parts(pg)
        head, nodes = Collector(), Collector()
        defs, names = {}, []
        self._vi_clean = {}
        self._header(pg, parts, ctx, head, defs, names)
        self._header_defs = dict(defs)
        self._header_names = odd_summary(names)
        known = len(names)
        self.types = declared_types(pg, parts)
        scope = check_nodes_structure(pg, parts, "graph", ctx, nodes, None, defs, names, self.types)
        tail = self._read_declarations(parts, ctx, scope.defs)
        summary = odd_summary(names)
        found = Collector()
        check_names(summary, "graph", found)
        self.head, self.nodes, self.tail, self.summary = head.items, nodes.items, tail, found.items
        self.rederived = set()
        self.ok = not summary[2] and not any(d.code in _STRUCTURAL for d in self.nodes)
        self.ok = self._read_names(self.ok) and self.ok and self._agrees(self._header_defs)
        if self.ok:
            odd = [n for n in names[known:] if n and is_odd(n)]
            self._odd, self._first = len(odd), odd[:3]
            scope.defs = self.defs
            ctx.memo["defined"] = DefinedNames(self.defs)
        return scope

    def _read_names(self, verify: bool) -> bool:
        """Each node's names (and which hold a subgraph), from the IR; with
        `verify`, whether every value a node reads or defines is the one
        its name resolves to in the IR (a file the IR holds otherwise, say
        a reader attached to a second value of one name, is checked in
        full after every edit)."""
        get = self.graph.get_value
        names = self.names = {}
        holders = self.holders = set()
        agrees = verify
        for node in self.graph.nodes:
            names[node] = entry = node_names(node)
            if entry[2]:
                holders.add(node)
            if agrees:      # lists compare their items by identity first, in C; "" resolves to None
                agrees = list(map(get, entry[0])) == list(node.inputs) \
                    and list(map(get, entry[1])) == list(node.outputs)
        return agrees

    def _agrees(self, header: dict) -> bool:
        """Whether the IR resolves the graph inputs and initializers as the
        replay did (node outputs: _read_names)."""
        mine = self.defs
        return all(mine.get(name) == pos for name, pos in header.items())

    def _header(self, pg, parts, ctx, out, defs, names) -> None:
        self._seen = set()
        check_header(pg, parts, "graph", ctx, out, None, defs, names, self._tensor_clean)

    def _known_clean(self, name) -> bool:
        """Whether an initializer of this name was judged clean and not
        replaced since: its message need not be written."""
        return bool(self._clean.get(name))      # tensor_clean's verdict: its dtype, 0 when not clean

    def _tensor_clean(self, init, ir, name):
        """tensor_clean, kept per initializer name until an edit replaces it
        (a second initializer of one name is judged on its own)."""
        if ir != self._clean_ir:
            self._clean, self._clean_ir = {}, ir
        if name in self._seen:
            return tensor_clean(init, ir)
        self._seen.add(name)
        verdict = self._clean.get(name)
        if verdict is None:
            verdict = self._clean[name] = tensor_clean(init, ir)
        return verdict

    def _vi_ok(self, k, vi, ir) -> bool:
        """value_info entry k passed graph_rules' two type tests (kept by
        position until the header changes)."""
        clean = self._vi_clean.get(k)
        if clean is None:
            found = Collector()
            check_elem_type_given(vi, "", found)
            clean = self._vi_clean[k] = not found.items and type_too_new(vi, ir) is None
        return clean

    def _read_declarations(self, parts, ctx, defs) -> list:
        """Each graph output's and value_info entry's findings both ways
        (its name defined or not): a node edit that defines or undefines a
        declared name then picks the other, without writing the header.
        Returns the findings as `defs` has them."""
        entries, chosen, where = [], [], {}
        for name, check in declaration_entries(parts, "graph", ctx, None, self._vi_ok):
            yes, no = Collector(), Collector()
            check(yes, True)
            check(no, False)
            where.setdefault(name, []).append(len(entries))
            entries.append((yes.items, no.items))
            chosen.append(yes.items if name in defs else no.items)
        self._entries, self._chosen, self._declared = entries, chosen, where
        return list(itertools.chain.from_iterable(chosen))

    def _redeclared(self, names) -> list:
        """The declarations' findings after `names` were defined or undefined."""
        defs, entries, chosen = self.defs, self._entries, self._chosen
        for name in names:
            for k in self._declared.get(name, ()):
                chosen[k] = entries[k][0] if name in defs else entries[k][1]
        return list(itertools.chain.from_iterable(chosen))

    # -- an update -----------------------------------------------------------------------

    def update(self, src, ctx, scope, *, replaced=(), region=(), rewritten=(), header=False, initializers=(),
               derive=()):
        """Bring the unit up to date after an edit of the main graph, reading
        the file form from `src` (on_demand.py: the header only when the
        edit touched it, the nodes whose types are derived again).
        `replaced`: IR nodes of the stretch the edit replaced, as it was;
        `region`: the nodes in that stretch now; `rewritten`: other nodes
        edited in place; `header`: graph inputs, outputs, value_info or
        initializers changed; `initializers`: names of initializers replaced;
        `derive`: indices of other nodes whose derived types are to be worked
        out again (readers of values whose looked-up type moved).

        Returns (scope, names whose definition moved or was re-read), or
        (scope, None) when the unit ran in full: then every node is to be
        checked again."""
        self.rederived = set()
        if not self.ok:
            return self.full(src.whole().graph, ctx), None
        gone: set = set()           # names the touched nodes' outputs defined before the edit
        defined: set = set()        # names they define now
        for node in replaced:
            old = self.names.pop(node, None)
            if old is not None:
                gone.update(old[1])
            self.holders.discard(node)
        kept_gone = set(gone)
        touched = list(region) + [n for n in rewritten if n not in region]
        for node in touched:
            new = node_names(node)
            old = self.names.get(node)
            if old is not None:
                gone.update(old[1])
            self.names[node] = new
            defined.update(new[1])
            if new[2]:
                self.holders.add(node)
            else:
                self.holders.discard(node)
        for node in region:
            kept_gone.update(self.names[node][1])
        gone.discard("")
        defined.discard("")
        moved = gone ^ defined      # names no longer, or newly, defined by a node
        moved |= kept_gone - {""}   # and those of the replaced stretch (their positions moved)
        for name in initializers:
            self._clean.pop(name, None)
        parts = None
        if header:
            pg, parts = src.header(self._known_clean)
            head, defs, names = Collector(), {}, []
            self._header(pg, parts, ctx, head, defs, names)
            old_defs = self._header_defs
            header_moved = {n for n in defs.keys() | old_defs.keys() if defs.get(n) != old_defs.get(n)}
            moved |= header_moved
            self.head, self._header_defs, self._header_names = head.items, defs, odd_summary(names)
            # A header name the IR resolves otherwise (a node output of that
            # name): the detailed passes say where.
            if self._header_names[2] or any(self.defs.get(n) != defs[n] for n in header_moved if n in defs):
                return self.full(src.whole().graph, ctx), None
            types = declared_types(pg, parts)
            if types != self.types:
                self._retyped(scope, types)
                self.types = scope.types = types
            self._vi_clean = {}
        if not self._names_sound(touched, moved):
            return self.full(src.whole().graph, ctx), None
        if header:
            self.tail = self._read_declarations(parts, ctx, self.defs)
        elif not self._declared.keys().isdisjoint(moved):
            self.tail = self._redeclared(moved)
        self._count_names(gone, defined)
        self._rederive(src, ctx, scope, touched, moved, derive)
        return scope, moved

    def _names_sound(self, touched, names) -> bool:
        """SSA and def-before-use for the touched nodes and the readers of
        `names` (defined, undefined or moved by the edit)."""
        defs = self.defs
        g = self.graph
        get = g.get_value
        for node in touched:
            i = node.index
            ins, outs, _ = self.names[node]
            for name, v in zip(ins, node.inputs):
                if name:
                    pos = defs.get(name)
                    if pos is None or pos >= i or get(name) is not v:
                        return False        # (the last: a value its name does not resolve to)
            given = [o for o in outs if o]
            if len(given) > 1 and len(set(given)) != len(given):
                return False
            for name in given:
                if defs.get(name) != i:
                    return False
        for name in names:
            v = g.get_value(name)
            if v is None:
                continue
            pos = defs.get(name)
            for node, _ in v.uses:
                if node.graph is g and (pos is None or pos >= node.index):
                    return False
        return True

    def _count_names(self, gone: set, defined: set) -> None:
        """The summary over every name, from the names the touched nodes
        defined before and after the edit (in a graph without a name
        defined twice, node outputs are distinct)."""
        self._odd += sum(1 for n in defined - gone if is_odd(n)) - sum(1 for n in gone - defined if is_odd(n))
        first = self._first
        if any(n in gone for n in first):
            first = self._walk_first()      # one of them went or moved
        else:
            odd_new = [n for n in defined if is_odd(n)]
            if odd_new:
                first = sorted(set(first).union(odd_new), key=self._position)[:3]
        self._first = first
        h_count, h_first, _ = self._header_names
        found = Collector()
        check_names((h_count + self._odd, (h_first + first)[:3], []), "graph", found)
        self.summary = found.items

    def _position(self, name):
        node = self.graph.get_value(name).producer
        return node.index, self.names[node][1].index(name)

    def _walk_first(self) -> list:
        """The first three node outputs that are not C identifiers (a walk
        that stops at the third)."""
        found = []
        for node in self.graph.nodes:
            for name in self.names[node][1]:
                if name and is_odd(name):
                    found.append(name)
                    if len(found) == 3:
                        return found
        return found

    # -- derived element types -----------------------------------------------------------

    def _retyped(self, scope, types: dict) -> None:
        """Declared types changed: a name declared now has no derived type;
        one no longer declared is derived again by its node."""
        old = scope.types
        inferred = scope.inferred
        for name in types.keys() - old.keys():
            if inferred.pop(name, None) is not None:
                self.rederived.add(name)
        self._undeclared = old.keys() - types.keys()

    def _rederive(self, src, ctx, scope, touched, moved, derive) -> None:
        """Derived types of the touched nodes and, while they change, of the
        nodes reading them, in node order; names no longer defined lose
        theirs."""
        inferred = scope.inferred
        defs = self.defs
        rederived = self.rederived
        for name in moved:
            if name in inferred and defs.get(name) is None:
                del inferred[name]
                rederived.add(name)
        dirty = {node.index for node in touched}
        dirty.update(derive)
        for name in self._undeclared:
            pos = defs.get(name)
            if pos is not None and pos >= 0:
                dirty.add(pos)
        self._undeclared = frozenset()
        self.follow(src, ctx, scope, dirty)

    def follow(self, src, ctx, scope, dirty) -> set:
        """Derive the types of the nodes at `dirty` again and, while they
        change, of their readers, in node order (graph_rules.infer_node);
        adds the names whose type moved to `rederived`, returns the indices
        of the nodes derived."""
        heap = sorted(dirty)
        queued = set(heap)
        g = self.graph
        while heap:
            i = heapq.heappop(heap)
            changed = infer_node(src, i, scope, ctx)
            if not changed:
                continue
            self.rederived.update(changed)
            for name in changed:
                v = g.get_value(name)
                for node, _ in (v.uses if v is not None else ()):
                    if node.graph is g:
                        j = node.index
                        if j > i and j not in queued:
                            queued.add(j)
                            heapq.heappush(heap, j)
        return queued

    def readers(self, names) -> set:
        """Indices of the main-graph nodes reading any of `names`, in their
        inputs or in a subgraph they hold (a body's node counts as its
        holder), through the IR's use lists."""
        g = self.graph
        found = set()
        for name in names:
            v = g.get_value(name)
            if v is None:
                continue
            for node, _ in v.uses:
                if node.graph is not g:
                    node = top_level_node(node, g)     # None: detached
                    if node is None:
                        continue
                found.add(node.index)
        return found

    def holder_indices(self) -> set:
        g = self.graph
        return {n.index for n in self.holders if n.graph is g}
