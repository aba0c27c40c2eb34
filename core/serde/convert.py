"""protobuf <-> IR conversion, lossless for everything the IR does not edit.

Unedited attributes and tensors keep their source messages; scalar fields
remember whether the file set them (proto2 presence is part of equality);
fields this version of the schema does not know are carried as raw bytes
when the file has any (found at save time, see has_unknown_fields).
"""
from __future__ import annotations

import struct
from typing import Callable, Optional

from google.protobuf import unknown_fields as _uf

from ..errors import LoadError
from ..opsets import canonical_domain
from ..ir.graph import NOT_DECODED, Attr, AttrType, Graph, Node, Value
from ..ir.model import Function, Model
from ..ir.tensor import SparseTensor, Tensor
from ..ir.text import as_text
from .repeats import KeptText, first_wins, last_wins
from .type_proto import type_from_proto, type_from_proto_exact, type_to_proto
from ..proto import onnx_pb2 as pb
from .wire import encode_varint

# Builds a Tensor from a TensorProto (the loader supplies one that knows about
# mapped raw data and external files).
TensorFactory = Callable[[pb.TensorProto], Tensor]
_EXTERNAL = pb.TensorProto.EXTERNAL


# --- unknown fields ---------------------------------------------------------------

def unknown_bytes(msg) -> bytes:
    """Re-encode the fields of `msg` that our schema does not know."""
    out = bytearray()
    for f in _uf.UnknownFieldSet(msg):
        tag = encode_varint((f.field_number << 3) | f.wire_type)
        if f.wire_type == 0:
            out += tag + encode_varint(f.data)
        elif f.wire_type == 1:
            out += tag + struct.pack("<Q", f.data & ((1 << 64) - 1))
        elif f.wire_type == 2:
            out += tag + encode_varint(len(f.data)) + f.data
        elif f.wire_type == 5:
            out += tag + struct.pack("<I", f.data & 0xFFFFFFFF)
        # wire type 3 (groups) never appears in ONNX files; dropped.
    return bytes(out)


# --- reading -------------------------------------------------------------------------

# Text fields: protobuf hands back bytes for one holding invalid UTF-8 (a
# damaged file). The IR holds str only, with U+FFFD for what was not UTF-8,
# so everything downstream can rely on it; `onnxstudio check` reports the
# file's bytes (text.invalid-utf8). The hot loops test `.__class__ is bytes`
# inline instead of calling as_text on every name.
def _props(entries) -> dict[str, str]:
    return {as_text(e.key): as_text(e.value) for e in entries}


def _present(msg, names) -> frozenset:
    return frozenset(n for n in names if msg.HasField(n))


_EMPTY = frozenset()


def _present_if_empty(np_: pb.NodeProto, node: Node) -> frozenset:
    # Presence only matters for fields whose value is empty; checking just
    # those keeps loading fast (most nodes set none of them explicitly).
    found = None
    for name in ("name", "domain", "doc_string", "overload"):
        if not getattr(node, name) and np_.HasField(name):
            found = (found or set())
            found.add(name)
    return frozenset(found) if found else _EMPTY


class _Reader:
    def __init__(self, make_tensor: TensorFactory):
        self.make_tensor = make_tensor
        # Declarations written from their value, with what each said; once
        # everything is read, settle_declarations keeps the message of those
        # whose value now says something else.
        self.declared: list[tuple] = []

    # attributes ------------------------------------------------------------------

    def decode_attr(self, a: pb.AttributeProto):
        t = a.type
        if t == AttrType.FLOAT:
            return a.f
        if t == AttrType.INT:
            return a.i
        if t == AttrType.STRING:
            return _text(a.s)
        if t == AttrType.TENSOR:
            return self.make_tensor(a.t)
        if t == AttrType.FLOATS:
            return list(a.floats)
        if t == AttrType.INTS:
            return list(a.ints)
        if t == AttrType.STRINGS:
            return [_text(s) for s in a.strings]
        if t == AttrType.TENSORS:
            return [self.make_tensor(x) for x in a.tensors]
        if t == AttrType.SPARSE_TENSOR:
            return self.sparse(a.sparse_tensor)
        if t == AttrType.SPARSE_TENSORS:
            return [self.sparse(x) for x in a.sparse_tensors]
        if t == AttrType.TYPE_PROTO:
            return type_from_proto(a.tp)
        if t == AttrType.TYPE_PROTOS:
            return [type_from_proto(x) for x in a.type_protos]
        return None

    def attr(self, a: pb.AttributeProto, node: Optional[Node], graph_scope: Optional[Graph]) -> Attr:
        # Built without __init__: this runs once per attribute of every node.
        name = a.name
        if name.__class__ is not str:
            name = as_text(name)
        t = a.type
        ref = as_text(a.ref_attr_name)
        value = NOT_DECODED
        if (t == 4 and a.t.data_location == _EXTERNAL) or (t == 9 and any(
                x.data_location == _EXTERNAL for x in a.tensors)) or (t == 11 and _sparse_external(
                a.sparse_tensor)) or (t == 12 and any(_sparse_external(x) for x in a.sparse_tensors)):
            # TENSOR, TENSORS, SPARSE_TENSOR, SPARSE_TENSORS
            # Decoded now, as initializers are: the loader's make_tensor sees
            # every external reference at open (one it cannot follow is kept
            # marked unreadable, and its read names this attribute). A load
            # error of another kind is still said here, naming the attribute.
            where = f"{node.path}/attribute {name!r}" if node is not None else f"attribute {name!r}"
            try:
                value = self.decode_attr(a)
            except LoadError as e:
                raise type(e)(f"{where}: {e}") from None
        if (t == 5 or t == 10) and not ref:   # GRAPH, GRAPHS
            # Subgraphs are built now: their nodes take part in outer values' use lists.
            if t == AttrType.GRAPH:
                value = self.graph(a.g, parent_node=node, attr_name=a.name, scope=graph_scope)
            else:
                value = [self.graph(g, parent_node=node, attr_name=a.name, scope=graph_scope)
                         for g in a.graphs]
        return Attr.as_read(name, t, a, self.decode_attr, value,
                            ref_attr_name=ref, doc_string=as_text(a.doc_string))

    def sparse(self, s: pb.SparseTensorProto) -> SparseTensor:
        return SparseTensor(self.make_tensor(s.values), self.make_tensor(s.indices), tuple(s.dims), s)

    # values and graphs --------------------------------------------------------------

    def _declare(self, g: Graph, kind: str, v: Value, vi: pb.ValueInfoProto) -> None:
        """Declare `v` in `g`'s `kind` list as entry `vi`, which gives the
        value its type, doc and metadata. An entry the writer would not give
        back from its value is kept verbatim (the list's override): one
        declaring another type than the value's own, one whose type the IR
        cannot hold exactly (type_from_proto_exact), and (settle_declarations) one
        whose value another entry describes otherwise."""
        said, exact = type_from_proto_exact(vi.type) if vi.HasField("type") else (None, True)
        if said is not None and v.type is not None and said != v.type:
            g.declare_as_read(kind, v, vi)
            return
        # An output entry saying nothing is no source of the value's (the
        # value_info entry or input declaring it is).
        if said is not None or vi.doc_string or vi.metadata_props or kind != "output":
            if said is not None:
                v.type = said
            if vi.doc_string:
                v.doc_string = as_text(vi.doc_string)
            if vi.metadata_props:
                v.metadata_props = _props(vi.metadata_props)
            v.remember_source(vi)
        items = g.declarations(kind)
        g.declare_as_read(kind, v, None if exact else vi)
        if exact:
            self.declared.append((g, kind, len(items) - 1, vi, v, said, v.doc_string if vi.doc_string else "",
                                  v.metadata_props if vi.metadata_props else None))

    def settle_declarations(self) -> None:
        """Keep verbatim the declarations whose value, now that every entry is
        read, says more or otherwise than they did: an entry without a type
        for a value another entry (or an outer graph) types, a second entry
        whose doc string the value took from the first, say."""
        for g, kind, i, vi, v, said, doc, meta in self.declared:
            if v.type is said and v.doc_string == doc and \
                    (v.metadata_props is meta or (meta is None and not v.metadata_props)):
                continue        # the value is still what this entry made it
            if value_info_to_proto(v) != vi:
                g.set_declaration_override(kind, i, vi)
        self.declared = []

    def graph(self, gp: pb.GraphProto, *, parent_node: Optional[Node] = None, attr_name: str = "",
              scope: Optional[Graph] = None, owner=None) -> Graph:
        g = Graph(as_text(gp.name), owner=owner, parent_node=parent_node, attr_name=attr_name)
        g.doc_string = as_text(gp.doc_string)
        for vi in gp.input:
            v = Value(as_text(vi.name), graph=g)
            self._declare(g, "input", v, vi)
            g.define_as_read(v)
        for tp in gp.initializer:
            name = as_text(tp.name)
            v = g.get_value(name)
            if v is None or v.const is not None:
                v = Value(name, graph=g)
                g.define_as_read(v)
            v.const = self.make_tensor(tp)
            g.add_initializer_as_read(v)    # a repeated name is kept apart, for the checker and the save
        for sp in gp.sparse_initializer:
            name = as_text(sp.values.name)
            v = g.get_value(name)
            if v is None or v.const is not None:
                v = Value(name, graph=g)
                g.define_as_read(v)
            v.const = self.sparse(sp)
            g.add_initializer_as_read(v, sparse=True)
        self._nodes(gp.node, g)
        for vi in gp.output:
            self._declare(g, "output", g.resolve_as_read(as_text(vi.name)), vi)
        for vi in gp.value_info:
            name = as_text(vi.name)
            self._declare(g, "value_info", g.get_value(name) or g.resolve_as_read(name), vi)
        if gp.quantization_annotation:
            g.quantization_annotation = list(gp.quantization_annotation)
        if gp.metadata_props:
            g.metadata_props = _props(gp.metadata_props)
        g.remember_source(gp, _present(gp, ("name", "doc_string")))
        return g

    def _nodes(self, node_protos, g: Graph) -> None:
        append = g.append_as_read
        for np_ in node_protos:
            node = Node.__new__(Node)
            node.op_type = op = np_.op_type
            node.domain = domain = np_.domain
            node.name = name = np_.name
            node.overload = np_.overload
            node.doc_string = np_.doc_string
            if op.__class__ is bytes or domain.__class__ is bytes or name.__class__ is bytes:
                node.op_type, node.domain, node.name = as_text(op), as_text(domain), as_text(name)
            if node.doc_string.__class__ is bytes or node.overload.__class__ is bytes:
                node.doc_string, node.overload = as_text(node.doc_string), as_text(node.overload)
            node.metadata_props = _props(np_.metadata_props) if np_.metadata_props else {}
            node.device_configurations = list(np_.device_configurations) if np_.device_configurations else []
            append(node, np_.input, np_.output, np_, _present_if_empty(np_, node))
            node.attributes = attrs = {}
            for a in np_.attribute:
                at = self.attr(a, node, g)
                attrs[at.name] = at
            if len(attrs) != len(np_.attribute):
                node.remember_repeats(_attribute_repeats(np_.attribute, attrs))

    def function(self, fp: pb.FunctionProto) -> Function:
        f = Function(as_text(fp.domain), as_text(fp.name), as_text(fp.overload))
        f.attributes = [as_text(a) for a in fp.attribute]
        for a in fp.attribute_proto:
            at = self.attr(a, None, None)
            f.attribute_defaults[at.name] = at
        if len(f.attribute_defaults) != len(fp.attribute_proto):
            f.remember_repeats(_attribute_repeats(fp.attribute_proto, f.attribute_defaults))
        f.remember_opsets([(as_text(o.domain), o.version) for o in fp.opset_import])
        f.opset_imports = {canonical_domain(d): v for d, v in f.opsets_as_read}
        f.doc_string = as_text(fp.doc_string)
        if fp.metadata_props:
            f.metadata_props = _props(fp.metadata_props)
        g = f.graph
        for name in fp.input:
            v = Value(as_text(name), graph=g)
            g.declare_as_read("input", v)
            g.define_as_read(v)
        self._nodes(fp.node, g)
        for name in fp.output:
            g.declare_as_read("output", g.resolve_as_read(as_text(name)))
        for vi in fp.value_info:
            name = as_text(vi.name)
            self._declare(g, "value_info", g.get_value(name) or g.resolve_as_read(name), vi)
        f.remember_source(fp, _present(fp, ("name", "domain", "doc_string", "overload")))
        return f


def _attribute_repeats(protos, kept: dict):
    """Attributes a node or function gives more than once; the last of a name
    is the one kept (its source message marks it)."""
    return last_wins(protos, lambda a: as_text(a.name), lambda name, last: kept[name].source)


def _model_repeats(mp: pb.ModelProto, m: Model):
    """Metadata keys (the last value kept) and functions (the first kept)
    the file repeats."""
    metadata = functions = None
    if len(m.metadata_props) != len(mp.metadata_props):
        def kept(key, last):
            m.metadata_props[key] = value = KeptText(m.metadata_props[key])
            return value
        metadata = last_wins(mp.metadata_props, lambda e: as_text(e.key), kept)
    if len(mp.functions) and len(m.functions) != len(mp.functions):
        functions = first_wins(mp.functions, lambda fp: (as_text(fp.domain), as_text(fp.name), as_text(fp.overload)),
                               lambda key, first: first)
    return (metadata, functions) if metadata or functions else None


def _sparse_external(s: pb.SparseTensorProto) -> bool:
    return s.values.data_location == _EXTERNAL or s.indices.data_location == _EXTERNAL


def _text(b: bytes):
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b


def model_from_proto(mp: pb.ModelProto, make_tensor: Optional[TensorFactory] = None,
                     lazy: bool = False) -> Model:
    """IR for `mp`. With `lazy`, the graph and functions are built when first used."""
    r = _Reader(make_tensor or Tensor)
    m = Model(Graph(""), ir_version=mp.ir_version, opset_imports={})
    m.remember_source(mp, _present(mp, ("ir_version", "producer_name", "producer_version", "domain",
                                        "model_version", "doc_string", "graph")))
    m.remember_opsets([(as_text(o.domain), o.version) for o in mp.opset_import],
                      [_present(o, ("domain", "version")) for o in mp.opset_import])
    m.opset_imports = {}
    for d, ver in m.opsets_as_read:
        m.opset_imports.setdefault(canonical_domain(d), ver)
    m.producer_name = as_text(mp.producer_name)
    m.producer_version = as_text(mp.producer_version)
    m.domain = as_text(mp.domain)
    m.model_version = mp.model_version
    m.doc_string = as_text(mp.doc_string)
    m.metadata_props = _props(mp.metadata_props)

    def build(model: Model) -> None:
        model.graph = r.graph(mp.graph, owner=model)
        for fp in mp.functions:
            model.add_function_as_read(r.function(fp))
        r.settle_declarations()
        model.remember_repeats(_model_repeats(mp, model))

    if lazy:
        m.build_on_first_use(build)
    else:
        build(m)
    m.training_info = list(mp.training_info)
    m.configuration = list(mp.configuration)
    return m


# --- writing ----------------------------------------------------------------------------

def _inline_tensor(t: Tensor) -> pb.TensorProto:
    return t.to_proto()


# Attribute types whose value the writer stores its own way (a tensor's data
# inline or external, a body from the IR's graph) instead of copying the
# source message.
_PAYLOAD_FIELD = {AttrType.TENSOR: "t", AttrType.TENSORS: "tensors", AttrType.GRAPH: "g", AttrType.GRAPHS: "graphs",
                  AttrType.SPARSE_TENSOR: "sparse_tensor", AttrType.SPARSE_TENSORS: "sparse_tensors"}
_HOLDS_TENSOR_OR_BODY = frozenset(_PAYLOAD_FIELD)
_SINGULAR = frozenset(("t", "g", "sparse_tensor"))


def _has_content(g) -> bool:
    """Whether a body holds anything (a damaged file's GRAPH attribute
    without one is read as an empty graph)."""
    return g is not None and bool(len(g.nodes) or g.inputs or g.outputs or g.initializers)


class ProtoWriter:
    """Writes IR objects into protobuf messages, one piece at a time: `graph`,
    `node`, `function`, `value_info`, `attr` fill the message given to them.
    model_to_proto uses one for a whole model; the edit script, extract and
    the live checker write single pieces exactly as a saved file would.

    `tensor_proto` decides how each tensor is stored (default: inline);
    `keep_unknown` carries over fields of the source messages our schema does
    not know (as model_to_proto does for a file that had them)."""

    def __init__(self, tensor_proto: Optional[Callable[[Tensor], pb.TensorProto]] = None,
                 keep_unknown: bool = False):
        self.tensor_proto = tensor_proto or _inline_tensor
        self.keep_unknown = keep_unknown
        self.on_bad_value = None   # callable(attr, exc): report instead of raising

    @classmethod
    def for_model(cls, m: Model, tensor_proto: Optional[Callable[[Tensor], pb.TensorProto]] = None,
                  on_bad_value: Optional[Callable] = None) -> "ProtoWriter":
        """The writer model_to_proto uses for `m`."""
        w = cls(tensor_proto or (lambda t: t.to_proto()), has_unknown_fields(m.source))
        w.on_bad_value = on_bad_value
        return w

    def unknown(self, obj, out) -> None:
        """Carry over fields of the source message that our schema does not know."""
        src = obj.source
        if self.keep_unknown and src is not None:
            extra = unknown_bytes(src)
            if extra:
                out.MergeFromString(extra)

    def attr(self, a: Attr, out: pb.AttributeProto) -> None:
        src = a.source
        t = a.type
        if src is not None and (t not in _HOLDS_TENSOR_OR_BODY or
                                (a.ref_attr_name and t in (AttrType.GRAPH, AttrType.GRAPHS))):
            # Unedited, and nothing in it for the writer to store its own way.
            # A reference's body is never built (the reader leaves it: the
            # attribute names the caller's): what the file gave is written.
            out.CopyFrom(src)
            out.name = a.name
            return
        own = _PAYLOAD_FIELD.get(t)
        if src is not None:
            # Only the field of the attribute's own type is the writer's to
            # store; a value the file put in another field (damaged: the
            # checker says so) stays as read.
            out.CopyFrom(src)
            out.ClearField(own)
        else:
            out.name = a.name
            if a.ref_attr_name:
                out.ref_attr_name = a.ref_attr_name
            if a.doc_string:
                out.doc_string = a.doc_string
            if a.type:
                out.type = a.type
        out.name = a.name
        if src is None and a.ref_attr_name:
            return      # a reference made in memory carries no value of its own
        if src is not None and own in _SINGULAR and not src.HasField(own) and \
                not (t == AttrType.GRAPH and _has_content(a.value)):
            # A tensor or body the file did not give (damaged; the checker
            # says so) stays absent: decoding made an empty one. (A body
            # filled in since is written.) A reference the file gave a
            # tensor too keeps it (damaged too).
            return
        v = a.value
        if self.on_bad_value is None:
            self._attr_value(v, t, out)
            return
        try:
            self._attr_value(v, t, out)
        except (ValueError, TypeError, OverflowError, AttributeError) as exc:
            # A value set from Python that its type cannot carry: write the
            # name and type only and let the caller (the checker) say so.
            keep_name, keep_type = out.name, out.type
            out.Clear()
            out.name, out.type = keep_name, keep_type
            self.on_bad_value(a, exc)

    def _attr_value(self, v, t, out: pb.AttributeProto) -> None:
        if t == AttrType.FLOAT:
            out.f = float(v)
        elif t == AttrType.INT:
            out.i = int(v)
        elif t == AttrType.STRING:
            out.s = v.encode("utf-8") if isinstance(v, str) else bytes(v)
        elif t == AttrType.TENSOR:
            out.t.CopyFrom(self.tensor_proto(v))
        elif t == AttrType.GRAPH:
            self.graph(v, out.g)
        elif t == AttrType.FLOATS:
            out.floats.extend(float(x) for x in v)
        elif t == AttrType.INTS:
            out.ints.extend(int(x) for x in v)
        elif t == AttrType.STRINGS:
            out.strings.extend(x.encode("utf-8") if isinstance(x, str) else bytes(x) for x in v)
        elif t == AttrType.TENSORS:
            out.tensors.extend(self.tensor_proto(x) for x in v)
        elif t == AttrType.GRAPHS:
            for sub in v:
                self.graph(sub, out.graphs.add())
        elif t == AttrType.SPARSE_TENSOR:
            out.sparse_tensor.CopyFrom(self.sparse(v))
        elif t == AttrType.SPARSE_TENSORS:
            out.sparse_tensors.extend(self.sparse(x) for x in v)
        elif t == AttrType.TYPE_PROTO:
            type_to_proto(v, out.tp)
        elif t == AttrType.TYPE_PROTOS:
            for x in v:
                type_to_proto(x, out.type_protos.add())

    def sparse(self, s: SparseTensor) -> pb.SparseTensorProto:
        return s.to_proto(self.tensor_proto)

    def value_info(self, v: Value, out: pb.ValueInfoProto) -> None:
        out.name = v.name
        if v.type is not None:
            type_to_proto(v.type, out.type)
        if v.doc_string:
            out.doc_string = v.doc_string
        for k, val in v.metadata_props.items():
            e = out.metadata_props.add()
            e.key, e.value = k, val
        self.unknown(v, out)

    def declarations(self, values, field) -> None:
        """A graph's inputs, outputs or value_info (a DeclarationList): each
        entry kept verbatim as its override, or written from its value."""
        for i, v in enumerate(values):
            override = values.override(i)
            if override is not None:
                field.append(override)
            else:
                self.value_info(v, field.add())

    def node(self, n: Node, out: pb.NodeProto) -> None:
        out.input.extend(v.name if v is not None else "" for v in n.inputs)
        out.output.extend(v.name if v is not None else "" for v in n.outputs)
        present = n.present_fields
        if n.name or "name" in present:
            out.name = n.name
        out.op_type = n.op_type
        if n.domain or "domain" in present:
            out.domain = n.domain
        if n.overload or "overload" in present:
            out.overload = n.overload
        repeats = n.repeats
        for a in n.attributes.values():
            if repeats is not None:
                _write_repeats(repeats.around(a.name, a.source), 0, out.attribute)
            self.attr(a, out.attribute.add())
        if n.doc_string or "doc_string" in present:
            out.doc_string = n.doc_string
        for k, val in n.metadata_props.items():
            e = out.metadata_props.add()
            e.key, e.value = k, val
        out.device_configurations.extend(n.device_configurations)
        self.unknown(n, out)

    def graph(self, g: Graph, out: pb.GraphProto) -> None:
        for n in g.nodes:
            self.node(n, out.node.add())
        for name, v in g.initializers.items():
            out.initializer.append(self.named_tensor(v))
        for v in g.duplicate_initializers:
            out.initializer.append(self.named_tensor(v))
        self.graph_fields(g, out)
        self.unknown(g, out)

    def graph_fields(self, g: Graph, out: pb.GraphProto) -> None:
        """Everything of a graph but its nodes, dense initializers and unknown
        fields (the live checker writes these alone after a header edit)."""
        present = g.present_fields
        if g.name or "name" in present:
            out.name = g.name
        for name, v in g.sparse_initializers.items():
            sp = self.sparse(v.const)
            if sp.values.name != v.name:
                sp.values.name = v.name
            out.sparse_initializer.append(sp)
        if g.doc_string or "doc_string" in present:
            out.doc_string = g.doc_string
        for values, field in ((g.inputs, out.input), (g.outputs, out.output), (g.value_info, out.value_info)):
            self.declarations(values, field)
        out.quantization_annotation.extend(g.quantization_annotation)
        for k, val in g.metadata_props.items():
            e = out.metadata_props.add()
            e.key, e.value = k, val

    def named_tensor(self, v: Value) -> pb.TensorProto:
        """An initializer's TensorProto, named as its value."""
        tp = self.tensor_proto(v.const)
        if tp.name != v.name:
            tp.name = v.name
        return tp

    def function(self, f: Function, out: pb.FunctionProto) -> None:
        present = f.present_fields
        if f.name or "name" in present:
            out.name = f.name
        out.input.extend(v.name for v in f.graph.inputs)
        out.output.extend(v.name for v in f.graph.outputs)
        out.attribute.extend(f.attributes)
        repeats = f.repeats
        for a in f.attribute_defaults.values():
            if repeats is not None:
                _write_repeats(repeats.around(a.name, a.source), 0, out.attribute_proto)
            self.attr(a, out.attribute_proto.add())
        for n in f.graph.nodes:
            self.node(n, out.node.add())
        if f.doc_string or "doc_string" in present:
            out.doc_string = f.doc_string
        for d, ver in _opsets_to_write(f.opsets_as_read, f.opset_imports):
            o = out.opset_import.add()
            o.domain, o.version = d, ver
        if f.domain or "domain" in present:
            out.domain = f.domain
        if f.overload or "overload" in present:
            out.overload = f.overload
        self.declarations(f.graph.value_info, out.value_info)
        for k, val in f.metadata_props.items():
            e = out.metadata_props.add()
            e.key, e.value = k, val
        self.unknown(f, out)


def _write_repeats(found, side: int, field) -> None:
    """The entries a file repeated on `side` (0 before, 1 after) of a kept
    one (repeats.py), as read, into the repeated `field`."""
    if found is not None:
        for entry in found[side]:
            field.add().CopyFrom(entry)


def _opsets_to_write(as_read, resolved: dict) -> list:
    """The file's opset list if it still says the same thing, else the resolved map."""
    if as_read is not None:
        seen = {}
        for d, ver in as_read:
            seen.setdefault(canonical_domain(d), ver)
        if seen == resolved:
            return list(as_read)
    return sorted(resolved.items(), key=lambda kv: (kv[0] != "", kv[0]))


def model_to_proto(m: Model, tensor_proto: Optional[Callable[[Tensor], pb.TensorProto]] = None,
                   on_bad_value: Optional[Callable] = None, writer: Optional[ProtoWriter] = None) -> pb.ModelProto:
    """ModelProto for `m`. `tensor_proto` decides how each tensor is stored
    (serde.save passes one that moves data to external files). An attribute
    whose value its type cannot carry raises, unless `on_bad_value(attr,
    exc)` is given (the checker): then it is written without a value.
    `writer` replaces the ProtoWriter built from those two."""
    w = writer or ProtoWriter.for_model(m, tensor_proto, on_bad_value)
    mp = pb.ModelProto()
    present = m.present_fields
    if m.ir_version or "ir_version" in present:
        mp.ir_version = m.ir_version
    opsets = _opsets_to_write(m.opsets_as_read, m.opset_imports)
    same = m.opsets_as_read is not None and opsets == m.opsets_as_read
    presence = m.opset_presence
    for i, (d, ver) in enumerate(opsets):
        o = mp.opset_import.add()
        flags = presence[i] if same and i < len(presence) else None
        if d or flags is None or "domain" in flags:
            o.domain = d
        if flags is None or "version" in flags:
            o.version = ver
    for field in ("producer_name", "producer_version", "domain", "doc_string"):
        val = getattr(m, field)
        if val or field in present:
            setattr(mp, field, val)
    if m.model_version or "model_version" in present:
        mp.model_version = m.model_version
    if "graph" in present or len(m.graph) or m.graph.inputs or m.graph.outputs or m.graph.name:
        w.graph(m.graph, mp.graph)
    metadata_repeats, function_repeats = m.repeats or (None, None)
    for k, val in m.metadata_props.items():
        if metadata_repeats is not None:
            _write_repeats(metadata_repeats.around(k, val), 0, mp.metadata_props)
        e = mp.metadata_props.add()
        e.key, e.value = k, val
    mp.training_info.extend(m.training_info)
    for f in m.functions.values():
        w.function(f, mp.functions.add())
        if function_repeats is not None:
            _write_repeats(function_repeats.around(f.key, f.source), 1, mp.functions)
    mp.configuration.extend(m.configuration)
    w.unknown(m, mp)
    return mp


def has_unknown_fields(mp: Optional[pb.ModelProto]) -> bool:
    """Whether the file held fields this schema does not know (newer ONNX)."""
    if mp is None:
        return False
    probe = pb.ModelProto()
    probe.CopyFrom(mp)
    probe.DiscardUnknownFields()
    return probe.ByteSize() != mp.ByteSize()


def node_to_proto(node: Node) -> pb.NodeProto:
    """One node exactly as model_to_proto writes it (subgraphs included)."""
    out = pb.NodeProto()
    ProtoWriter().node(node, out)
    return out


def value_info_to_proto(value: Value) -> pb.ValueInfoProto:
    """A value's declaration (name, type, doc, metadata) as a ValueInfoProto."""
    out = pb.ValueInfoProto()
    ProtoWriter().value_info(value, out)
    return out


def graph_to_proto(graph: Graph) -> pb.GraphProto:
    """A graph (a subgraph body, say) exactly as model_to_proto writes it."""
    out = pb.GraphProto()
    ProtoWriter().graph(graph, out)
    return out


def graph_from_proto(gp: pb.GraphProto, make_tensor: Optional[TensorFactory] = None) -> Graph:
    """A stand-alone graph built from `gp` (a body kept in an edit script)."""
    r = _Reader(make_tensor or Tensor)
    g = r.graph(gp)
    r.settle_declarations()
    return g
