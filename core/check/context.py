"""What rules need to know about where they are: the model-wide facts
(`Context`) and the lexical scope of names (`Scope`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional

from ..ir import types as T
from ..schemas import canonical_domain


@dataclass
class Context:
    ir_version: int = 0
    model_dir: object = None                 # pathlib.Path or None
    opsets: dict = field(default_factory=dict)  # canonical domain -> version
    model_opsets: dict = field(default_factory=dict)
    is_main: bool = True                     # top-level graph: strict IO typing
    in_function: bool = False
    function_attrs: frozenset = frozenset()  # attribute names of the enclosing function
    functions: dict = field(default_factory=dict)  # (domain, name, overload) -> FunctionProto
    # Optional extra type source (e.g. inference): (graph_path, name) -> Type | None.
    type_lookup: Optional[Callable] = None

    def sub(self, **changes) -> "Context":
        return replace(self, **changes)

    def version_of(self, domain: str) -> Optional[int]:
        return self.opsets.get(canonical_domain(domain))


class Scope:
    """Names visible at one point of a graph, chained to the enclosing graph.

    `defs` maps each name defined in this graph to its position: graph inputs
    and initializers are negative, a node output is its node's index. A name is
    visible when it was defined before `limit` (the node being checked); the
    parent scope's own limit is the index of the node owning this subgraph.
    Sharing the dict between limits is what lets one node be re-checked
    without re-walking the nodes before it.
    """
    __slots__ = ("defs", "limit", "parent", "types", "graph_path")

    def __init__(self, defs: dict, limit: int, parent: Optional["Scope"], types: dict, graph_path: str):
        self.defs = defs
        self.limit = limit
        self.parent = parent
        self.types = types
        self.graph_path = graph_path

    def at(self, limit: int) -> "Scope":
        return Scope(self.defs, limit, self.parent, self.types, self.graph_path)

    def here(self, name: str) -> bool:
        pos = self.defs.get(name)
        return pos is not None and pos < self.limit

    def visible(self, name: str) -> bool:
        s = self
        while s is not None:
            pos = s.defs.get(name)
            if pos is not None and pos < s.limit:
                return True
            s = s.parent
        return False

    def type_of(self, name: str, ctx: Context):
        s = self
        while s is not None:
            t = s.types.get(name)
            if t is not None:
                return t
            if name in s.defs:
                break
            s = s.parent
        if ctx.type_lookup is not None:
            return ctx.type_lookup(self.graph_path, name)
        return None


def declared_types(g) -> dict:
    """name -> ir type for everything a GraphProto declares a type for."""
    types = {}
    for group in (g.value_info, g.output, g.input):   # later groups win
        for vi in group:
            if vi.HasField("type"):
                types[vi.name] = T.type_from_proto(vi.type)
    for init in g.initializer:
        types[init.name] = T.TensorType(init.data_type, tuple(init.dims))
    for sp in g.sparse_initializer:
        types[sp.values.name] = T.TensorType(sp.values.data_type, tuple(sp.dims))
    return types
