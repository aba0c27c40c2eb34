"""Model and Function: the top of the IR."""
from __future__ import annotations

import pathlib
from typing import Iterator, Optional

from .. import gc_policy
from ..opsets import imported_version
from .clone import clone_model
from .declarations import FunctionTable
from .graph import Attr, Graph, IRError, KeepsSource, Node


class RemembersOpsets:
    """The opset imports exactly as the file listed them (repeats and order
    kept) beside the resolved `opset_imports`, for checking and a lossless
    save. Serde's reader records them with `remember_opsets`."""

    @property
    def opsets_as_read(self) -> Optional[list[tuple[str, int]]]:
        """(domain, version) as the file listed them; None when not read from one."""
        return self._opset_list

    @property
    def opset_presence(self) -> list[frozenset]:
        """Per entry of `opsets_as_read`: the fields the file set explicitly."""
        return self._opset_present

    def remember_opsets(self, as_read: Optional[list[tuple[str, int]]],
                        presence: Optional[list[frozenset]] = None) -> None:
        """Serde's reader (or a copy that forgets its file, with None)."""
        self._opset_list = as_read
        self._opset_present = presence or []


class Function(KeepsSource, RemembersOpsets):
    """A model-local function. Its body is a Graph whose inputs and outputs
    carry the formal parameter names (they have no types in the file)."""
    is_function = True

    def __init__(self, domain: str, name: str, overload: str = ""):
        self.domain = domain
        self.name = name
        self.overload = overload
        self.attributes: list[str] = []                 # formal attribute names without default
        self.attribute_defaults: dict[str, Attr] = {}   # attribute_proto: names with a default
        self.opset_imports: dict[str, int] = {}
        self.doc_string = ""
        self.metadata_props: dict[str, str] = {}
        self.graph = Graph(name, owner=self)
        self._opset_list: list[tuple[str, int]] = []
        self._opset_present: list[frozenset] = []
        self._src = None   # message read from the file (for unknown fields)
        self._present: frozenset = frozenset()
        self._repeats = None   # attribute defaults the file repeats (serde/repeats.py)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.domain, self.name, self.overload)

    @property
    def inputs(self) -> list[str]:
        return [v.name for v in self.graph.inputs]

    @property
    def outputs(self) -> list[str]:
        return [v.name for v in self.graph.outputs]

    def __repr__(self) -> str:
        return f"Function({self.domain}::{self.name}{':' + self.overload if self.overload else ''})"


class Model(KeepsSource, RemembersOpsets):
    def __init__(self, graph: Optional[Graph] = None, *, ir_version: int = 10,
                 opset_imports: Optional[dict[str, int]] = None):
        self.ir_version = ir_version
        self.opset_imports: dict[str, int] = dict(opset_imports or {"": 21})
        self.producer_name = ""
        self.producer_version = ""
        self.domain = ""
        self.model_version = 0
        self.doc_string = ""
        self.metadata_props: dict[str, str] = {}
        # The graph and functions may be built on first use (see serde.convert):
        # opening a file then costs little more than parsing it.
        self._pending = None
        self._main_graph = graph if graph is not None else Graph("main_graph")
        self._main_graph.owner = self
        self._functions = FunctionTable()
        self.training_info: list = []      # TrainingInfoProto messages, kept as read
        self.configuration: list = []      # DeviceConfigurationProto messages
        self.path: Optional[pathlib.Path] = None
        # Exactly as in the file (duplicates and order included), for checking
        # and lossless saving; `opset_imports` is the resolved view.
        self._opset_list: Optional[list[tuple[str, int]]] = None
        self._opset_present: list[frozenset] = []
        self._present: frozenset = frozenset()   # scalar fields present in the file
        self._src = None   # message read from the file (for unknown fields)
        self._repeats = None   # metadata keys and functions the file repeats (serde/repeats.py)
        self._external_files = None   # serde's mapped external data files, shared with clones

    def build_on_first_use(self, build) -> None:
        """Serde's reader: `build(model)` makes the graph and functions the
        first time either is read (opening then costs little more than
        parsing the file)."""
        self._pending = build

    @property
    def external_files(self):
        """The external data files the weights are mapped from (serde's
        MappedFiles), or None."""
        return self._external_files

    def attach_external_files(self, files) -> None:
        """Serde's loader: the files this model's external weights live in."""
        self._external_files = files

    def _materialize(self) -> None:
        build, self._pending = self._pending, None
        # Building makes a few objects per node and no garbage; with the
        # cyclic collector on, its full passes rescan all of them again and
        # again (a 10**6-node graph took 2-3x as long).
        with gc_policy.paused():
            build(self)

    @property
    def graph(self) -> Graph:
        if self._pending is not None:
            self._materialize()
        return self._main_graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if self._pending is not None:
            self._materialize()
        self._main_graph = g
        g.owner = self

    @property
    def functions(self) -> FunctionTable:
        """Local functions by (domain, name, overload): a read-only mapping,
        changed through add_function / remove_function."""
        if self._pending is not None:
            self._materialize()
        return self._functions

    def add_function(self, function: Function) -> Function:
        """Add a model-local function; refused when its key is taken."""
        if function.key in self.functions:
            raise IRError(f"the model already has a function {function.key}")
        self._functions._add(function)
        return function

    def remove_function(self, key: tuple[str, str, str]) -> Function:
        """Take the function `key` out of the model; returns it."""
        if key not in self.functions:
            raise IRError(f"the model has no function {key}")
        return self._functions._remove(key)

    def add_function_as_read(self, function: Function) -> None:
        """Serde's reader: a function as read; a key the file repeats keeps
        the first function (unchecked: the checker names the repeat)."""
        if function.key not in self._functions:
            self._functions._add(function)

    def clone(self, value_map: Optional[dict] = None) -> "Model":
        """A copy to change freely: its own graphs, nodes, values, attributes,
        bodies and functions; weights shared, not copied (see ir/clone.py).
        `value_map`, when given, is filled with id(original Value) -> copy."""
        return clone_model(self, value_map)

    def opset(self, domain: str = "") -> Optional[int]:
        return imported_version(domain, self.opset_imports)

    def graphs(self) -> Iterator[Graph]:
        """The main graph, every function body and every subgraph below them."""
        yield from self.graph.walk()
        for f in self.functions.values():
            yield from f.graph.walk()

    def all_nodes(self) -> Iterator[Node]:
        for g in self.graphs():
            yield from g._nodes

    def function(self, domain: str, name: str, overload: str = "") -> Optional[Function]:
        return self.functions.get((domain, name, overload))

    def __repr__(self) -> str:
        return (f"Model(ir_version={self.ir_version}, opsets={self.opset_imports}, "
                f"{len(self.graph)} nodes, {len(self.functions)} functions)")
