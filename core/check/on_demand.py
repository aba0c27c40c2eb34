"""Where a check session reads the file form from.

The rules judge protobuf messages. `AsGiven` hands them a ModelProto as it
is (check(), tests). `OnDemand` writes an IR model's file form a piece at a
time as the live checker asks for it, with serde's public writer and the
weights left out (file_form.py), and forgets it when the pass is over
(`done()`): a full check writes the whole file form; a re-check writes only
the nodes it checks, the main graph's header when the edit touched it, and
the model's own fields (functions, training_info) when it asks for them. No
protobuf copy of the model outlives a pass.

Both offer the same reads:
  whole()          the ModelProto (written once per pass)
  node[i]          main-graph node i (a NodeProto)
  header(clean)    (a GraphProto with the main graph's own fields, the parts
                   dict the graph rules read, initializers included)
  model_fields()   a ModelProto with the model's fields, functions and
                   training_info; its main graph is left empty
  done()           the pass is over
"""
from __future__ import annotations

from ..proto import onnx_pb2 as pb
from ..serde.convert import model_to_proto
from .context import graph_parts
from .file_form import writer_for


class AsGiven:
    def __init__(self, proto: pb.ModelProto):
        self.proto = proto
        self.node = proto.graph.node

    def whole(self) -> pb.ModelProto:
        return self.proto

    def header(self, clean=None):
        g = self.proto.graph
        return g, graph_parts(g)

    def model_fields(self) -> pb.ModelProto:
        return self.proto

    def done(self) -> None:
        pass


class KnownInitializer:
    """What the graph rules read of an initializer whose verdict the caller
    keeps (its name and element type), without writing its message."""
    __slots__ = ("name", "data_type")

    def __init__(self, name: str, data_type: int):
        self.name = name
        self.data_type = data_type


class _NodeProtos:
    """`source.node[i]`: node i of the main graph, written on first read in
    a pass (a re-check reads a node for its derived types, then its rules)."""
    __slots__ = ("_source",)

    def __init__(self, source):
        self._source = source

    def __len__(self) -> int:
        return len(self._source.model.graph.nodes)

    def __getitem__(self, i: int) -> pb.NodeProto:
        return self._source.node_proto(i)


class _FieldsOnly:
    """A writer of the model's own fields: the main graph is left out."""

    def __init__(self, writer):
        self._writer = writer

    def graph(self, g, out) -> None:
        pass

    def __getattr__(self, name):
        return getattr(self._writer, name)


class OnDemand:
    def __init__(self, model, on_bad_value=None):
        self.model = model
        self.writer = writer_for(model, on_bad_value)
        self.node = _NodeProtos(self)
        self._whole = None
        self._written: dict = {}    # node index -> NodeProto written in this pass
        self._fields = None

    def node_proto(self, i: int) -> pb.NodeProto:
        if self._whole is not None:
            return self._whole.graph.node[i]
        proto = self._written.get(i)
        if proto is None:
            proto = self._written[i] = pb.NodeProto()
            self.writer.node(self.model.graph.nodes[i], proto)
        return proto

    def whole(self) -> pb.ModelProto:
        if self._whole is None:
            self._whole = model_to_proto(self.model, writer=self.writer)
        return self._whole

    def header(self, clean=None):
        """The main graph's header: inputs, outputs, value_info, sparse
        initializers and fields written; dense initializers whose name
        `clean(name)` vouches for as KnownInitializer, others written
        (weights left out)."""
        if self._whole is not None:
            g = self._whole.graph
            return g, graph_parts(g)
        g = self.model.graph
        proto = pb.GraphProto()
        self.writer.graph_fields(g, proto)
        parts = graph_parts(proto)
        inits, seen = [], set()
        for v in list(g.initializers.values()) + list(g.duplicate_initializers):
            # A second initializer of one name is judged on its own: written.
            if clean is not None and v.name not in seen and clean(v.name):
                inits.append(KnownInitializer(v.name, int(v.const.dtype)))
            else:
                inits.append(self.writer.named_tensor(v))
            seen.add(v.name)
        if inits:
            parts["initializer"] = inits
        return proto, parts

    def model_fields(self) -> pb.ModelProto:
        if self._whole is not None:
            return self._whole
        if self._fields is None:
            self._fields = model_to_proto(self.model, writer=_FieldsOnly(self.writer))
        return self._fields

    def done(self) -> None:
        self._whole = None
        self._written = {}
        self._fields = None
