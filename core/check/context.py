"""What rules need to know about where they are: the model-wide facts
(`Context`) and the lexical scope of names (`Scope`)."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Callable, Optional

from ..ir.dtypes import type_name
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
    # (node domain, op_type) -> OpSchema | None under `opsets`; shared by
    # sub-contexts with the same opsets.
    schema_cache: dict = field(default_factory=dict, repr=False, compare=False)
    # Node signature keys (memo.node_key) known to pass the node rules under
    # this context, and derived output types per (op, input types) signature.
    # Shared only by sub-contexts that differ in nothing the node rules read.
    clean_nodes: set = field(default_factory=set, repr=False, compare=False)
    derived_types: dict = field(default_factory=dict, repr=False, compare=False)

    def sub(self, **changes) -> "Context":
        if "opsets" in changes:
            changes.setdefault("schema_cache", {})
        if changes.keys() - {"is_main"}:
            changes.setdefault("clean_nodes", set())
            changes.setdefault("derived_types", {})
        return replace(self, **changes)

    def version_of(self, domain: str) -> Optional[int]:
        return self.opsets.get(canonical_domain(domain))

    def schema_for(self, node):
        """The bound OpSchema of a node, or None (unknown, custom, not imported)."""
        key = (node.domain, node.op_type)
        try:
            return self.schema_cache[key]
        except KeyError:
            pass
        domain = canonical_domain(node.domain)
        version = self.opsets.get(domain)
        found = None
        if version is not None and domain in schemas.KNOWN_DOMAINS:
            found = bind_cached(domain, node.op_type, version)
        self.schema_cache[key] = found
        return found


class Scope:
    """Names visible at one point of a graph, chained to the enclosing graph.

    `defs` maps each name defined in this graph to its position: graph inputs
    and initializers are negative, a node output is its node's index. A name is
    visible when it was defined before `limit` (the node being checked); the
    parent scope's own limit is the index of the node owning this subgraph.
    Sharing the dict between limits is what lets one node be re-checked
    without re-walking the nodes before it.
    """
    __slots__ = ("defs", "limit", "parent", "types", "graph_path", "inferred", "keys")

    def __init__(self, defs: dict, limit: int, parent: Optional["Scope"], types: dict, graph_path: str,
                 inferred: Optional[dict] = None):
        self.defs = defs
        self.limit = limit
        self.parent = parent
        self.types = types          # name -> declared type string (declared_types)
        self.graph_path = graph_path
        self.inferred = {} if inferred is None else inferred   # name -> type string (elem_types)
        # Node memo keys computed while deriving types (graph_rules.node_keys);
        # valid only until the nodes are checked right after, then cleared.
        self.keys = None

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
                return t
            t = s.inferred.get(name)
            if t is not None and s.defs.get(name, -3) < s.limit:
                # Derived types count only where the name is already defined,
                # so a re-check of one node sees what the full pass saw.
                return t
            if name in s.defs:
                break
            s = s.parent
        if ctx.type_lookup is not None:
            t = ctx.type_lookup(self.graph_path, name)
            return schemas.type_string(t) if t is not None else None
        return None


_ELEM_NAMES: dict = {}


def _elem(code: int) -> str:
    name = _ELEM_NAMES.get(code)
    if name is None:
        name = _ELEM_NAMES[code] = type_name(code)
    return name


def proto_type_str(tp) -> Optional[str]:
    """Canonical type string of a TypeProto (as schemas.type_string spells an
    ir type), without building the ir type; None when any part is unknown."""
    kind = tp.WhichOneof("value")
    if kind == "tensor_type" or kind == "sparse_tensor_type":
        elem = getattr(tp, kind).elem_type
        if not elem:
            return None
        return f"tensor({_elem(elem)})" if kind == "tensor_type" else f"sparse_tensor({_elem(elem)})"
    if kind == "sequence_type" or kind == "optional_type":
        inner_msg = getattr(tp, kind)
        inner = proto_type_str(inner_msg.elem_type) if inner_msg.HasField("elem_type") else None
        return None if inner is None else f"{'seq' if kind == 'sequence_type' else 'optional'}({inner})"
    if kind == "map_type":
        m = tp.map_type
        inner = proto_type_str(m.value_type) if m.HasField("value_type") else None
        return None if inner is None or not m.key_type else f"map({_elem(m.key_type)},{inner})"
    return None


def declared_types(g) -> dict:
    """name -> canonical type string for everything a GraphProto declares
    with a fully known type."""
    types = {}
    for group in (g.value_info, g.output, g.input):   # later groups win
        for vi in group:
            if vi.HasField("type"):
                t = proto_type_str(vi.type)
                if t is not None:
                    types[vi.name] = t
    for init in g.initializer:
        if init.data_type:
            types[init.name] = f"tensor({_elem(init.data_type)})"
    for sp in g.sparse_initializer:
        if sp.values.data_type:
            types[sp.values.name] = f"sparse_tensor({_elem(sp.values.data_type)})"
    return types
