"""The file form of an IR model, kept in step with edits.

The checker judges a ModelProto (what serde writes), so a live checker keeps
one beside the IR model. Re-writing it whole costs ~50 ms on 10k nodes;
`Mirror.sync(changes)` instead re-writes only what an edit touched: the
nodes it added, removed or changed (the main graph's node list is compared
by identity, so only the stretch that differs is replaced), the main
graph's inputs, outputs and value_info, the initializers it replaced, the
model-local functions whose bodies changed, and the model's own fields. It
returns what the session must re-check (`CheckSession.update` arguments),
or None where a full check is the honest answer (a new IR version or
opset import changes every verdict).

`tests/edits/test_random_edits.py` holds the mirror byte-equal to
`file_form.file_form` (serde's model_to_proto with the weights left out)
after random edits.
"""
from __future__ import annotations

from ..serde.convert import model_to_proto
from ..ir.nesting import holder_in
from .file_form import writer_for
from .stretch import differing_stretch


def _initializer_values(g) -> list:
    return list(g.initializers.values()) + list(g.duplicate_initializers)


class Mirror:
    def __init__(self, model):
        self.model = model
        # Attributes whose value their type cannot carry (set from Python):
        # written without a value, reported by the live checker.
        self.bad_values: dict = {}
        # Weights are left out (file_form.py): the rules need their lengths only.
        self._writer = writer_for(model, self._bad_value)
        self.proto = model_to_proto(model, writer=self._writer)
        g = model.graph
        self._order = g.nodes[:]
        self._inits = _initializer_values(g)

    def _bad_value(self, attr, exc) -> None:
        self.bad_values[id(attr)] = attr

    def bad_attributes(self) -> list:
        """The attributes serde could not write that still hold a bad value."""
        from ..proto import onnx_pb2 as pb  # noqa: PLC0415
        from ..serde.convert import ProtoWriter  # noqa: PLC0415
        strict = ProtoWriter(lambda t: t.to_proto(with_data=False), False)
        for key, attr in list(self.bad_values.items()):
            try:
                strict.attr(attr, pb.AttributeProto())
            except (TypeError, ValueError, OverflowError, AttributeError):
                continue
            del self.bad_values[key]       # fixed since (e.g. its value set right in place)
        return list(self.bad_values.values())

    def node_proto(self, node):
        from ..proto import onnx_pb2 as pb  # noqa: PLC0415
        out = pb.NodeProto()
        self._writer.node(node, out)
        return out

    def sync(self, changes):
        """Bring the mirror up to date; returns keyword arguments for
        CheckSession.update, or None (then rebuild and check in full)."""
        m = self.model
        g = m.graph
        if changes.changes_every_verdict:
            return None
        p = self.proto.graph
        plan = {}
        # -- which main-graph nodes changed in place (also through their subgraphs)
        touched = set()
        for node in changes.nodes_changed:
            if node.graph is g:
                touched.add(node)
        graphs = set(changes.graphs)
        for node in changes.nodes_added:
            if node.graph is not None and node.graph is not g:
                graphs.add(node.graph)
        for graph in graphs:
            if graph is g:
                continue
            top = holder_in(graph, g)
            if top is not None:
                touched.add(top)
        if changes.values_retyped:
            touched.update(self._holders_declaring(changes.values_retyped))
        functions = set(changes.functions)
        if functions:
            if not self._sync_functions(functions):
                return None
            plan["functions"] = True
            # Calls of a model-local function are judged against it.
            keys = set(m.functions)
            for sub in g.walk():
                for n in sub.nodes:
                    if (n.domain, n.op_type, n.overload) in keys:
                        top = n if sub is g else holder_in(sub, g)
                        if top is not None:
                            touched.add(top)
        # -- the node list: replace the stretch that differs
        new = g.nodes[:]     # a list: compared with the last one in C
        old = self._order
        start, old_stop, new_stop = differing_stretch(old, new)
        if old_stop > start or new_stop > start:
            del p.node[start:old_stop]
            for j in range(start, new_stop):
                p.node.insert(j, self.node_proto(new[j]))
            plan["region"] = (start, old_stop, new_stop)
            plan["replaced"] = old[start:old_stop]
            self._order = new
        rewritten = set()
        for node in touched:
            i = node.index
            if 0 <= i < len(new) and not start <= i < new_stop:
                p.node[i].CopyFrom(self.node_proto(node))
                rewritten.add(i)
        plan["rewritten"] = rewritten
        # -- the main graph's own fields
        header = bool(changes.graph_io & {g} or changes.value_info & {g})
        declared = set()
        for v in changes.values_retyped:
            if v.graph is g:
                header = True
                declared.add(v.name)
        for graph, old_name, new_name in changes.values_renamed:
            if graph is g:
                header = True
                declared.update((old_name, new_name))
        inits = [v for v in changes.initializers if v.graph is g]
        if inits or self._inits != _initializer_values(g):
            header = True
            plan["initializers"] = self._sync_initializers(inits)
        if header:
            self._sync_graph_fields()
        elif g in changes.graphs and (g.name != p.name or g.doc_string != p.doc_string):
            # A node edit also lists its graph: the header (value_info may
            # hold an entry per value) is written again only for a new
            # graph name or doc_string (SetGraphField), the fields it can
            # have changed then.
            header = self._sync_graph_fields()
        if header:
            plan["header"] = True
            plan["declared"] = declared
        if changes.model_fields:
            self._sync_model_fields()
            plan["model"] = True
        return plan

    # -- pieces ------------------------------------------------------------------------

    def _holders_declaring(self, values) -> set:
        """Main-graph nodes whose subgraphs list one of `values` among their
        inputs, outputs or value_info: a subgraph output may be a value of an
        enclosing graph, and its file form carries that value's type."""
        g = self.model.graph
        ids = {id(v) for v in values}
        out = set()
        for sub in g.walk():
            if sub is g:
                continue
            if any(id(v) in ids for part in (sub.outputs, sub.inputs, sub.value_info) for v in part):
                top = holder_in(sub, g)
                if top is not None:
                    out.add(top)
        return out

    def _sync_graph_fields(self) -> bool:
        """Inputs, outputs, value_info, sparse initializers, name, doc_string,
        annotations, metadata of the main graph, written as serde writes them
        (cheap: these lists are short next to the nodes); True if any differ."""
        from ..proto import onnx_pb2 as pb  # noqa: PLC0415
        g = self.model.graph
        fresh = pb.GraphProto()
        self._writer.graph_fields(g, fresh)
        p = self.proto.graph
        changed = False
        for fd in ("name", "doc_string"):
            if fresh.HasField(fd) != p.HasField(fd) or getattr(fresh, fd) != getattr(p, fd):
                changed = True
                if fresh.HasField(fd):
                    setattr(p, fd, getattr(fresh, fd))
                else:
                    p.ClearField(fd)
        for fd in ("sparse_initializer", "input", "output", "value_info", "quantization_annotation",
                   "metadata_props"):
            mine, theirs = getattr(p, fd), getattr(fresh, fd)
            if list(mine) != list(theirs):
                changed = True
                del mine[:]
                mine.extend(theirs)
        return changed

    def _sync_initializers(self, replaced) -> set:
        """Dense initializers: the stretch of the list that differs is written
        again, and so is each one an edit replaced. Returns their names."""
        g = self.model.graph
        p = self.proto.graph.initializer
        old, new = self._inits, _initializer_values(g)
        names = {v.name for v in replaced}
        start, old_stop, new_stop = differing_stretch(old, new)
        for v in old[start:old_stop]:
            names.add(v.name)
        del p[start:old_stop]
        for j in range(start, new_stop):
            p.insert(j, self._writer.named_tensor(new[j]))
            names.add(new[j].name)
        replaced_ids = {id(v) for v in replaced}
        for j, v in enumerate(new):
            if id(v) in replaced_ids and not start <= j < new_stop:
                p[j].CopyFrom(self._writer.named_tensor(v))
        self._inits = new
        return names

    def _sync_functions(self, keys) -> bool:
        m = self.model
        protos = {(f.domain, f.name, f.overload): k for k, f in enumerate(self.proto.functions)}
        if len(protos) != len(m.functions) or set(protos) != set(m.functions):
            return False
        from ..proto import onnx_pb2 as pb  # noqa: PLC0415
        for key in keys:
            f = m.functions.get(key)
            if f is None:
                return False
            out = pb.FunctionProto()
            self._writer.function(f, out)
            self.proto.functions[protos[key]].CopyFrom(out)
        return True

    def _sync_model_fields(self) -> None:
        m, mp = self.model, self.proto
        present = m._present
        for fd in ("producer_name", "producer_version", "domain", "doc_string", "model_version"):
            val = getattr(m, fd)
            if val or fd in present:
                setattr(mp, fd, val)
            else:
                mp.ClearField(fd)
        del mp.metadata_props[:]
        for k, val in m.metadata_props.items():
            e = mp.metadata_props.add()
            e.key, e.value = k, val
