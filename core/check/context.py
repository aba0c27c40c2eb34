"""What rules need to know about where they are: the model-wide facts
(`Context`) and the lexical scope of names (`Scope`)."""
from __future__ import annotations

from functools import lru_cache
from typing import Callable, Optional

from ..ir.dtypes import type_name
from ..proto import onnx_pb2 as pb
from .. import schemas
from ..schemas import canonical_domain


@lru_cache(maxsize=4096)
def bind_cached(domain: str, op_type: str, version: int):
    return schemas.bind_version(domain, op_type, version)


class Context:
    """The run's model-wide facts. A plain class: one is built per check and
    one per kind of subgraph, so construction must cost next to nothing."""
    __slots__ = ("ir_version", "model_dir", "opsets", "model_opsets", "is_main", "in_function",
                 "function_attrs", "functions", "type_lookup", "schema_cache", "memo", "_nested")

    def __init__(self, ir_version: int = 0, model_dir=None, opsets=None, model_opsets=None, is_main: bool = True,
                 in_function: bool = False, function_attrs: frozenset = frozenset(), functions=None,
                 type_lookup: Optional[Callable] = None, schema_cache=None, memo=None):
        self.ir_version = ir_version
        self.model_dir = model_dir               # pathlib.Path or None
        self.opsets = {} if opsets is None else opsets   # canonical domain -> version
        self.model_opsets = {} if model_opsets is None else model_opsets
        self.is_main = is_main                   # top-level graph: strict IO typing
        self.in_function = in_function
        self.function_attrs = function_attrs     # attribute names of the enclosing function
        self.functions = {} if functions is None else functions   # (domain, name, overload) -> FunctionProto
        # Optional extra type source (e.g. inference): (graph_path, name) -> Type | None.
        self.type_lookup = type_lookup
        # (node domain, op_type) -> OpSchema | None under `opsets`; shared by
        # sub-contexts with the same opsets.
        self.schema_cache = {} if schema_cache is None else schema_cache
        # What the lean pass (scan.py) learnt in this run: verdicts per node
        # bytes after op_type, outcomes per (those bytes, actuals' types),
        # keying credit per signature, the names checked graphs define.
        # Shared by sub-contexts with the same opsets (and ir_version, which
        # never changes): everything those verdicts read.
        self.memo = {} if memo is None else memo
        self._nested = None

    def sub(self, **changes) -> "Context":
        fields = {name: getattr(self, name) for name in self.__slots__ if name != "_nested"}
        if "opsets" in changes:
            changes.setdefault("schema_cache", {})
            changes.setdefault("memo", {})
        fields.update(changes)
        return Context(**fields)

    def nested(self) -> "Context":
        """The context of a subgraph of this graph (not the main graph), made once."""
        if not self.is_main:
            return self
        if self._nested is None:
            self._nested = self.sub(is_main=False)
        return self._nested

    def version_of(self, domain: str) -> Optional[int]:
        return self.opsets.get(canonical_domain(domain))

    def schema_for(self, node):
        """The bound OpSchema of a node, or None (unknown, custom, not imported)."""
        return self.schema_of(node.domain, node.op_type)

    def schema_of(self, domain: str, op_type: str):
        key = (domain, op_type)
        try:
            return self.schema_cache[key]
        except KeyError:
            pass
        canonical = canonical_domain(domain)
        version = self.opsets.get(canonical)
        found = None
        if version is not None and canonical in schemas.KNOWN_DOMAINS:
            found = bind_cached(canonical, op_type, version)
        self.schema_cache[key] = found
        return found


class Scope:
    """Names visible at one point of a graph, chained to the enclosing graph.

    `defs` maps each name defined in this graph to its position: graph inputs
    and initializers are negative, a node output is its node's index (a dict
    replayed over the nodes, or for the live check of the main graph
    graph_unit.MainDefinitions, answering `get` and `in` from the IR). A name is
    visible when it was defined before `limit` (the node being checked); the
    parent scope's own limit is the index of the node owning this subgraph.
    Sharing the dict between limits is what lets one node be re-checked
    without re-walking the nodes before it.
    """
    __slots__ = ("defs", "limit", "parent", "types", "graph_path", "inferred", "suspects")

    def __init__(self, defs: dict, limit: int, parent: Optional["Scope"], types: dict, graph_path: str,
                 inferred: Optional[dict] = None):
        self.defs = defs
        self.limit = limit
        self.parent = parent
        self.types = types          # name -> declared type string (declared_types)
        self.graph_path = graph_path
        self.inferred = {} if inferred is None else inferred   # name -> type string (elem_types)
        # What scan.scan_graph left to check ((index, None | graphs) per
        # node), or None when it did not run; whoever checks the nodes right
        # after takes it (it goes stale with the next edit).
        self.suspects = None

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
            t = ctx.type_lookup(str(self.graph_path), name)
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


_GF = pb.GraphProto.DESCRIPTOR.fields_by_name


def graph_parts(g) -> dict:
    """field name -> value for the fields a GraphProto has set (one
    ListFields call: a subgraph usually sets three or four of its ten)."""
    return {fd.name: value for fd, value in g.ListFields()}


def declared_types(g, parts=None, inits=None) -> dict:
    """name -> canonical type string for everything a GraphProto declares
    with a fully known type. `parts`: graph_parts(g) when the caller has it;
    `inits`: initializer_types(parts) when the caller kept it."""
    if parts is None:
        parts = graph_parts(g)
    types = {}
    for group in ("value_info", "output", "input"):   # later groups win
        for vi in parts.get(group, ()):
            if vi.HasField("type"):
                t = proto_type_str(vi.type)
                if t is not None:
                    types[vi.name] = t
    types.update(initializer_types(parts) if inits is None else inits)
    for sp in parts.get("sparse_initializer", ()):
        if sp.values.data_type:
            types[sp.values.name] = f"sparse_tensor({_elem(sp.values.data_type)})"
    return types


def initializer_types(parts) -> dict:
    """name -> type string of the dense initializers in `parts` (the last of
    two with one name wins, as in declared_types)."""
    types = {}
    for init in parts.get("initializer", ()):
        if init.data_type:
            types[init.name] = f"tensor({_elem(init.data_type)})"
    return types
