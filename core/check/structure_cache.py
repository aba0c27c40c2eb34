"""What the main graph's structure unit remembers between re-checks, so a
structural edit (a node inserted or removed, a value renamed, a graph input
added) costs work in proportion to what it touched, not to the graph.

`graph_rules.check_structure(..., cache=StructureCache)` asks it for three
things instead of reading every node and initializer out of protobuf:

- `scan`: the lean pass. With the names of every node kept here as Python
  tuples (updated for the nodes an edit rewrote), definitions and the
  def-before-use test are dict work only; derived element types are carried
  over from the last run and worked out again only for the nodes an edit
  touched and, while they change, their consumers (as `infer_node` does).
  Nodes are never judged here: the session re-checks the ones that can have
  changed. The first run, and any run after the graph had a name defined
  twice or used before its definition, is the ordinary full pass.
- `tensor_clean`: an initializer's verdict, kept per name until an edit
  replaces that initializer.
- `declared_types`: kept until an edit touches graph inputs, outputs,
  value_info or initializers.

The session states before each run what changed (`dirty`, `gone`,
`header`, `initializers`); after it, `rederived` holds the names whose
derived type moved and `lean` whether the run took the lean path.
"""
from __future__ import annotations

import heapq
import itertools

from ..diagnostics import Collector
from .context import declared_types, initializer_types
from .graph_rules import infer_node
from .scan import is_odd, odd_names, odd_summary, scan_graph
from .stretch import differing_stretch
from .tensor_rules import tensor_clean


def node_names(node) -> tuple:
    """(inputs, outputs, holds a subgraph) of a NodeProto."""
    holds = False
    for a in node.attribute:
        if a.HasField("g") or len(a.graphs):
            holds = True
            break
    return tuple(node.input), tuple(node.output), holds


def _first_odd(names: list, count: int) -> list:
    """The positions of the first three odd names among `names`, `count` of
    which are odd (none: no walk over the names at all)."""
    if not count:
        return []
    return list(itertools.islice((k for k, n in enumerate(names) if is_odd(n)), min(count, 3)))


class _Nodes:
    """Lets graph_rules.infer_node read `g.node[i]` from the repeated field."""
    __slots__ = ("node",)

    def __init__(self, nodes):
        self.node = nodes


class StructureCache:
    def __init__(self):
        self.io = None              # [(inputs, outputs, holds)] per main-graph node, as in the mirror
        self.lean = False           # the last run took the lean path (its derived types can be carried over)
        self.prev_scope = None      # the Scope of the last run
        self._types = None          # declared types of the last run
        self._clean: dict = {}      # initializer name -> tensor_clean verdict
        self._ir = None
        self._vi_clean: dict = {}   # value_info position -> its type tests passed
        self._vi_ir = None
        self._seen_inits: set = set()   # initializer names met in this run
        # The initializer loop of the last run: (key, names, new definitions,
        # initializer names), and the initializers' declared types;
        # `_inits_same`: this run met the same initializers.
        self._inits = None
        self._inits_key = None
        self._init_types = None
        self._inits_same = False
        # What the next run must know (set by the session, reset after the run).
        self.dirty: set = set()     # node indices whose derived output types are to be worked out again
        self.gone: set = set()      # names no longer defined by the node that defined them
        self.header = False         # inputs / outputs / value_info / initializers changed
        self.initializers: set = set()   # initializer names replaced, added or removed
        # What the last run found.
        self.rederived: set = set()
        # names -> indices of the nodes reading them, from an index the
        # session's owner keeps (None: scan the names kept here).
        self.readers_of = None
        # The names of the last run (inputs, initializers, node outputs, in
        # order), how many were odd (not C identifiers) and where the first
        # three of those were.
        self._names = None
        self._odd_count = 0
        self._first_odd_at: list = []

    # -- bookkeeping by the session ------------------------------------------------------

    def ensure_io(self, nodes) -> list:
        if self.io is None:
            self.io = [node_names(n) for n in nodes]
        return self.io

    def reset(self) -> None:
        """Forget everything (a full check follows)."""
        self.io = None
        self.lean = False
        self.prev_scope = None
        self._types = None
        self._clean = {}
        self._vi_clean = {}
        self._inits = None
        self._init_types = None
        self._names = None
        self._done()

    def _done(self) -> None:
        self.dirty = set()
        self.gone = set()
        self.header = False
        self.initializers = set()

    # -- what check_structure asks for ----------------------------------------------------

    def begin(self) -> None:
        """A structure run starts."""
        self._seen_inits = set()
        self._inits_same = False

    def initializers_kept(self, inits, ir, defs):
        """What check_structure's initializer loop gave at the last run (names
        in order, the definitions it added, the initializer names), or None.
        Kept only from a run where every initializer was clean and unremarkable,
        and good while nothing the loop reads has changed: the IR version, the
        graph inputs defined before it, the initializers' names in order, none
        replaced by an edit since (`initializers`). A header edit that leaves
        the initializers alone (a new input shape) then reads no more of them
        than their names."""
        kept = self._inits
        if kept is not None and not self.header and not self.initializers and kept[0][0] == ir:
            # The session was told that no graph input or initializer changed
            # (a node edit): no need to read every initializer's name again
            # (9 ms of a structural edit's re-check on 10,000 nodes, loaded).
            self._inits_same = True
            return kept[1:]
        key = (ir, tuple(defs), tuple([init.name for init in inits]))
        self._inits_key = key
        self._inits_same = kept is not None and kept[0] == key and not self.initializers
        if not self._inits_same:
            self._inits = None
            return None
        return kept[1:]

    def keep_initializers(self, names, defs, init_names) -> None:
        """The outcome of the loop for initializers_kept's key of this run."""
        self._inits = (self._inits_key, names, defs, frozenset(init_names))

    def tensor_clean(self, init, ir, name=None):
        """`name`: init.name, when the caller has read it (a protobuf read
        costs about as much as the rest of this)."""
        if ir != self._ir:
            self._clean = {}
            self._ir = ir
        if name is None:
            name = init.name
        seen = self._seen_inits
        if name in self.initializers or name in seen:
            # Replaced by the edit, or a second initializer of that name
            # (the verdict kept is the first one's).
            return tensor_clean(init, ir)
        seen.add(name)
        verdict = self._clean.get(name)
        if verdict is None:
            verdict = self._clean[name] = tensor_clean(init, ir)
        return verdict

    def declared_types(self, g, parts) -> dict:
        if self._types is None or self.header:
            if not self._inits_same or self._init_types is None:
                self._init_types = initializer_types(parts)
            types = declared_types(g, parts, self._init_types)
            # Most header edits (a new input shape, a renamed output) leave
            # every declared type string as it was: keeping the same dict
            # tells the scan and the session so without comparing again.
            if types != self._types:
                self._types = types
            self._vi_clean = {}
        return self._types

    def value_info_clean(self, k: int, vi, ir) -> bool:
        """Whether value_info entry k's type needs no newer IR version and
        gives its element type (graph_rules' two type tests), remembered by
        position until graph inputs/outputs/value_info change."""
        if ir != self._vi_ir:
            self._vi_clean = {}
            self._vi_ir = ir
        clean = self._vi_clean.get(k)
        if clean is None:
            from .graph_rules import check_elem_type_given, type_too_new  # noqa: PLC0415
            found = Collector()
            check_elem_type_given(vi, "", found)
            clean = self._vi_clean[k] = not found.items and type_too_new(vi, ir) is None
        return clean

    def odd_summary(self, names: list) -> tuple:
        """scan.odd_summary, judging only the stretch of names an edit
        replaced: every name was judged again after each structural edit
        (15 ms of a 10,000-node graph's re-check on a loaded machine, where
        all names, "/layer.0/attention/...", are odd)."""
        prev, first_at = self._names, self._first_odd_at
        found = None
        if prev is not None:
            start, old_stop, new_stop = differing_stretch(prev, names)
            added = odd_names(names[start:new_stop])
            if not any(n.__class__ is bytes for n in added):
                count = self._odd_count - len(odd_names(prev[start:old_stop])) + len(added)
                if len(first_at) < 3 or first_at[2] >= start:
                    first_at = _first_odd(names, count)
                found = count, [names[k] for k in first_at], []
        if found is None:       # the first run, or names that are not valid UTF-8: judge them all
            found = odd_summary(names)
            first_at = _first_odd(names, found[0])
        if found[2]:
            self._names = None
        else:
            self._names = list(names)
            self._odd_count, self._first_odd_at = found[0], first_at
        return found

    def scan(self, nodes, scope, ctx, names):
        prev = self.prev_scope if self.lean else None
        dirty, gone = self.dirty, self.gone
        for name in self.initializers:
            self._clean.pop(name, None)
        self._done()
        self.rederived = set()
        if prev is None or self.io is None or len(self.io) != len(nodes):
            found = scan_graph(nodes, scope, ctx, names)
            self.lean = found is not None
            return found
        found = self._scan(nodes, scope, ctx, names, prev, dirty, gone)
        self.lean = found is not None
        return found

    def _scan(self, nodes, scope, ctx, names, prev, dirty, gone):
        defs = scope.defs
        for i, (ins, outs, _) in enumerate(self.io):
            for n in ins:
                if n and n not in defs:
                    return None
            for o in outs:
                if o:
                    if o in defs:
                        return None
                    defs[o] = i
            names += outs
        types = scope.types
        prev_types = prev.types
        # Carry the derived types over; drop those of names defined
        # elsewhere now, or declared now.
        inferred = prev.inferred
        scope.inferred = inferred
        for name in gone:
            if inferred.pop(name, None) is not None:
                self.rederived.add(name)
        if types is not prev_types:
            for name in types.keys() - prev_types.keys():
                if inferred.pop(name, None) is not None:
                    self.rederived.add(name)
            for name in prev_types.keys() - types.keys():
                pos = defs.get(name)
                if pos is not None and pos >= 0:
                    dirty.add(pos)
        # Work derived types out again in node order, following changes forward.
        g = _Nodes(nodes)
        heap = sorted(i for i in dirty if 0 <= i < len(nodes))
        queued = set(heap)
        consumers = None
        waves = 0
        while heap:
            i = heapq.heappop(heap)
            moved = infer_node(g, i, scope, ctx)
            if not moved:
                continue
            self.rederived.update(moved)
            # A scan for the readers costs a third of building the map: scan
            # for the first few changes, build the map when they keep coming.
            waves += 1
            if consumers is None and waves > 3:
                consumers = self.consumers()
            readers = self.readers(set(moved)) if consumers is None else \
                {j for name in moved for j in consumers.get(name, ())}
            for j in readers:
                if j > i and j not in queued:
                    queued.add(j)
                    heapq.heappush(heap, j)
        return []

    def consumers(self) -> dict:
        """name -> indices of the nodes reading it."""
        found: dict = {}
        for i, (ins, _, _) in enumerate(self.io):
            for n in ins:
                if n:
                    found.setdefault(n, []).append(i)
        return found

    def readers(self, names: set, holders: bool = False) -> set:
        """Indices of the nodes reading any of `names` (a scan: cheaper than
        building the consumer map when asked once); with `holders`, also of
        every node holding a subgraph. With `readers_of` (the session's
        def-use index, LiveChecker's IR use lists) no node is scanned for
        its inputs."""
        if self.readers_of is not None:
            found = self.readers_of(names) if names else set()
            return found | self.holders() if holders else found
        if holders:
            return {i for i, (ins, _, holds) in enumerate(self.io) if holds or not names.isdisjoint(ins)}
        if not names:
            return set()
        return {i for i, (ins, _, _) in enumerate(self.io) if not names.isdisjoint(ins)}

    def holders(self) -> set:
        return {i for i, (_, _, holds) in enumerate(self.io) if holds}
