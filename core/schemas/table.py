"""The operator signature table: loading and opset binding.

The data file (opschemas.json, written by tools/gen_schemas.py) is read once,
on first use, so importing the package costs nothing.
"""
from __future__ import annotations

import gzip
import json
import pathlib
import threading
from dataclasses import dataclass, field
from typing import Any, Optional

from ..opsets import DEFAULT_DOMAIN, VersionedTable, canonical_domain, imported_version  # noqa: F401 (re-exported)
from .typestr import allowed_set

_HERE = pathlib.Path(__file__).parent
# Domains whose operators the table describes. Anything else is a custom
# domain: an unknown op there is not an error.
KNOWN_DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
UNBOUNDED = -1   # max_input / max_output of variadic operators
# Operators of early ONNX (its "experimental" set) that the standard dropped
# without a signature. onnx's checker still lets them pass, unchecked, at any
# opset, and onnxruntime still runs seven of them (Affine, Crop, DynamicSlice,
# ImageScaler, ParametricSoftplus, Scale, ScaledTanh): the model zoo's older
# models (Tiny YOLOv2 starts with an ImageScaler) hold them.
EXPERIMENTAL_OPS = frozenset({"ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill",
                              "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh"})

_DOC_PAGE_PREFIX = {
    "": "onnx__",
    "ai.onnx": "onnx__",
    "ai.onnx.ml": "onnx_aionnxml_",
    "ai.onnx.preview": "onnx_aionnxpreview_",
    "ai.onnx.preview.training": "onnx_aionnxpreviewtraining_",
}


def doc_url(domain: str, op_type: str) -> str | None:
    """The operator's page on onnx.ai; None for domains onnx.ai does not document."""
    prefix = _DOC_PAGE_PREFIX.get(domain)
    return None if prefix is None else f"https://onnx.ai/onnx/operators/{prefix}{op_type}.html"


@dataclass(frozen=True)
class Formal:
    """One formal input or output of an operator."""
    name: str
    option: str            # "single" | "optional" | "variadic"
    homogeneous: bool      # variadic only: all actuals share one type
    type_str: str          # a constraint name ("T") or a literal type string
    min_arity: int         # variadic only: how many actuals at least
    # Plain attributes rather than properties: checkers read them per actual.
    is_optional: bool = field(init=False, compare=False)
    is_variadic: bool = field(init=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "is_optional", self.option == "optional")
        object.__setattr__(self, "is_variadic", self.option == "variadic")


@dataclass(frozen=True)
class AttrSpec:
    name: str
    type: int              # AttributeProto.AttributeType number (= ir.AttrType)
    required: bool
    default: Any = None    # Python value (int, float, str, tuple); None if no default


# eq=False: each schema is a singleton of the table; identity is equality
# and the object stays hashable although it holds dicts.
@dataclass(frozen=True, eq=False)
class OpSchema:
    domain: str
    name: str
    since_version: int
    inputs: tuple
    outputs: tuple
    attributes: dict       # name -> AttrSpec
    type_constraints: dict  # name -> tuple of allowed type strings
    min_input: int
    max_input: int         # UNBOUNDED (-1) for variadic
    min_output: int
    max_output: int
    has_function: bool
    deprecated: bool
    required_attributes: tuple = ()   # names of the attributes a node must give
    _allowed: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def doc_url(self) -> str:
        return doc_url(self.domain, self.name) or ""

    @property
    def key(self) -> str:
        """"Conv-11", "ai.onnx.ml.ZipMap-1": how messages name a version."""
        prefix = f"{self.domain}." if self.domain else ""
        return f"{prefix}{self.name}-{self.since_version}"

    def allowed_types(self, type_str: str) -> frozenset:
        """Normalised allowed types for a formal's type_str (constraint or literal)."""
        allowed = self._allowed.get(type_str)
        if allowed is None:
            allowed = allowed_set(self.type_constraints.get(type_str, (type_str,)))
            self._allowed[type_str] = allowed
        return allowed

    def input_formal(self, index: int) -> Optional[Formal]:
        """Formal parameter an actual input at `index` corresponds to."""
        return _formal_at(self.inputs, index)

    def output_formal(self, index: int) -> Optional[Formal]:
        return _formal_at(self.outputs, index)


def _formal_at(formals: tuple, index: int) -> Optional[Formal]:
    if index < len(formals):
        return formals[index]
    if formals and formals[-1].is_variadic:
        return formals[-1]
    return None


def _decode_default(value):
    return tuple(value) if isinstance(value, list) else value


def _make(raw: dict) -> OpSchema:
    return OpSchema(
        domain=raw["domain"],
        name=raw["name"],
        since_version=raw["since"],
        inputs=tuple(Formal(*f) for f in raw["inputs"]),
        outputs=tuple(Formal(*f) for f in raw["outputs"]),
        attributes={a[0]: AttrSpec(a[0], a[1], a[2], _decode_default(a[3])) for a in raw["attrs"]},
        type_constraints={k: tuple(v) for k, v in raw["constraints"].items()},
        min_input=raw["in"][0], max_input=raw["in"][1],
        min_output=raw["out"][0], max_output=raw["out"][1],
        has_function=raw["function"],
        deprecated=raw["deprecated"],
        required_attributes=tuple(a[0] for a in raw["attrs"] if a[2]),
    )


class _Table:
    """The signatures, read once; an OpSchema is made when first asked for
    (binding the ops of one model makes a few dozen of the ~660: the canvas's
    first layout asks for its nodes' input names)."""

    def __init__(self):
        self._lock = threading.RLock()
        self._raw: Optional[dict] = None       # (domain, name) -> [raw entry, since ascending]
        self._made: dict = {}                  # (domain, name, index) -> OpSchema: one object each
        self._by_op: Optional[dict] = None     # (domain, name) -> [OpSchema ascending]
        self._versioned: Optional[VersionedTable] = None
        self.onnx_version = ""

    def versioned(self) -> VersionedTable:
        """(domain, name) by opset -> (domain, name, index): `schema` makes it."""
        if self._versioned is None:
            with self._lock:
                if self._versioned is None:
                    table = VersionedTable("schema")
                    for (domain, name), entries in self.raw().items():
                        for i, raw in enumerate(entries):
                            table.add(domain, name, raw["since"], (domain, name, i))
                    self._versioned = table
        return self._versioned

    def schema(self, ref: tuple) -> OpSchema:
        made = self._made.get(ref)
        if made is None:
            with self._lock:
                made = self._made.get(ref)
                if made is None:
                    domain, name, i = ref
                    made = self._made[ref] = _make(self.raw()[(domain, name)][i])
        return made

    def by_op(self) -> dict:
        if self._by_op is None:
            with self._lock:
                if self._by_op is None:
                    self._by_op = {key: [self.schema((*key, i)) for i in range(len(entries))]
                                   for key, entries in self.raw().items()}
        return self._by_op

    def raw(self) -> dict:
        if self._raw is None:
            with self._lock:
                if self._raw is None:
                    self._raw = self._load()
        return self._raw

    def _load(self) -> dict:
        plain = _HERE / "opschemas.json"
        if plain.exists():
            data = json.loads(plain.read_bytes())
        else:
            data = json.loads(gzip.decompress((_HERE / "opschemas.json.gz").read_bytes()))
        self.onnx_version = data["onnx_version"]
        table: dict = {}
        for raw in data["schemas"]:
            table.setdefault((raw["domain"], raw["name"]), []).append(raw)
        for entries in table.values():
            entries.sort(key=lambda raw: raw["since"])
        return table


_TABLE = _Table()


def versions(domain: str, op_type: str) -> list:
    """Every OpSchema of one operator, oldest first ([] if unknown)."""
    return list(_TABLE.by_op().get((canonical_domain(domain), op_type), ()))


def get(domain: str, op_type: str, since_version: int) -> Optional[OpSchema]:
    for s in _TABLE.by_op().get((canonical_domain(domain), op_type), ()):
        if s.since_version == since_version:
            return s
    return None


def all_schemas() -> list:
    return [s for versions_ in _TABLE.by_op().values() for s in versions_]


def operators(domain: str) -> list:
    """Names of the operators of a known domain, sorted."""
    d = canonical_domain(domain)
    return sorted(name for (dom, name) in _TABLE.by_op() if dom == d)


def bind_version(domain: str, op_type: str, version: int) -> Optional[OpSchema]:
    """Highest since_version <= `version`, or None."""
    ref = _TABLE.versioned().find(domain, op_type, version)
    return _TABLE.schema(ref) if ref is not None else None


def bind(domain: str, op_type: str, opset_imports: dict) -> Optional[OpSchema]:
    """The signature a node (domain, op_type) binds to under `opset_imports`."""
    version = imported_version(domain, opset_imports)
    if version is None:
        return None
    return bind_version(domain, op_type, version)


def why_unbound(domain: str, op_type: str, opset_imports: dict) -> str:
    """A user-facing reason why `bind` returned None ("" if it binds)."""
    d = canonical_domain(domain)
    shown = d or "ai.onnx"
    version = imported_version(d, opset_imports)
    if version is None:
        return f"domain {shown!r} is not in the model's opset imports; add it"
    known = _TABLE.by_op().get((d, op_type))
    if not known:
        if d not in KNOWN_DOMAINS:
            return f"no schema is known for custom domain {shown!r}"
        return f"{op_type!r} is not an operator of {shown!r}"
    if known[0].since_version > version:
        return (f"{op_type} first appears in {shown} opset {known[0].since_version}, "
                f"but the model imports opset {version}")
    return ""
