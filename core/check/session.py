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

from typing import Iterable

from ..proto import onnx_pb2 as pb
from .context import Context
from ..diagnostics import Collector
from .function_rules import check_functions, check_training_info, function_key
from .graph_rules import check_node_at, check_structure, infer_node
from .model_rules import check_model_fields, imported_opsets


class CheckSession:
    def __init__(self, model: pb.ModelProto, model_dir=None, type_lookup=None):
        self.model = model
        self.model_dir = model_dir
        self.type_lookup = type_lookup
        self._units: dict = {}
        self._nodes: dict = {}      # main-graph node index -> its diagnostics (only non-empty ones)
        self._scope = None
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
        Node insertion or removal shifts indices and paths: call `full()`.
        """
        g = self.model.graph
        todo = {i for i in nodes if 0 <= i < len(g.node)}
        changed = set(value_types_changed)
        # Graph-level diagnostics name nodes by op_type and name: those about
        # an edited node are rewritten (it may have been relabelled).
        prefixes = tuple(p for i in todo for p in (f"graph/node[{i}] ", f"graph/node[{i}]/"))
        relabelled = bool(prefixes) and any(d.path.startswith(prefixes) for d in self._units["graph"])
        if names_changed or changed or relabelled:
            old = self._scope
            self._check_graph_structure()
            new = self._scope
            changed |= _dict_diff(old.defs, new.defs) | _dict_diff(old.inferred, new.inferred)
            changed |= {n for n in set(old.types) | set(new.types) if old.types.get(n) != new.types.get(n)}
            if names_changed:
                self._check_training()
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
            consumers, holders = self._consumers_and_holders()
            for name in changed:
                todo.update(consumers.get(name, ()))
            # Subgraphs read outer names without listing them as node inputs.
            todo |= holders
        for i in sorted(todo):
            self._check_node(i)
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

    def _check_graph_structure(self) -> None:
        self._scope = None

        def run(out):
            self._scope = check_structure(self.model.graph, "graph", self._ctx, out, None)
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
    return {k for k in a.keys() | b.keys() if a.get(k, _MISSING) != b.get(k, _MISSING)}


_MISSING = object()
