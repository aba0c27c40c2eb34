"""Value types: tensors with symbolic shapes, sequences, maps, optionals.

A dimension (`Dim`) is an `int` (known size), a `str` (symbolic name such as
"batch") or `None` (unknown). A shape is a tuple of dims; a shape of `None`
means even the rank is unknown. Types are immutable and hashable so inference
can compare and cache them cheaply.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Optional, Union

from .dtypes import type_name

Dim = Union[int, str, None]
Shape = Optional[tuple]


@dataclass(frozen=True, slots=True)
class _ShapedType:
    """The fields a dense and a sparse tensor type share (TypeProto gives
    both the same message). Not a type of its own: a TensorType never equals
    a SparseTensorType with the same fields (dataclass equality compares the
    class), and `isinstance(t, TensorType)` stays false for a sparse one."""
    elem_type: int = 0          # DataType; 0 when not known
    shape: Shape = None         # None: rank unknown
    denotation: str = ""
    # Per-dim denotation strings, kept only so files round-trip unchanged.
    dim_denotations: Optional[tuple] = None

    @property
    def rank(self) -> Optional[int]:
        return None if self.shape is None else len(self.shape)


@dataclass(frozen=True, slots=True)
class TensorType(_ShapedType):
    def __str__(self) -> str:
        return type_name(self.elem_type) + format_shape(self.shape)


@dataclass(frozen=True, slots=True)
class SparseTensorType(_ShapedType):
    def __str__(self) -> str:
        return f"sparse {type_name(self.elem_type)}{format_shape(self.shape)}"


@dataclass(frozen=True, slots=True)
class _OfOneType:
    """The fields a sequence and an optional type share (one element type,
    None when not said); distinct types all the same, as _ShapedType's."""
    elem: Optional["Type"] = None
    denotation: str = ""
    shown_as: ClassVar[str] = ""

    def __str__(self) -> str:
        return f"{self.shown_as}({self.elem if self.elem is not None else '?'})"


@dataclass(frozen=True, slots=True)
class SequenceType(_OfOneType):
    shown_as: ClassVar[str] = "seq"


@dataclass(frozen=True, slots=True)
class MapType:
    key_type: int = 0
    value: Optional["Type"] = None
    denotation: str = ""

    def __str__(self) -> str:
        return f"map({type_name(self.key_type)}, {self.value if self.value is not None else '?'})"


@dataclass(frozen=True, slots=True)
class OptionalType(_OfOneType):
    shown_as: ClassVar[str] = "optional"


@dataclass(frozen=True, slots=True)
class OpaqueType:
    domain: str = ""
    name: str = ""
    denotation: str = ""

    def __str__(self) -> str:
        return f"opaque({self.domain}.{self.name})"


@dataclass(frozen=True, slots=True)
class UndefinedType:
    """A TypeProto that is present but says nothing (kept for round-trips)."""
    denotation: str = ""

    def __str__(self) -> str:
        return "?"


Type = Union[TensorType, SparseTensorType, SequenceType, MapType, OptionalType,
             OpaqueType, UndefinedType]


def format_shape(shape: Shape) -> str:
    """"[N,3,224,224]"; "[]" for a scalar; "" when the rank is unknown."""
    if shape is None:
        return ""
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"
