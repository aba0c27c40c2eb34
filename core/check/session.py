"""The checker as a session that remembers its results per unit, so an edit
re-checks only what it can affect.

Units, in the order diagnostics are reported:
  "model"         ir_version, opset imports, metadata
  "graph"         names / SSA / def-use / initializers / IO of the main graph
  node i          main-graph node i with every subgraph under it
  "functions"     model-local functions
  "training"      training_info

A fresh session *is* the full check, so "incremental equals full" is tested
by comparing a re-checked session with a new one.

The session reads the file form from a source (on_demand.py): a ModelProto
as given, or an IR model's file form written on demand. With the IR (what
LiveChecker gives it), it keeps no protobuf copy of the model between
passes, keeps node findings per IR Node (their paths spelt again when the
node has moved) and re-checks a structural edit from the IR's def-use
links (graph_unit.py).
"""
from __future__ import annotations

import dataclasses
from typing import Iterable

from ..proto import onnx_pb2 as pb
from .context import Context
from ..diagnostics import Collector
from .function_rules import check_functions, check_training_info, function_key
from .graph_rules import check_node_at, check_structure, infer_node
from .model_rules import check_model_fields, imported_opsets
from .graph_unit import MainGraphUnit, node_names
from .on_demand import AsGiven


class CheckSession:
    def __init__(self, model: pb.ModelProto | None = None, model_dir=None, type_lookup=None, *, source=None,
                 ir_graph=None):
        """`model`: a ModelProto, checked as given; or `source` (on_demand.OnDemand)
        with `ir_graph`, the IR main graph it writes, kept in step with the
        model by the caller (LiveChecker). With the IR, a structural edit is
        re-checked from the IR's def-use links (graph_unit.py); without it,
        `update` checks everything again."""
        self._source = source if source is not None else AsGiven(model)
        self.model_dir = model_dir
        self.type_lookup = type_lookup
        self._units: dict = {}
        # Findings of main-graph nodes (only non-empty ones): by index, or
        # with the IR by Node, as (the index their paths spell, findings).
        self._nodes: dict = {}
        self._result = None
        self._scope = None
        self._unit = MainGraphUnit(ir_graph) if ir_graph is not None else None
        self.full()

    # -- public -----------------------------------------------------------------

    @property
    def diagnostics(self) -> list:
        if self._result is None:
            u = self._units
            result = u["model"] + u["graph"]
            if self._nodes:
                result.extend(self._node_findings())
            self._result = result + u["functions"] + u["training"]
        return list(self._result)

    def _node_findings(self) -> list:
        result = []
        unit = self._unit
        if unit is None:
            n = len(self._source.node)
            for i in sorted(self._nodes):
                if i < n:
                    result.extend(self._nodes[i])
            return result
        g = unit.graph
        nodes = self._nodes
        for i, node in sorted((node.index, node) for node in nodes if node.graph is g):
            spelt, found = nodes[node]
            if spelt != i:      # nodes were inserted or removed before it
                found = _renumbered(found, spelt, i)
                nodes[node] = (i, found)
            result.extend(found)
        return result

    def full(self) -> list:
        """Re-check everything."""
        self._result = None
        src = self._source
        model = src.whole()
        self._ctx = self._context(model)
        self._units = {"model": self._run(lambda out: check_model_fields(model, out))}
        self._nodes = {}
        suspects = self._check_graph_structure(model.graph)
        # Nodes the lean pass cleared have no diagnostics: no entry at all.
        if suspects is None:
            for i in range(len(model.graph.node)):
                self._check_node(i)
        else:
            for i, graphs in suspects:
                self._check_node(i, graphs)
        self._check_functions()
        self._check_training()
        src.done()
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
        self._result = None
        g = self._source
        todo = {i for i in nodes if 0 <= i < len(g.node)}
        changed = set(value_types_changed)
        # Graph-level diagnostics name nodes by op_type and name: those about
        # an edited node are rewritten (it may have been relabelled).
        prefixes = tuple(p for i in todo for p in (f"graph/node[{i}] ", f"graph/node[{i}]/"))
        relabelled = bool(prefixes) and any(d.path.startswith(prefixes) for d in self._units["graph"])
        if names_changed or changed or relabelled:
            return self.update(rewritten=todo, header=bool(changed) or names_changed, declared=changed,
                               lookup_changed=lookup_changed)
        unit = self._unit
        if unit is not None:
            ir = unit.graph
            for i in todo:
                node = ir.nodes[i]
                unit.names[node] = names = node_names(node)   # a graph attribute may have come or gone
                (unit.holders.add if names[2] else unit.holders.discard)(node)
            unit.rederived = set()
            todo |= unit.follow(g, self._ctx, self._scope, todo)
            changed |= unit.rederived
        else:
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
            todo |= self._readers(changed, holders=True)
        for i in sorted(todo):
            self._check_node(i)
        self._source.done()
        return self.diagnostics

    def update(self, *, region=None, rewritten: Iterable[int] = (), header: bool = False,
               declared: Iterable[str] = (), initializers: Iterable[str] = (), lookup_changed=None,
               training: bool = False, functions: bool = False, model: bool = False, replaced=()) -> list:
        """Re-check after the main graph was edited in any way but a
        reordering of the nodes it kept (then: `full()`). Without the IR
        graph, everything is checked again.

        - `region`: (start, old_stop, new_stop): nodes [start, old_stop) were
          replaced by the nodes now at [start, new_stop) (inserted, removed);
          the nodes after them moved by new_stop - old_stop. `replaced`: the
          IR nodes that stretch held.
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
        unit = self._unit
        if unit is None:
            return self.full()
        self._result = None
        g = self._source
        ir = unit.graph
        start, old_stop, new_stop = region or (0, 0, 0)
        for node in replaced:
            self._nodes.pop(node, None)
        dirty = set(range(start, new_stop))
        dirty.update(j for j in rewritten if 0 <= j < len(g.node))
        declared = set(declared)
        moved = set(lookup_changed) if lookup_changed is not None else None
        if self.type_lookup is not None and moved is None:
            moved = {v.name for j in dirty for v in ir.nodes[j].outputs if v is not None and v.name}
        derive = set(dirty)
        if moved or declared:
            derive |= self._readers(moved | declared if moved else declared)
        old_types = self._scope.types
        if functions:
            self._take_functions()
        result = []

        def run(out):
            result.append(unit.update(g, self._ctx, self._scope, replaced=replaced,
                                      region=[ir.nodes[j] for j in range(start, new_stop)],
                                      rewritten=[ir.nodes[j] for j in dirty if not start <= j < new_stop],
                                      header=header, initializers=initializers, derive=derive))
        found = self._run(run, "graph")
        if found or not result:         # the checker failed: start over
            return self.full()
        self._scope, names = result[0]
        self._units["graph"] = unit.findings
        if names is None:
            # A name defined twice or used before its definition: derived
            # types were worked out from scratch; check every node.
            self._nodes = {}
            for i in range(len(g.node)):
                self._check_node(i)
        else:
            changed = names | declared | unit.rederived | set(initializers)
            if moved:
                changed |= moved
            if header:
                changed |= _dict_diff(old_types, self._scope.types)
            todo = dirty | derive
            if changed:
                # Subgraphs read outer names without listing them: holders too.
                todo |= self._readers(changed, holders=True)
            for i in sorted(todo):
                if i < len(g.node):
                    self._check_node(i)
        if training or header or names:
            self._check_training()
        if functions:
            self._check_functions()
        if model:
            self._units["model"] = self._run(lambda out: check_model_fields(g.model_fields(), out))
        g.done()
        return self.diagnostics

    # -- units --------------------------------------------------------------------

    def _context(self, m) -> Context:
        opsets = imported_opsets(m)
        return Context(ir_version=m.ir_version, model_dir=self.model_dir, opsets=opsets,
                       model_opsets=opsets, is_main=True, functions=self._functions(m),
                       type_lookup=self.type_lookup)

    def _functions(self, m) -> dict:
        """(domain, name, overload) -> FunctionProto, for calls of
        model-local functions. With the IR, copies: a message taken out of
        the pass's file form would keep all of it alive."""
        if self._unit is None:
            return {function_key(f): f for f in m.functions}
        found = {}
        for f in m.functions:
            mine = pb.FunctionProto()
            mine.CopyFrom(f)
            found[function_key(mine)] = mine
        return found

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
        at the last check (False without the IR graph)."""
        unit = self._unit
        if unit is None or not unit.ok:
            return False
        ir = unit.graph
        for i in nodes:
            node = ir.nodes[i]
            old = unit.names.get(node)
            if old is None or node_names(node)[:2] != old[:2]:
                return False
        return True

    def _check_graph_structure(self, pg):
        self._scope = None
        unit = self._unit

        def run(out):
            if unit is None:
                self._scope = check_structure(pg, "graph", self._ctx, out, None)
            else:
                self._scope = unit.full(pg, self._ctx)
                out.items.extend(unit.findings)
        self._units["graph"] = self._run(run, "graph")
        if self._scope is None:
            from .context import Scope  # noqa: PLC0415
            self._scope = Scope({}, 1 << 62, None, {}, "graph")
            if unit is not None:
                unit.ok = False
        self._index = None      # consumers / subgraph holders, built on first re-check
        # The lean pass's suspects are only valid before anything else
        # changes: hand them to full() and never keep them.
        suspects, self._scope.suspects = self._scope.suspects, None
        return suspects

    def _readers(self, names, holders: bool = False) -> set:
        """Indices of the main-graph nodes reading any of `names` (with
        `holders`, also of their producers and of every node holding a
        subgraph: subgraphs read outer names without listing them). From
        the IR's use lists when the session has the IR graph, else from an
        index of the proto's nodes, built on first use."""
        unit = self._unit
        if unit is not None:
            found = unit.readers(names)
            if holders:
                found |= unit.holder_indices()
                defs = self._scope.defs
                for name in names:      # a node's own outputs' types are checked too
                    pos = defs.get(name)
                    if pos is not None and pos >= 0:
                        found.add(pos)
            return found
        consumers, holder_set = self._consumers_and_holders()
        found = {j for name in names for j in consumers.get(name, ())}
        return found | holder_set if holders else found

    def _consumers_and_holders(self):
        if self._index is None:
            consumers: dict = {}
            holders = set()
            for i, n in enumerate(self._source.node):
                for name in n.input:
                    consumers.setdefault(name, []).append(i)
                for name in n.output:
                    consumers.setdefault(name, []).append(i)   # its own outputs' types are checked too
                if any(a.HasField("g") or len(a.graphs) for a in n.attribute):
                    holders.add(i)
            self._index = (consumers, holders)
        return self._index

    def _check_node(self, i: int, graphs=None) -> None:
        found = self._run(lambda out: check_node_at(self._source, i, self._scope, self._ctx, out, graphs),
                          f"graph/node[{i}]")
        key = i if self._unit is None else self._unit.graph.nodes[i]
        if found:
            self._nodes[key] = found if self._unit is None else (i, found)
        else:
            self._nodes.pop(key, None)

    # Most models have neither functions nor training_info: no unit to run.
    def _take_functions(self) -> None:
        """The context's copies of the functions, taken again after an edit
        of one: calls are judged against them, so before any node is."""
        if self._unit is not None:
            functions = self._ctx.functions     # shared with every sub-context: replaced in place
            functions.clear()
            functions.update(self._functions(self._source.model_fields()))
            # What was worked out of the copies replaced (node_rules._formals_of) goes with them.
            self._ctx.memo.pop("body_formals", None)

    def _check_functions(self) -> None:
        m = self._source.model_fields()
        self._units["functions"] = self._run(lambda out: check_functions(m, self._ctx, out), "functions") \
            if len(m.functions) else []

    def _check_training(self) -> None:
        m = self._source.model_fields()
        if len(m.training_info):
            m = self._source.whole()     # the bindings are judged against the main graph's initializers
            self._units["training"] = self._run(
                lambda out: check_training_info(m, self._scope, self._ctx, out), "training_info")
        else:
            self._units["training"] = []


def _dict_diff(a: dict, b: dict) -> set:
    """Keys whose value differs between a and b (present in only one counts)."""
    if a == b:      # the usual case, and a comparison in C
        return set()
    return {k for k in a.keys() | b.keys() if a.get(k, _MISSING) != b.get(k, _MISSING)}


_MISSING = object()


def _renumbered(found: list, old: int, new: int) -> list:
    head = f"graph/node[{old}]"
    to = f"graph/node[{new}]"
    n = len(head)
    return [dataclasses.replace(d, path=to + d.path[n:]) if d.path.startswith(head) else d for d in found]
