"""Live checking of an IR model while it is edited (the problems panel).

`LiveChecker(model)` checks the file form of an IR `Model` once, then keeps a
protobuf mirror of it in step with node edits, so that after an edit only
the edited main-graph node (with its subgraphs) and what depends on it is
re-checked:

    live = LiveChecker(model)
    ...apply an edit to `node`...
    diagnostics = live.node_changed(node)     # node anywhere, also inside subgraphs
    diagnostics = live.refresh()              # after structural edits (insert/remove,
                                              # graph IO, initializers, functions, opsets)
"""
from __future__ import annotations

import pathlib

from ..proto import onnx_pb2 as pb
from .session import CheckSession


def _node_writer():
    # serde writes one node exactly as model_to_proto would.
    from ..serde.convert import node_to_proto  # noqa: PLC0415

    def write(node, out: pb.NodeProto) -> None:
        out.CopyFrom(node_to_proto(node))
    return write


class LiveChecker:
    """`inference`: an optional `core.infer.Inference` over the same model. Its
    types fill in what the file does not declare, and `node_changed` updates
    it first so the re-check sees the new types (and re-checks the nodes
    whose input types moved)."""

    def __init__(self, model, inference=None):
        self.model = model
        self.inference = inference
        self.type_lookup = None
        if inference is not None:
            main = model.graph

            def lookup(graph_path, name):
                if graph_path != "graph":
                    return None
                value = main.get_value(name)
                return inference.type_of(value) if value is not None else None
            self.type_lookup = lookup
        self._write_node = _node_writer()
        self.refresh()

    @property
    def diagnostics(self) -> list:
        return self._session.diagnostics

    def refresh(self) -> list:
        """Re-read the whole model and check everything."""
        from ..serde.convert import model_to_proto  # noqa: PLC0415
        if self.inference is not None:
            self.inference.run()
        path = getattr(self.model, "path", None)
        folder = pathlib.Path(path).resolve().parent if path else None
        self._session = CheckSession(model_to_proto(self.model), model_dir=folder, type_lookup=self.type_lookup)
        return self._session.diagnostics

    def node_changed(self, node) -> list:
        """`node` (in the main graph or any subgraph below it) was edited in
        place: attributes, op_type, name, inputs or outputs."""
        top = node
        while top.graph is not None and top.graph.parent_node is not None:
            top = top.graph.parent_node
        graph = self.model.graph
        mirror = self._session.model.graph
        if top.graph is not graph or len(graph.nodes) != len(mirror.node):
            return self.refresh()      # a function body, or nodes were added/removed
        lookup_changed = None
        if self.inference is not None:
            try:
                moved = self.inference.update(nodes=[node])
            except Exception:  # noqa: BLE001 - inference trouble must not stop checking
                return self.refresh()
            lookup_changed = {v.name for v in moved if v.graph is graph}
        i = top.index
        fresh = pb.NodeProto()
        self._write_node(top, fresh)
        old = mirror.node[i]
        names_changed = list(old.input) != list(fresh.input) or list(old.output) != list(fresh.output)
        old.CopyFrom(fresh)
        return self._session.recheck(nodes=[i], names_changed=names_changed, lookup_changed=lookup_changed)
