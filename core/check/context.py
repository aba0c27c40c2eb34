"""What rules need to know about where they are: the model-wide facts
(`Context`) and the lexical scope of names (`Scope`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Optional

from ..ir import types as T
from .. import schemas
from ..schemas import canonical_domain


@lru_cache(maxsize=4096)
def bind_cached(domain: str, op_type: str, version: int):
    return schemas.bind_version(domain, op_type, version)


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

    def schema_for(self, node):
        """The bound OpSchema of a node, or None (unknown, custom, not imported)."""
        domain = canonical_domain(node.domain)
        version = self.opsets.get(domain)
        if version is None or domain not in schemas.KNOWN_DOMAINS:
            return None
        return bind_cached(domain, node.op_type, version)


class Scope:
    """Names visible at one point of a graph, chained to the enclosing graph.

    `defs` maps each name defined in this graph to its position: graph inputs
    and initializers are negative, a node output is its node's index. A name is
    visible when it was defined before `limit` (the node being checked); the
    parent scope's own limit is the index of the node owning this subgraph.
    Sharing the dict between limits is what lets one node be re-checked
    without re-walking the nodes before it.
    """
    __slots__ = ("defs", "limit", "parent", "types", "graph_path", "inferred")

    def __init__(self, defs: dict, limit: int, parent: Optional["Scope"], types: dict, graph_path: str,
                 inferred: Optional[dict] = None):
        self.defs = defs
        self.limit = limit
        self.parent = parent
        self.types = types          # name -> declared ir type
        self.graph_path = graph_path
        self.inferred = {} if inferred is None else inferred   # name -> type string (elem_types)

    def at(self, limit: int) -> "Scope":
        return Scope(self.defs, limit, self.parent, self.types, self.graph_path, self.inferred)

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

    def type_str(self, name: str, ctx: Context) -> Optional[str]:
        """Canonical type string of a visible name: declared, else derived
        (elem_types), else from ctx.type_lookup; None when unknown."""
        s = self
        while s is not None:
            t = s.types.get(name)
            if t is not None:
                found = schemas.type_string(t)
                if found is not None:
                    return found
            t = s.inferred.get(name)
            if t is not None:
                return t
            if name in s.defs:
                break
            s = s.parent
        if ctx.type_lookup is not None:
            t = ctx.type_lookup(self.graph_path, name)
            return schemas.type_string(t) if t is not None else None
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
        types[sp.values.name] = T.SparseTensorType(sp.values.data_type, tuple(sp.dims))
    return types
