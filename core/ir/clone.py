"""Copies of IR objects: a whole model (`Model.clone`) or chosen parts of a
graph (`extract_model` builds its graph this way).

A copy has its own Graphs, Nodes, Values and Attrs (bodies and functions
included), so editing it leaves the original alone; weights are shared:
an initializer's Tensor is a new wrapper around the same bytes, array and
source message, and tensor-valued attributes share their Tensor (edits
replace an Attr, they never change its tensor). Source messages kept for a
lossless save are shared too: the IR reads them and never changes them.
"""
from __future__ import annotations

from typing import Iterable, Optional

from .. import gc_policy
from .declarations import FunctionTable
from .graph import AttrType, Graph, Node, Value
from .tensor import SparseTensor

# Fields are copied one by one below (a loop over __slots__ took twice as
# long on a 10k-node model); tests/ir/test_clone.py compares every slot.


def clone_model(model, value_map: Optional[dict] = None):
    """A copy of `model` (see the module docstring). `value_map`, when
    given, is filled with id(original Value) -> its copy."""
    cl = Cloner()
    # Copying makes a few objects per node and no garbage: with the cyclic
    # collector on, its passes rescan them again and again (as when loading).
    with gc_policy.paused():
        new = cl.model_shell(model)
        new._main_graph = cl.graph(model.graph, owner=new)
        for f in model.functions.values():
            new._functions._add(cl.function(f))
        cl.finish()
    if value_map is not None:
        value_map.update(cl.values)
    return new


class Cloner:
    """Copies values, nodes and graphs, remembering each copy so a value
    read in several places is copied once. Call `finish()` last: it gives
    the copied values their producers and use lists (copied nodes only)."""

    def __init__(self):
        self.values: dict[int, Value] = {}
        self._nodes: dict[int, Node] = {}
        self._graphs: dict[int, Graph] = {}
        self._originals: list[Value] = []

    # -- pieces ----------------------------------------------------------------------

    def value(self, v: Value) -> Value:
        new = self.values.get(id(v))
        if new is None:
            new = Value.__new__(Value)
            new.name, new.type, new.doc_string, new._src = v.name, v.type, v.doc_string, v._src
            new.metadata_props = dict(v.metadata_props) if v.metadata_props else {}
            new.const = None if v.const is None else _shared_const(v.const)
            new.producer, new._uses, new.graph = None, [], None
            self.values[id(v)] = new
            self._originals.append(v)
        return new

    def attr(self, a, node: Optional[Node]):
        # Decoded once, in the original, and shared: a copy decoding its own
        # (a Constant's tensor re-read per copy) made set_input_shape, which
        # infers on two copies, twice as slow.
        value = a.value
        new = a.copy()
        if a.ref_attr_name:
            return new
        if a.type == AttrType.GRAPH and value is not None:
            new._value = self.graph(value, parent_node=node)
        elif a.type == AttrType.GRAPHS and value:
            new._value = [self.graph(g, parent_node=node) for g in value]
        elif isinstance(value, list):
            new._value = list(value)     # a list value is the copy's own
        return new

    def node(self, n: Node, graph: Optional[Graph]) -> Node:
        new = Node.__new__(Node)
        new.op_type, new.domain, new.name, new.overload = n.op_type, n.domain, n.name, n.overload
        new.doc_string, new._src, new._index, new._present = n.doc_string, n._src, n._index, n._present
        new._repeats = n._repeats
        new.metadata_props = dict(n.metadata_props) if n.metadata_props else {}
        new.device_configurations = list(n.device_configurations) if n.device_configurations else []
        new.graph = graph
        value = self.value
        new._inputs = [None if v is None else value(v) for v in n._inputs]
        new._outputs = [None if v is None else value(v) for v in n._outputs]
        new.attributes = {k: self.attr(a, new) for k, a in n.attributes.items()} if n.attributes else {}
        self._nodes[id(n)] = new
        return new

    def graph(self, g: Graph, *, owner=None, parent_node: Optional[Node] = None,
              nodes: Optional[Iterable[Node]] = None, name: Optional[str] = None) -> Graph:
        """A copy of `g`; with `nodes`, a new graph of copies of those nodes
        only: no declarations, initializers, doc, metadata or annotations
        (the caller adds the ones it wants)."""
        new = Graph(g.name if name is None else name, owner=owner, parent_node=parent_node,
                    attr_name=g.attr_name)
        self._graphs[id(g)] = new
        whole = nodes is None
        if whole:
            for field in ("doc_string", "_src", "_present"):
                setattr(new, field, getattr(g, field))
            new.metadata_props = dict(g.metadata_props)
            new.quantization_annotation = list(g.quantization_annotation)
            for kind in ("input", "output", "value_info"):
                items = g.declarations(kind)
                for i, v in enumerate(items):
                    new.declare_as_read(kind, self.value(v), items.override(i))
            for sparse, table in ((False, g.initializers), (True, g.sparse_initializers)):
                for v in table.values():
                    new.add_initializer_as_read(self.value(v), sparse=sparse)
            for v in g.duplicate_initializers:
                new.add_initializer_as_read(self.value(v))
        chosen = g.nodes if whole else nodes
        new._nodes = [self.node(n, new) for n in chosen]
        new._nodes_tuple = None
        new._indices_dirty = True
        # The value table: this graph's entries whose values were copied,
        # in the original's order (a repeated name keeps the same winner).
        table = {}
        for key, v in g._values.items():
            c = self.values.get(id(v))
            if c is not None:
                table[key] = c
        for key, v in new._values.items():    # inputs and initializers added above
            table.setdefault(key, v)
        new._values = table
        return new

    def function(self, f):
        new = type(f).__new__(type(f))
        new.__dict__.update(f.__dict__)
        new.attributes = list(f.attributes)
        new.attribute_defaults = {k: self.attr(a, None) for k, a in f.attribute_defaults.items()}
        new.opset_imports = dict(f.opset_imports)
        new.metadata_props = dict(f.metadata_props)
        new._opset_list = list(f._opset_list)
        new.graph = self.graph(f.graph, owner=new)
        return new

    def model_shell(self, model):
        """A copy of `model`'s own fields (opsets, metadata, producer...)
        with an empty main graph and no functions. The mapped weight files
        (`_external_files`) are shared, like the weights."""
        model.graph    # build a lazily loaded model first: the copy has no reader
        new = type(model).__new__(type(model))
        new.__dict__.update(model.__dict__)
        new.opset_imports = dict(model.opset_imports)
        new.metadata_props = dict(model.metadata_props)
        new.training_info = list(model.training_info)
        new.configuration = list(model.configuration)
        if model._opset_list is not None:
            new._opset_list = list(model._opset_list)
        new._opset_present = list(model._opset_present)
        new._main_graph = Graph(model.graph.name, owner=new)
        new._functions = FunctionTable()
        return new

    # -- the end ---------------------------------------------------------------------

    def finish(self) -> None:
        """Producers, use lists and graphs of the copied values, from the
        originals', keeping only nodes and graphs that were copied."""
        nodes, graphs = self._nodes, self._graphs
        for old in self._originals:
            new = self.values[id(old)]
            p = old.producer
            new.producer = nodes.get(id(p)) if p is not None else None
            new._uses = [(nodes[id(n)], i) for n, i in old._uses if id(n) in nodes]
            if new.graph is None:
                new.graph = graphs.get(id(old.graph))
        for n in nodes.values():
            for _, body in n.subgraphs():
                body.parent_node = n


def _shared_const(c):
    """A new wrapper of the same data: renaming the copy's initializer must
    not rename the original's tensor."""
    if c is None:
        return None
    new = _wrapper_copy(c)
    if type(c) is SparseTensor:      # its values carry the name
        new.values = _wrapper_copy(c.values)
    return new


def _wrapper_copy(obj):
    # copy.copy, without its generic reduce machinery (a third of a clone's
    # time went there): the slots are the tensor's whole state.
    new = object.__new__(type(obj))
    for s in type(obj).__slots__:
        value = getattr(obj, s, _UNSET)
        if value is not _UNSET:
            setattr(new, s, value)
    return new


_UNSET = object()
