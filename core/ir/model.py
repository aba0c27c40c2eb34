"""Model and Function: the top of the IR."""
from __future__ import annotations

import pathlib
from typing import Iterator, Optional

from .. import gc_policy
from ..opsets import imported_version
from .clone import clone_model
from .graph import Attr, Graph, Node


class Function:
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
        self._src = None   # message read from the file (for unknown fields)

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


class Model:
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
        self._graph = graph if graph is not None else Graph("main_graph")
        self._graph.owner = self
        self._functions: dict[tuple[str, str, str], Function] = {}
        self.training_info: list = []      # TrainingInfoProto messages, kept as read
        self.configuration: list = []      # DeviceConfigurationProto messages
        self.path: Optional[pathlib.Path] = None
        # Exactly as in the file (duplicates and order included), for checking
        # and lossless saving; `opset_imports` is the resolved view.
        self._opset_list: Optional[list[tuple[str, int]]] = None
        self._present: frozenset = frozenset()   # scalar fields present in the file
        self._src = None   # message read from the file (for unknown fields)
        self._external_files: dict = {}       # location -> mapped file (serde)

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
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if self._pending is not None:
            self._materialize()
        self._graph = g
        g.owner = self

    @property
    def functions(self) -> dict[tuple[str, str, str], Function]:
        if self._pending is not None:
            self._materialize()
        return self._functions

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
