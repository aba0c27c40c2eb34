"""The checker as a session that remembers its results per unit, so an edit
re-checks only what it can affect.

Units, in the order diagnostics are reported:
  "model"         ir_version, opset imports, metadata
  "graph"         names / SSA / def-use / initializers / IO of the main graph
  ("node", i)     main-graph node i with every subgraph under it
  "functions"     model-local functions
  "training"      training_info

A fresh session *is* the full check, so "incremental equals full" is tested
by comparing a re-checked session with a new one.
"""
from __future__ import annotations

import dataclasses
import itertools
from typing import Iterable

from ..proto import onnx_pb2 as pb
from .context import Context
from ..diagnostics import Collector
from .function_rules import check_functions, check_training_info, function_key
from .graph_rules import check_node_at, check_structure, infer_node
from .model_rules import check_model_fields, imported_opsets
from .structure_cache import StructureCache, node_names


class CheckSession:
    def __init__(self, model: pb.ModelProto, model_dir=None, type_lookup=None, readers=None):
        """`readers(names) -> set of indices`: the main-graph nodes that read
        any of `names` (in their inputs, or in subgraphs they hold), from a
        def-use index the caller keeps in step with `model` (LiveChecker:
        the IR's use lists); without it, a re-check scans every node's
        inputs for them."""
        self.model = model
        self.model_dir = model_dir
        self.type_lookup = type_lookup
        self._units: dict = {}
        self._nodes: dict = {}      # main-graph node index -> its diagnostics (only non-empty ones)
        self._scope = None
        self._cache = StructureCache()
        self._cache.readers_of = readers
        self.full()

    # -- public -----------------------------------------------------------------

    @property
    def diagnostics(self) -> list:
        u = self._units
        result = u["model"] + u["graph"]
        if self._nodes:
            n = len(self.model.graph.node)
            for i in sorted(self._nodes):
                if i < n:
                    result.extend(self._nodes[i])
        return result + u["functions"] + u["training"]

    def full(self) -> list:
        """Re-check everything."""
        self._ctx = self._context()
        self._cache.reset()
        self._units = {"model": self._run(lambda out: check_model_fields(self.model, out))}
        self._nodes = {}
        suspects = self._check_graph_structure()
        # Nodes the lean pass cleared have no diagnostics: no entry at all.
        if suspects is None:
            for i in range(len(self.model.graph.node)):
                self._check_node(i)
        else:
            for i, graphs in suspects:
                self._check_node(i, graphs)
        self._check_functions()
        self._check_training()
        return self.diagnostics

    def node_changed(self, index: int, *, names_changed: bool = False) -> list:
        """Main-graph node `index` was edited in place (attributes, op, inputs,
        outputs). With `names_changed`, its inputs or outputs were renamed or
        rewired, so name-level rules and the neighbours are re-checked too."""
        return self.recheck(nodes=[index], names_changed=names_changed)

    def recheck(self, nodes: Iterable[int] = (), *, names_changed: bool = False,
                value_types_changed: Iterable[str] = (), lookup_changed=None) -> list:
        """Re-check the given main-graph nodes plus what depends on them.

        - `names_changed`: names were defined, removed or renamed (node I/O,
          graph inputs/outputs, initializers, value_info): the graph unit runs
          again, and so does every node whose inputs' definitions or types moved.
        - `value_types_changed`: declared types of these names changed
          (value_info, graph input types, initializer dtype/dims).
        - `lookup_changed`: names whose type from `type_lookup` changed (an
          inference engine reports them); None means unknown, and then the
          outputs of the edited nodes are assumed changed.
        Without either, only the nodes and the consumers their derived output
        types reach are re-checked (an attribute edit: no O(graph) work).
        Node insertion or removal: `update`.
        """
        g = self.model.graph
        todo = {i for i in nodes if 0 <= i < len(g.node)}
        changed = set(value_types_changed)
        # Graph-level diagnostics name nodes by op_type and name: those about
        # an edited node are rewritten (it may have been relabelled).
        prefixes = tuple(p for i in todo for p in (f"graph/node[{i}] ", f"graph/node[{i}]/"))
        relabelled = bool(prefixes) and any(d.path.startswith(prefixes) for d in self._units["graph"])
        if names_changed or changed or relabelled:
            return self.update(rewritten=todo, header=bool(changed) or names_changed, declared=changed,
                               lookup_changed=lookup_changed)
        else:
            io = self._cache.io
            if io is not None:
                for i in todo:
                    io[i] = node_names(g.node[i])   # a graph attribute may have come or gone
            # Follow derived element types forward only while they change; the
            # consumer index is needed (and built) only when one does.
            frontier = sorted(todo)
            while frontier:
                i = frontier.pop()
                for name in infer_node(g, i, self._scope, self._ctx):
                    changed.add(name)
                    for j in self._consumers_and_holders()[0].get(name, ()):
                        if j not in todo:
                            todo.add(j)
                            frontier.append(j)
        if self.type_lookup is not None:
            if lookup_changed is not None:
                changed.update(lookup_changed)
            else:
                # Types from outside may change with any edit of these nodes.
                for i in list(todo):
                    changed.update(n for n in g.node[i].output if n)
        if changed:
            consumers, holders = self._consumers_and_holders()
            for name in changed:
                todo.update(consumers.get(name, ()))
            # Subgraphs read outer names without listing them as node inputs.
            todo |= holders
        for i in sorted(todo):
            self._check_node(i)
        return self.diagnostics

    def update(self, *, region=None, rewritten: Iterable[int] = (), header: bool = False,
               declared: Iterable[str] = (), initializers: Iterable[str] = (), lookup_changed=None,
               training: bool = False, functions: bool = False, model: bool = False) -> list:
        """Re-check after the mirror's main graph was edited in any way but a
        reordering of the nodes it kept (then: `full()`).

        - `region`: (start, old_stop, new_stop): nodes [start, old_stop) were
          replaced by the nodes now at [start, new_stop) (inserted, removed);
          the nodes after them moved by new_stop - old_stop.
        - `rewritten`: indices (as now) of other nodes whose protos changed.
        - `header`: graph inputs, outputs, value_info, initializers or graph
          fields changed; `declared`: names whose declared type changed;
          `initializers`: names of initializers replaced, added or removed.
        - `lookup_changed`: names whose type from `type_lookup` moved (None:
          unknown; the outputs of every touched node are assumed moved).
        - `training`, `functions`, `model`: those units run again.
        Cached findings of moved nodes move with them (their paths are
        renumbered); the nodes that can have changed are checked again.
        Equal to a fresh session (tests/edits/test_random_edits.py).
        """
        g = self.model.graph
        cache = self._cache
        if cache.io is None:
            # The names as they were are unknown (LiveChecker reads them before
            # it edits the mirror; a caller editing the proto directly did not):
            # read them now and check every node once.
            cache.ensure_io(g.node)
            cache.lean = False
            region, rewritten = None, ()
            header = True       # nor what the header held: nothing of it is taken as kept
        io = cache.io
        start, old_stop, new_stop = region or (0, 0, 0)
        delta = new_stop - old_stop
        touched: set = set()       # names whose definition moved or changed
        gone: set = set()
        dirty: set = set(range(start, new_stop))
        for ins, outs, _ in io[start:old_stop]:
            gone.update(outs)
        io[start:old_stop] = [node_names(g.node[j]) for j in range(start, new_stop)]
        for j in range(start, new_stop):
            touched.update(io[j][1])
        for j in rewritten:
            if not 0 <= j < len(io) or start <= j < new_stop:
                continue
            old = io[j]
            io[j] = new = node_names(g.node[j])
            dirty.add(j)
            if old[1] != new[1]:
                gone.update(old[1])
                touched.update(new[1])
        touched |= gone
        touched.discard("")
        gone.discard("")
        if delta or old_stop > start:
            self._nodes = _moved(self._nodes, start, old_stop, delta)
        declared = set(declared)
        moved = set(lookup_changed) if lookup_changed is not None else None
        if self.type_lookup is not None and moved is None:
            moved = {n for j in dirty for n in io[j][1] if n}
        was_lean = cache.lean
        old_scope = self._scope
        old_inputs = _header_defs(old_scope) if header else None
        if moved or declared:
            dirty |= cache.readers(moved | declared if moved else declared)
        cache.dirty, cache.gone, cache.header = dirty, gone, header
        cache.initializers = set(initializers)
        self._check_graph_structure()
        scope = self._scope
        if not (was_lean and cache.lean):
            # Derived types were worked out from scratch (a graph with a name
            # defined twice or used before its definition): check every node.
            self._nodes = {}
            for i in range(len(g.node)):
                self._check_node(i)
        else:
            changed = touched | declared | cache.rederived | set(initializers)
            if moved:
                changed |= moved
            if header:
                changed |= _dict_diff(old_inputs, _header_defs(scope))
                changed |= _dict_diff(old_scope.types, scope.types)
            todo = set(dirty)
            if changed:
                # Subgraphs read outer names without listing them: holders too.
                todo |= cache.readers(changed, holders=True)
                defs = scope.defs
                for name in changed:        # a node's own outputs' types are checked too
                    pos = defs.get(name)
                    if pos is not None and pos >= 0:
                        todo.add(pos)
            for i in sorted(todo):
                if i < len(g.node):
                    self._check_node(i)
        if training or header or touched:
            self._check_training()
        if functions:
            self._check_functions()
        if model:
            self._units["model"] = self._run(lambda out: check_model_fields(self.model, out))
        return self.diagnostics

    # -- units --------------------------------------------------------------------

    def _context(self) -> Context:
        m = self.model
        opsets = imported_opsets(m)
        return Context(ir_version=m.ir_version, model_dir=self.model_dir, opsets=opsets,
                       model_opsets=opsets, is_main=True,
                       functions={function_key(f): f for f in m.functions},
                       type_lookup=self.type_lookup)

    @staticmethod
    def _run(fn, where: str = "model") -> list:
        out = Collector()
        try:
            fn(out)
        except Exception as e:  # noqa: BLE001 - a checker bug must not hide the other units' findings
            out.add("check.internal", where, f"the checker failed here ({type(e).__name__}: {e}); please report it")
        return out.items

    def names_unchanged(self, nodes) -> bool:
        """Whether these main-graph nodes read and define the names they did
        at the last check."""
        io, g = self._cache.io, self.model.graph
        if io is None or len(io) != len(g.node):
            return False
        for i in nodes:
            ins, outs, _ = io[i]
            node = g.node[i]
            if tuple(node.input) != ins or tuple(node.output) != outs:
                return False
        return True

    def remember_names(self) -> None:
        """Read every main-graph node's names now, before the proto is edited,
        so that the next `update` can tell what changed (LiveChecker does)."""
        self._cache.ensure_io(self.model.graph.node)

    def _check_graph_structure(self) -> None:
        self._cache.begin()
        self._cache.prev_scope = self._scope
        self._scope = None

        def run(out):
            self._scope = check_structure(self.model.graph, "graph", self._ctx, out, None, self._cache)
        self._units["graph"] = self._run(run, "graph")
        if self._scope is None:
            from .context import Scope  # noqa: PLC0415
            self._scope = Scope({}, 1 << 62, None, {}, "graph")
        self._index = None      # consumers / subgraph holders, built on first re-check
        # The lean pass's suspects are only valid before anything else
        # changes: hand them to full() and never keep them.
        suspects, self._scope.suspects = self._scope.suspects, None
        return suspects

    def _consumers_and_holders(self):
        if self._index is None:
            consumers: dict = {}
            holders = set()
            for i, n in enumerate(self.model.graph.node):
                for name in n.input:
                    consumers.setdefault(name, []).append(i)
                for name in n.output:
                    consumers.setdefault(name, []).append(i)   # its own outputs' types are checked too
                if any(a.HasField("g") or len(a.graphs) for a in n.attribute):
                    holders.add(i)
            self._index = (consumers, holders)
        return self._index

    def _check_node(self, i: int, graphs=None) -> None:
        found = self._run(lambda out: check_node_at(self.model.graph, i, self._scope, self._ctx, out, graphs),
                          f"graph/node[{i}]")
        if found:
            self._nodes[i] = found
        else:
            self._nodes.pop(i, None)

    # Most models have neither functions nor training_info: no unit to run.
    def _check_functions(self) -> None:
        self._units["functions"] = self._run(lambda out: check_functions(self.model, self._ctx, out), "functions") \
            if len(self.model.functions) else []

    def _check_training(self) -> None:
        self._units["training"] = self._run(
            lambda out: check_training_info(self.model, self._scope, self._ctx, out), "training_info") \
            if len(self.model.training_info) else []


def _dict_diff(a: dict, b: dict) -> set:
    """Keys whose value differs between a and b (present in only one counts)."""
    if a == b:      # the usual case, and a comparison in C
        return set()
    return {k for k in a.keys() | b.keys() if a.get(k, _MISSING) != b.get(k, _MISSING)}


_MISSING = object()


def _header_defs(scope) -> dict:
    """The graph inputs and initializers of a scope (negative positions)."""
    if scope is None:
        return {}
    # They were defined before any node output (graph_rules.check_structure),
    # and a definition is never replaced: they are the dict's first entries,
    # so the walk stops at the first node output (a header edit walked all
    # 20,000 names of a 10,000-node graph twice).
    return dict(itertools.takewhile(lambda item: item[1] < 0, scope.defs.items()))


def _moved(nodes: dict, start: int, stop: int, delta: int) -> dict:
    """Cached node findings after nodes [start, stop) were replaced and the
    ones after moved by `delta`: kept ones renumbered, replaced ones dropped."""
    out = {}
    for i, found in nodes.items():
        if i < start:
            out[i] = found
        elif i >= stop:
            out[i + delta] = _renumbered(found, i, i + delta) if delta else found
    return out


def _renumbered(found: list, old: int, new: int) -> list:
    head = f"graph/node[{old}]"
    to = f"graph/node[{new}]"
    n = len(head)
    return [dataclasses.replace(d, path=to + d.path[n:]) if d.path.startswith(head) else d for d in found]
