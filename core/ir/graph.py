"""Graph, Node, Value and Attr: the in-memory model everything else works on.

Invariants the mutators keep (and the loader establishes):
- every Value knows its producer (or None) and its uses (node, input index),
  including uses by nodes inside subgraphs that capture it from an outer scope
  (inserting or removing a node with bodies, or setting or removing a graph
  attribute, adds or drops those uses here, not in the callers);
- `graph.nodes` is in the order of the file; the mutators refuse changes that
  would break topological order, naming the offending value;
- names resolve in O(1) through each graph's value table, and lexically
  through enclosing graphs (`lookup`).

The IR never stops at invalid input: undefined names become Values without a
producer, duplicate definitions stay as separate Values, so the checker can
report them and the model still saves as it was.
"""
from __future__ import annotations

import enum
import itertools
from typing import TYPE_CHECKING, Iterable, Iterator, Optional, Sequence

from .declarations import KINDS, DeclarationList, InitializerTable
from .text import as_text

if TYPE_CHECKING:  # pragma: no cover
    from .tensor import SparseTensor, Tensor
    from .types import Type


class AttrType(enum.IntEnum):
    UNDEFINED = 0
    FLOAT = 1
    INT = 2
    STRING = 3
    TENSOR = 4
    GRAPH = 5
    FLOATS = 6
    INTS = 7
    STRINGS = 8
    TENSORS = 9
    GRAPHS = 10
    SPARSE_TENSOR = 11
    SPARSE_TENSORS = 12
    TYPE_PROTO = 13
    TYPE_PROTOS = 14


_ATTR_TYPES = {int(t): t for t in AttrType}
_new_object = object.__new__


class IRError(ValueError):
    """A mutation was refused; the message says why and names the values/nodes."""


# The value of an Attr not decoded from its source message yet. Public because
# serde builds Attrs without __init__ (once per attribute of every node).
NOT_DECODED = object()


_NOTHING_PRESENT = frozenset()


class KeepsSource:
    """What an IR object remembers of the file it was read from: the source
    message (so a save carries over fields our schema does not know) and,
    where presence matters, which scalar fields the file set explicitly
    (proto2 presence is part of a message's equality). Serde's reader
    records them with `remember_source`; nothing else changes them."""
    __slots__ = ()

    @property
    def source(self):
        """The message read from the file, or None (built in memory)."""
        return self._src

    @property
    def present_fields(self) -> frozenset:
        """Names of the scalar fields the file set explicitly, even to ""."""
        return getattr(self, "_present", _NOTHING_PRESENT)

    def remember_source(self, source, present: Optional[frozenset] = None) -> None:
        """Serde's reader: `source` is the message this object was read from;
        `present` the scalar fields it set explicitly."""
        self._src = source
        if present is not None:
            self._present = present

    @property
    def repeats(self):
        """Entries of the source message whose key the file repeats, which
        this object's dicts hold once (serde/repeats.py), or None. Nodes,
        functions and models have them; graphs and values never do."""
        return getattr(self, "_repeats", None)

    def remember_repeats(self, repeats) -> None:
        """Serde's reader: what `repeats` says."""
        self._repeats = repeats


class Attr:
    """A node attribute. Its value is decoded from the file on first access."""
    __slots__ = ("name", "_type", "_value", "ref_attr_name", "doc_string", "_proto", "_decode")

    def __init__(self, name: str, type: int, value=NOT_DECODED, *, ref_attr_name: str = "",  # noqa: A002  (ONNX's field)
                 doc_string: str = "", _proto=None, _decode=None):
        self.name = name
        self._type = type
        self._value = value
        self.ref_attr_name = ref_attr_name
        self.doc_string = doc_string
        self._proto = _proto      # source message while unedited (lossless save)
        self._decode = _decode    # callable(proto) -> value, for lazy decoding

    @classmethod
    def as_read(cls, name: str, type: int, source, decode, value=NOT_DECODED, *,  # noqa: A002
                ref_attr_name: str = "", doc_string: str = "") -> "Attr":
        """Serde's reader: an attribute read from `source`, its value decoded
        by `decode(source)` on first access unless given (a body is built
        at once: its nodes take part in outer values' use lists)."""
        at = _new_object(cls)       # without __init__: once per attribute of every node
        at.name, at._type, at._value = name, type, value
        at.ref_attr_name, at.doc_string = ref_attr_name, doc_string
        at._proto, at._decode = source, decode
        return at

    @property
    def source(self):
        """The message read from the file while the attribute is unedited, else None."""
        return self._proto

    @property
    def type(self) -> int:
        """An AttrType member (a plain int for codes this version does not know)."""
        return _ATTR_TYPES.get(self._type, self._type)

    @property
    def value(self):
        if self._value is NOT_DECODED:
            self._value = self._decode(self._proto) if self._decode and self._proto is not None else None
        return self._value

    @value.setter
    def value(self, v) -> None:
        self._value = v
        self._proto = None

    def is_unedited(self) -> bool:
        return self._proto is not None

    def copy(self) -> "Attr":
        return Attr(self.name, self._type, self._value, ref_attr_name=self.ref_attr_name,
                    doc_string=self.doc_string, _proto=self._proto, _decode=self._decode)

    def __repr__(self) -> str:
        if self.ref_attr_name:
            return f"Attr({self.name!r} -> @{self.ref_attr_name})"
        return f"Attr({self.name!r}, {getattr(self.type, 'name', self._type)}, {self.value!r})"


class Value(KeepsSource):
    """A named value: graph input, initializer, or output of one node."""
    __slots__ = ("name", "type", "producer", "_uses", "graph", "const", "doc_string",
                 "metadata_props", "_src", "__weakref__")

    def __init__(self, name: str, type: "Optional[Type]" = None, *, graph: "Optional[Graph]" = None):  # noqa: A002
        self.name = name
        self.type = type
        self.producer: Optional[Node] = None
        self._uses: list[tuple[Node, int]] = []
        self.graph = graph
        self.const: "Optional[Tensor | SparseTensor]" = None
        self.doc_string = ""
        self.metadata_props: dict[str, str] = {}
        self._src = None   # message read from the file (for unknown fields)

    @property
    def uses(self) -> list[tuple["Node", int]]:
        return list(self._uses)

    @property
    def has_uses(self) -> bool:
        """True when any node (inside a body too) reads this value."""
        return bool(self._uses)

    def iter_uses(self) -> Iterator[tuple["Node", int]]:
        """The (node, input index) pairs of `uses` without a copy, for hot
        loops that only read: do not change the graph while iterating."""
        return iter(self._uses)

    @property
    def consumers(self) -> list["Node"]:
        seen, out = set(), []
        for n, _ in self._uses:
            if id(n) not in seen:
                seen.add(id(n))
                out.append(n)
        return out

    @property
    def is_graph_input(self) -> bool:
        return self.graph is not None and self in self.graph.inputs

    @property
    def is_graph_output(self) -> bool:
        return self.graph is not None and self in self.graph.outputs

    @property
    def is_initializer(self) -> bool:
        return self.const is not None

    @property
    def own_type(self) -> "Optional[Type]":
        """The declared type, else the tensor type an initializer's data
        fixes (files often leave initializers undeclared); None when neither.
        Unlike an inferred type it is known before any analysis has run."""
        if self.type is not None or self.const is None:
            return self.type
        # Imported here: graph.py keeps protobuf (which tensor.py reads) off its import path.
        from .tensor import SparseTensor  # noqa: PLC0415
        from .types import TensorType  # noqa: PLC0415
        c = self.const
        if isinstance(c, SparseTensor):
            return TensorType(c.values.dtype, tuple(c.dims))
        return TensorType(c.dtype, tuple(c.shape))

    @property
    def shape(self):
        return getattr(self.type, "shape", None)

    @property
    def elem_type(self) -> int:
        return getattr(self.type, "elem_type", 0)

    def replace_all_uses_with(self, other: "Value") -> None:
        """Make every consumer (and graph output slot) read `other` instead."""
        if other is self:
            return
        for node, i in list(self._uses):
            node.replace_input(i, other)
        if self.graph is not None:
            self.graph.replace_declared("output", self, other)

    def __repr__(self) -> str:
        return f"Value({self.name!r}, {self.type})" if self.type is not None else f"Value({self.name!r})"


class Node(KeepsSource):
    """One operator call. Create it detached, then add it with a Graph mutator."""
    __slots__ = ("op_type", "domain", "name", "overload", "_inputs", "_outputs", "attributes",
                 "graph", "doc_string", "metadata_props", "device_configurations", "_src",
                 "_index", "_present", "_repeats", "__weakref__")

    def __init__(self, op_type: str, inputs: Sequence[Optional[Value]] = (),
                 outputs: Sequence[Optional[Value]] = (), attributes: Iterable[Attr] | dict = (),
                 *, domain: str = "", name: str = "", overload: str = "", doc_string: str = ""):
        self.op_type = op_type
        self.domain = domain
        self.name = name
        self.overload = overload
        self._inputs: list[Optional[Value]] = []
        self._outputs: list[Optional[Value]] = []
        if isinstance(attributes, dict):
            attributes = attributes.values()
        self.attributes: dict[str, Attr] = {a.name: a for a in attributes}
        self.graph: Optional[Graph] = None
        self.doc_string = doc_string
        self.metadata_props: dict[str, str] = {}
        self.device_configurations: list = []
        self._src = None   # message read from the file (for unknown fields)
        self._index = -1
        self._present = frozenset()
        self._repeats = None
        for v in inputs:
            self._inputs.append(v)
            if v is not None:
                v._uses.append((self, len(self._inputs) - 1))
        for v in outputs:
            if v is not None:
                if v.producer is not None and v.producer is not self:
                    raise IRError(f"value {v.name!r} is already produced by node {v.producer.display_name}")
                v.producer = self
            self._outputs.append(v)

    # -- views ---------------------------------------------------------------------

    @property
    def inputs(self) -> tuple[Optional[Value], ...]:
        return tuple(self._inputs)

    @property
    def outputs(self) -> tuple[Optional[Value], ...]:
        return tuple(self._outputs)

    @property
    def display_name(self) -> str:
        return f'{self.op_type} "{self.name}"' if self.name else self.op_type

    @property
    def index(self) -> int:
        """Position in graph.nodes (-1 when detached), kept current lazily."""
        g = self.graph
        if g is None:
            return -1
        if g._indices_dirty:
            g._refresh_indices()
        return self._index

    @property
    def path(self) -> str:
        base = self.graph.path if self.graph is not None else "(detached)"
        return f"{base}/node[{self.index}] {self.display_name}"

    def attr(self, name: str, default=None):
        a = self.attributes.get(name)
        return default if a is None else a.value

    def subgraphs(self) -> list[tuple[str, "Graph"]]:
        out = []
        for a in self.attributes.values():
            if a.type == AttrType.GRAPH and a.value is not None:
                out.append((a.name, a.value))
            elif a.type == AttrType.GRAPHS:
                out.extend((a.name, g) for g in a.value or ())
        return out

    # -- mutators --------------------------------------------------------------------

    def replace_input(self, index: int, value: Optional[Value]) -> None:
        old = self._inputs[index]
        if old is value:
            return
        if value is not None and self.graph is not None:
            self.graph._check_defined_before(value, self)
        if old is not None:
            old._uses.remove((self, index))
        self._inputs[index] = value
        if value is not None:
            value._uses.append((self, index))

    def set_inputs(self, values: Sequence[Optional[Value]]) -> None:
        for i in range(len(self._inputs) - 1, -1, -1):
            self.replace_input(i, None)
        self._inputs = []
        for v in values:
            self._inputs.append(None)
            self.replace_input(len(self._inputs) - 1, v)

    _FIELDS = ("name", "op_type", "domain", "overload", "doc_string")

    def set_field(self, field: str, value: str) -> None:
        """Set name, op_type, domain, overload or doc_string (text; op_type not empty)."""
        if field not in self._FIELDS:
            raise IRError(f"a node has no field {field!r} (one of {', '.join(self._FIELDS)})")
        if not isinstance(value, str):
            raise IRError(f"node {field} must be text, not {type(value).__name__}")
        if field == "op_type" and not value:
            raise IRError(f"{self.path}: op_type cannot be empty")
        setattr(self, field, value)

    def set_attribute(self, attr: "Attr", position: Optional[int] = None) -> Optional[tuple["Attr", int]]:
        """Add or replace `attr`; returns what it replaced as (Attr, position).
        A replaced attribute keeps its place; a new one goes last or to
        `position`. Subgraph bodies are attached: their reads of outer values
        join those values' use lists (and the old body's leave them)."""
        old = self.remove_attribute(attr.name) if attr.name in self.attributes else None
        if old is not None and position is None:
            position = old[1]
        if position is None or position >= len(self.attributes):
            self.attributes[attr.name] = attr
        else:
            items = list(self.attributes.items())
            items.insert(position, (attr.name, attr))
            self.attributes.clear()
            self.attributes.update(items)
        attach_bodies(self, attr)
        return old

    def remove_attribute(self, name: str) -> tuple["Attr", int]:
        """Remove attribute `name`; returns it with its position."""
        if name not in self.attributes:
            raise IRError(f'{self.path}: no attribute "{name}"')
        position = list(self.attributes).index(name)
        attr = self.attributes.pop(name)
        detach_bodies(self, attr)
        return attr, position

    def detach_inputs(self) -> None:
        """Drop this node's entries from its inputs' use lists: for a node
        built (the constructor records its uses) and then never inserted."""
        for i, v in enumerate(self._inputs):
            if v is not None:
                v._uses.remove((self, i))

    def __repr__(self) -> str:
        ins = ", ".join(v.name if v is not None else "" for v in self._inputs)
        outs = ", ".join(v.name if v is not None else "" for v in self._outputs)
        return f"Node({self.display_name}: ({ins}) -> ({outs}))"


class Graph(KeepsSource):
    """A list of nodes in topological order with its inputs, outputs and constants."""

    def __init__(self, name: str = "", *, owner=None, parent_node: Optional[Node] = None,
                 attr_name: str = ""):
        self.name = name
        self.doc_string = ""
        self._inputs = DeclarationList("input")
        self._outputs = DeclarationList("output")
        self._value_info = DeclarationList("value_info")
        self._initializers = InitializerTable()
        self._sparse_initializers = InitializerTable()
        self.quantization_annotation: list = []   # protobuf messages, kept as read
        self.metadata_props: dict[str, str] = {}
        self.owner = owner                  # Model or Function (top-level graphs)
        self.parent_node = parent_node      # the node whose attribute holds this body
        self.attr_name = attr_name
        self._nodes: list[Node] = []
        self._nodes_tuple: Optional[tuple] = None   # what `nodes` returns until the list changes
        self._values: dict[str, Value] = {}
        self._indices_dirty = False
        self._src = None   # message read from the file (for unknown fields)
        self._present: frozenset = frozenset()
        # Initializers repeating a name (invalid, kept for the checker and a
        # lossless save); read through duplicate_initializers.
        self._dup_initializers: list[Value] = []
        # This top-level graph and every body below it, once asked for by a
        # name check (value_name_in_use runs per edit of a long script);
        # None when unknown. attach_bodies/detach_bodies reset it.
        self._graphs_below: Optional[tuple] = None

    # -- declarations and constants (read-only containers: see declarations.py) ----------

    @property
    def inputs(self) -> DeclarationList:
        return self._inputs

    @property
    def outputs(self) -> DeclarationList:
        return self._outputs

    @property
    def value_info(self) -> DeclarationList:
        """Values with a type declared in a value_info entry."""
        return self._value_info

    @property
    def initializers(self) -> InitializerTable:
        return self._initializers

    @property
    def sparse_initializers(self) -> InitializerTable:
        return self._sparse_initializers

    @property
    def duplicate_initializers(self) -> tuple[Value, ...]:
        """Initializers whose name an earlier one has (invalid; kept so the
        checker can name them and the file saves as it was)."""
        return tuple(self._dup_initializers)

    def declarations(self, kind: str) -> DeclarationList:
        """The inputs, outputs or value_info (`kind` is one of KINDS)."""
        if kind == "input":
            return self._inputs
        if kind == "output":
            return self._outputs
        if kind == "value_info":
            return self._value_info
        raise IRError(f"no declaration list {kind!r} (one of {', '.join(KINDS)})")

    # -- structure -----------------------------------------------------------------------

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The nodes in order: a tuple made once per change of the node list
        (so reading it in a loop costs no copy, and it stays as it was when
        the graph changes while someone iterates it)."""
        t = self._nodes_tuple
        if t is None:
            t = self._nodes_tuple = tuple(self._nodes)
        return t

    @property
    def parent_graph(self) -> Optional["Graph"]:
        return self.parent_node.graph if self.parent_node is not None else None

    @property
    def path(self) -> str:
        if self.parent_node is not None:
            return f'{self.parent_node.path}/attribute "{self.attr_name}"'
        owner = self.owner
        if owner is not None and getattr(owner, "is_function", False):
            return f'functions/"{owner.name}"'
        return "graph"

    def values(self) -> dict[str, Value]:
        """Every value defined or referenced in this graph, by name (a copy)."""
        return dict(self._values)

    def get_value(self, name: str) -> Optional[Value]:
        return self._values.get(name)

    def lookup(self, name: str) -> Optional[Value]:
        g: Optional[Graph] = self
        while g is not None:
            v = g._values.get(name)
            if v is not None and (v.producer is not None or v.const is not None or v.is_graph_input
                                  or g.parent_graph is None):
                return v
            g = g.parent_graph
        return None

    def walk(self) -> Iterator["Graph"]:
        """This graph and every subgraph below it, depth first."""
        yield self
        for node in self._nodes:
            attrs = node.attributes
            # Most nodes have no attributes, and few hold a graph: test the
            # type codes inline (this runs for every node of every walk).
            if attrs and any(a._type == 5 or a._type == 10 for a in attrs.values()):
                for _, sub in node.subgraphs():
                    yield from sub.walk()

    def all_nodes(self) -> Iterator[Node]:
        for g in self.walk():
            yield from g._nodes

    def find_node(self, name: str) -> Optional[Node]:
        for n in self._nodes:
            if n.name == name:
                return n
        return None

    def _refresh_indices(self) -> None:
        if self._indices_dirty:
            for i, n in enumerate(self._nodes):
                n._index = i
            self._indices_dirty = False

    # -- names --------------------------------------------------------------------------

    def value_name_in_use(self, name: str) -> bool:
        """True when a value of the enclosing top-level graph (or any graph
        below it) is called `name`."""
        return any(name in g._values for g in self.root()._all_graphs())

    def unique_name(self, base: str) -> str:
        """A value/node name not used anywhere in the enclosing top-level graph."""
        graphs = self.root()._all_graphs()
        node_names = None

        def taken(name: str) -> bool:
            nonlocal node_names
            if any(name in g._values for g in graphs):
                return True
            if node_names is None:      # built only when the value names leave it open
                node_names = {n.name for g in graphs for n in g._nodes}
            return name in node_names
        if base and not taken(base):
            return base
        for i in itertools.count(1):
            cand = f"{base}_{i}"
            if not taken(cand):
                return cand
        raise AssertionError("unreachable")

    def _all_graphs(self) -> tuple:
        """This graph and every subgraph below it, as `walk()` gives them,
        kept between calls: a walk visits every node to find the bodies,
        and an edit script's steps check names thousands of times (half of
        the 18 s a 3,000-node model's diff script took went to these walks).
        Attaching or detaching a body anywhere below resets it; a kept
        graph found detached since makes it walk again."""
        kept = self._graphs_below
        if kept is not None and all(g is self or g.root() is self for g in kept):
            return kept
        kept = self._graphs_below = tuple(self.walk())
        return kept

    def root(self) -> "Graph":
        """The top-level graph (a model's or function's) this graph is in."""
        g = self
        while g.parent_graph is not None:
            g = g.parent_graph
        return g

    # -- value table ----------------------------------------------------------------------

    def _register(self, value: Value) -> None:
        value.graph = self
        existing = self._values.get(value.name)
        if existing is None or (existing.producer is None and existing.const is None
                                and not existing.is_graph_input and not existing._uses):
            self._values[value.name] = value

    def add_input(self, value: Value) -> Value:
        """Append `value` to the graph inputs (insert_declaration at the end)."""
        self.insert_declaration("input", len(self._inputs), value)
        return value

    def add_initializer(self, value: Value, index: Optional[int] = None, *, sparse: bool = False) -> Value:
        """Add `value` (its `const` set) as a dense or sparse initializer, at
        position `index` of the table (default: last)."""
        existing = self._values.get(value.name)
        if existing is not None and existing is not value:
            raise IRError(f"{self.path}: a value named {value.name!r} already exists")
        if value.const is None:
            raise IRError(f"initializer {value.name!r} has no tensor")
        table = self._sparse_initializers if sparse else self._initializers
        if value.name in table:
            raise IRError(f"{self.path}: initializer {value.name!r} already exists")
        self._register(value)
        self._values[value.name] = value
        table._add(value, index)
        return value

    # -- building from a file (serde's reader) -------------------------------------------
    # A file may break the invariants the mutators keep (a repeated name, an
    # entry declared twice): the reader keeps what it read, so the checker
    # can name it and the model saves as it was. Nothing else calls these.

    def define_as_read(self, value: Value) -> Value:
        """Enter `value` in the value table unless its name is there already
        (a repeated definition stays out of it: the checker names it);
        returns the value the name now stands for."""
        return self._values.setdefault(value.name, value)

    def resolve_as_read(self, name: str) -> Value:
        """The value `name` stands for here (lexical scope), or a new
        undefined one entered in this graph's table (the checker names it)."""
        v = self.lookup(name)
        if v is None:
            v = self._values.get(name)
        if v is None:
            v = self._values[name] = Value(name, graph=self)
        return v

    def append_as_read(self, node: Node, input_names, output_names, source, present: frozenset) -> None:
        """Append `node` (built without __init__, its fields set by the
        reader; attributes next) as the file has it, unchecked: reading the
        values `input_names` stand for ("" an omitted input; bytes taken as
        UTF-8), producing new values named `output_names` (a name defined
        already gets a Value of its own, left out of the table: the
        checker names the repeat), read from message `source` with the
        scalar fields `present`. Runs once per node of a file: the loops
        are written out."""
        values = self._values
        ins = []
        for j, name in enumerate(input_names):
            if name.__class__ is bytes:
                name = as_text(name)
            if name:
                v = values.get(name) or self.resolve_as_read(name)
                v._uses.append((node, j))
                ins.append(v)
            else:
                ins.append(None)        # an omitted optional input
        outs = []
        for name in output_names:
            if not name:
                outs.append(None)
                continue
            if name.__class__ is bytes:
                name = as_text(name)
            v = values.get(name)
            if v is None or v.producer is not None or v.const is not None or \
                    (v.graph is self and v in self._inputs):
                nv = Value(name, graph=self)
                if v is None:
                    values[name] = nv
                v = nv
            v.producer = node       # now: a name the node repeats gets a Value of its own
            outs.append(v)
        nodes = self._nodes
        node.graph, node._index, node._inputs, node._outputs = self, len(nodes), ins, outs
        node._src, node._present, node._repeats = source, present, None
        nodes.append(node)
        self._nodes_tuple = None

    def declare_as_read(self, kind: str, value: Value, override=None) -> None:
        """Append a declaration as read, unchecked; the caller has put the
        value in the value table (or left a repeated name out of it)."""
        items = self.declarations(kind)
        items._insert(len(items), value, override)

    def add_initializer_as_read(self, value: Value, *, sparse: bool = False) -> None:
        """Append an initializer as read (its `const` set). A dense one
        repeating a name is kept apart (`duplicate_initializers`); a sparse
        one repeating a name takes its place, as it always did."""
        value.graph = self
        self._values.setdefault(value.name, value)
        if not sparse and value.name in self._initializers:
            self._dup_initializers.append(value)
        else:
            (self._sparse_initializers if sparse else self._initializers)._add(value)

    def remove_initializer(self, name: str, *, sparse: bool = False) -> Value:
        table = self._sparse_initializers if sparse else self._initializers
        v = table.get(name)
        if v is None:
            raise IRError(f"{self.path}: no initializer named {name!r}")
        if (v._uses or v.is_graph_output) and not v.is_graph_input:
            raise IRError(f"initializer {name!r} is still used by " + _users(v))
        table._remove(name)
        if not v.is_graph_input:
            self._values.pop(name, None)
        v.const = None
        return v

    def rename_value(self, value: Value, new_name: str) -> None:
        if new_name == value.name:
            return
        if new_name in self._values:
            raise IRError(f"{self.path}: the name {new_name!r} is already used")
        old = value.name
        if self._values.get(old) is value:
            del self._values[old]
        value.name = new_name
        self._values[new_name] = value
        if self._initializers.get(old) is value:
            self._initializers._rename(old, new_name)
            if value.const is not None:
                value.const.name = new_name
        if self._sparse_initializers.get(old) is value:
            self._sparse_initializers._rename(old, new_name)
            value.const.values.name = new_name
        # Declarations kept verbatim carry the name too.
        for (kind, i), msg in self.declaration_overrides_of(value).items():
            if msg.name == old:
                renamed = type(msg)()
                renamed.CopyFrom(msg)
                renamed.name = new_name
                self.declarations(kind)._set_override(i, renamed)

    # -- node mutators ---------------------------------------------------------------------

    def _check_defined_before(self, value: Value, node: Node) -> None:
        if value.producer is None or value.producer.graph is not self or node.graph is not self:
            return
        self._refresh_indices()
        if value.producer._index >= node._index:
            raise IRError(f"{value.name!r} is produced by {value.producer.display_name}, which comes "
                          f"after {node.display_name}: the graph would no longer be in topological order")

    def insert_at(self, pos: int, node: Node) -> Node:
        """Insert the detached `node` at position `pos` of the node list;
        refused (IRError, before the node list changes) when that breaks
        topological order or an output name is defined here already. A node
        `remove` took out comes back whole: the very same Node and output
        Values, with its inputs' and its bodies' uses."""
        if node.graph is not None:
            raise IRError(f"node {node.display_name} already belongs to a graph")
        for v in node._inputs:
            if v is None:
                continue
            if v.producer is not None and v.producer.graph is self:
                self._refresh_indices()
                if v.producer._index >= pos:
                    raise IRError(f"input {v.name!r} of {node.display_name} is produced by "
                                  f"{v.producer.display_name}, which would come later")
            elif v.producer is None and self.lookup(v.name) is None and v.name not in self._values:
                self._register(v)
        for v in node._outputs:
            if v is None:
                continue
            if v.name in self._values and self._values[v.name] is not v:
                other = self._values[v.name]
                if other.producer is not None or other.const is not None or other.is_graph_input:
                    raise IRError(f"output {v.name!r} of {node.display_name} is already defined in {self.path}")
            for user, _ in v._uses:
                if user.graph is self:
                    self._refresh_indices()
                    if user._index < pos:
                        raise IRError(f"output {v.name!r} of {node.display_name} is used by "
                                      f"{user.display_name}, which would come earlier")
        self._nodes.insert(pos, node)
        self._nodes_tuple = None
        node.graph = self
        for v in node._outputs:
            if v is not None:
                self._values[v.name] = v
                v.graph = self
        self._indices_dirty = True
        if pos == len(self._nodes) - 1:
            node._index = pos
        # The bodies' reads of outer values join those values' use lists
        # (after node.graph is set: binding names looks through the node).
        for a in node.attributes.values():
            attach_bodies(node, a)
        for i, v in enumerate(node._inputs):
            # A node built by its constructor has these uses already, last in
            # the lists (found at once); one `remove` took out gets them back.
            if v is not None and (node, i) not in reversed(v._uses):
                v._uses.append((node, i))
        return node

    def append(self, node: Node) -> Node:
        return self.insert_at(len(self._nodes), node)

    def insert_before(self, anchor: Node, node: Node) -> Node:
        return self.insert_at(anchor.index, node)

    def insert_after(self, anchor: Node, node: Node) -> Node:
        return self.insert_at(anchor.index + 1, node)

    def remove(self, node: Node, *, force: bool = False) -> None:
        """Remove `node`. Refuses while its outputs are used (names the users)
        unless `force`, which is for compound edits that re-wire afterwards.
        The node's own inputs and its bodies' reads of outer values leave
        those values' use lists (`insert_at` puts them back)."""
        if node.graph is not self:
            raise IRError(f"{node.display_name} is not in {self.path}")
        if not force:
            blocked = [v for v in node._outputs if v is not None and (v._uses or v.is_graph_output)]
            if blocked:
                parts = []
                for v in blocked:
                    who = [u.display_name for u in v.consumers]
                    if v.is_graph_output:
                        who.append("the graph outputs")
                    parts.append(f"{v.name!r} (used by {', '.join(who)})")
                raise IRError(f"cannot remove {node.display_name}: its outputs are still used: " + "; ".join(parts))
        node.detach_inputs()
        for a in node.attributes.values():
            detach_bodies(node, a)
        self._refresh_indices()
        del self._nodes[node._index]
        self._nodes_tuple = None
        for v in node._outputs:
            if v is not None and self._values.get(v.name) is v and not v._uses and not v.is_graph_output:
                del self._values[v.name]
        node.graph = None
        node._index = -1
        self._indices_dirty = True

    def set_node_outputs(self, node: Node, values: Sequence[Optional[Value]]) -> None:
        """Replace `node`'s outputs. Outputs dropped must be unused; new ones
        must not name a value defined here already."""
        keep = {id(v) for v in values if v is not None}
        for v in node._outputs:
            if v is not None and id(v) not in keep and (v._uses or v.is_graph_output):
                raise IRError(f"output {v.name!r} of {node.display_name} is still used by {_users(v)}")
        for v in values:
            if v is None or any(v is o for o in node._outputs):
                continue
            other = self._values.get(v.name)
            if v.producer is not None or (other is not None and other is not v and
                                          (other.producer is not None or other.const is not None
                                           or other.is_graph_input or other._uses)):
                raise IRError(f"output {v.name!r} of {node.display_name} is already defined in {self.path}")
        for v in node._outputs:
            if v is not None and id(v) not in keep:
                v.producer = None
                if self._values.get(v.name) is v:
                    del self._values[v.name]
        node._outputs = list(values)
        for v in node._outputs:
            if v is not None:
                v.producer = node
                v.graph = self
                self._values[v.name] = v

    def reorder(self, order: Sequence[int]) -> None:
        """Put the nodes in the order `order` (a permutation of positions).
        The caller checks the result is what it wants (toposort does)."""
        if sorted(order) != list(range(len(self._nodes))):
            raise IRError(f"{self.path}: {list(order)} is not an order of {len(self._nodes)} nodes")
        self._nodes[:] = [self._nodes[i] for i in order]
        self._nodes_tuple = None
        self._indices_dirty = True

    # -- declarations: graph inputs, outputs, value_info ---------------------------------------
    # An entry's verbatim ValueInfo (an "override") lives beside it in its
    # DeclarationList and moves with it.

    def insert_declaration(self, kind: str, index: int, value: Value, override=None, *,
                           repeat: bool = False) -> None:
        """Insert `value` into the graph's inputs, outputs or value_info at
        `index`, with the ValueInfo message to write for it verbatim (or
        None: written from the value). A new input joins the value table;
        its name must be free. With `repeat`, `value` is an input the value
        table does not hold (a damaged file's second declaration of a name,
        put back by undo): it stays out of the table, as the reader left it."""
        items = self.declarations(kind)
        if not 0 <= index <= len(items):
            raise IRError(f"{self.path}: position {index} is outside the {len(items)} {kind}s")
        if repeat:
            if kind != "input" or self._values.get(value.name) is value:
                raise IRError(f"{self.path}: {value.name!r} is no repeated input declaration")
            value.graph = self
        elif kind == "input":
            other = self._values.get(value.name)
            if other is not None and other is not value:
                raise IRError(f"{self.path}: a value named {value.name!r} already exists")
            self._register(value)
            self._values[value.name] = value
        items._insert(index, value, override)

    def remove_declaration(self, kind: str, index: int):
        """Take entry `index` out of the inputs, outputs or value_info; returns
        (value, override message or None). A graph input still read by nodes
        (and not an initializer) is refused."""
        items = self.declarations(kind)
        if not 0 <= index < len(items):
            raise IRError(f"{self.path}: no {kind} at position {index}")
        value = items[index]
        if kind == "input" and value.const is None and value._uses:
            raise IRError(f"{self.path}: input {value.name!r} is still used by {_users(value)}")
        value, override = items._pop(index)
        if kind == "input" and value.const is None and self._values.get(value.name) is value \
                and not value.is_graph_output and value not in self._inputs:
            del self._values[value.name]
        return value, override

    def move_declaration(self, kind: str, index: int, new_index: int) -> None:
        """Move entry `index` (with its verbatim message) to `new_index`. A
        used input may move: it stays an input throughout."""
        items = self.declarations(kind)
        if not 0 <= index < len(items) or not 0 <= new_index < len(items):
            raise IRError(f"{self.path}: cannot move {kind} {index} to {new_index}: "
                          f"there are {len(items)}")
        value, override = items._pop(index)
        items._insert(new_index, value, override)

    def replace_declared(self, kind: str, old: Value, new: Value) -> None:
        """Every entry of `kind` holding `old` holds `new` instead (its
        verbatim message dropped: it described `old`)."""
        items = self.declarations(kind)
        if old in items:
            for i, v in enumerate(list(items)):
                if v is old:
                    items._replace(i, new)

    def declaration_override(self, kind: str, index: int):
        return self.declarations(kind).override(index)

    def set_declaration_override(self, kind: str, index: int, override) -> None:
        """Set (or with None drop) the verbatim ValueInfo written for one entry."""
        self.declarations(kind)._set_override(index, override)

    def declaration_overrides_of(self, value: Value) -> dict:
        """{(kind, position): verbatim message} of the entries holding `value`."""
        out = {}
        for kind in KINDS:
            items = self.declarations(kind)
            if value in items:
                out.update(((kind, i), m) for i, m in items.overrides() if items[i] is value)
        return out

    def __len__(self) -> int:
        return len(self._nodes)

    def __repr__(self) -> str:
        return f"Graph({self.name!r}, {len(self._nodes)} nodes)"


# Subgraph bodies (If/Loop/Scan attributes) attached to or detached from a
# node: their reads of outer values join or leave those values' use lists.
# Here rather than in a module of their own because they keep the private
# state of Value, Node and Graph (_uses, _inputs, _values) right.


def _bodies(attr):
    if attr.ref_attr_name:
        return []
    if attr.type == AttrType.GRAPH and attr.value is not None:
        return [attr.value]
    if attr.type == AttrType.GRAPHS:
        return list(attr.value or ())
    return []


def outer_uses(body: Graph) -> Iterator[tuple[Node, int, Value]]:
    """(node, input index, value) for every input read inside `body` (nested
    bodies included) whose value is not defined in `body` or below it.

    Scoped by graph, not by name: a body that defines a value with the same
    name as an outer one still reads the outer one where its nodes point at
    it. A value attached to no graph counts as outside (it is defined
    nowhere in the body)."""
    inside = {id(g) for g in body.walk()}
    for g in body.walk():
        for n in g.nodes:
            for i, v in enumerate(n.inputs):
                if v is not None and id(v.graph) not in inside:
                    yield n, i, v


def detach_bodies(node, attr) -> None:
    bodies = _bodies(attr)
    if bodies:
        _bodies_moved(node)
    for body in bodies:
        for n, i, v in outer_uses(body):
            if (n, i) in v._uses:
                v._uses.remove((n, i))


def _bodies_moved(node) -> None:
    """A body was attached to or detached from `node`: the graphs below its
    top-level graph are to be found again."""
    g = node.graph
    while g is not None:            # each graph up to the top: a body detached later asks for its own
        g._graphs_below = None
        g = g.parent_graph


def _defined(v) -> bool:
    return v.producer is not None or v.const is not None or v.is_graph_input


def _bind_outer_names(node, body) -> None:
    """A body built on its own (from an edit script) reads outer values
    through placeholder Values of its own; make it read the real ones."""
    outer = node.graph
    if outer is None:
        return
    for g in body.walk():
        for name, v in list(g._values.items()):
            if _defined(v):
                continue
            h, shadowed = g.parent_graph, False
            while h is not None and h is not outer and not shadowed:
                shadowed = name in h._values and _defined(h._values[name])
                h = h.parent_graph
            real = None if shadowed else outer.lookup(name)
            if real is None or real is v:
                continue
            for n, i in list(v._uses):
                n._inputs[i] = real
            v._uses.clear()
            g.replace_declared("output", v, real)
            del g._values[name]


def attach_bodies(node, attr) -> None:
    bodies = _bodies(attr)
    if bodies:
        _bodies_moved(node)
    for body in bodies:
        body.parent_node = node
        body.attr_name = attr.name
        _bind_outer_names(node, body)
        for n, i, v in outer_uses(body):
            if (n, i) not in v._uses:
                v._uses.append((n, i))


def _users(v: Value) -> str:
    return ", ".join(n.display_name for n in v.consumers) or "the graph outputs"
