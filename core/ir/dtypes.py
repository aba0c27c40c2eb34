"""ONNX element types and their numpy counterparts.

The numbers are TensorProto.DataType values. Types numpy lacks come from
ml_dtypes (bfloat16, float8 kinds, 4/2-bit ints, float4/float6).
"""
from __future__ import annotations

import enum

import ml_dtypes
import numpy as np


class DataType(enum.IntEnum):
    UNDEFINED = 0
    FLOAT = 1
    UINT8 = 2
    INT8 = 3
    UINT16 = 4
    INT16 = 5
    INT32 = 6
    INT64 = 7
    STRING = 8
    BOOL = 9
    FLOAT16 = 10
    DOUBLE = 11
    UINT32 = 12
    UINT64 = 13
    COMPLEX64 = 14
    COMPLEX128 = 15
    BFLOAT16 = 16
    FLOAT8E4M3FN = 17
    FLOAT8E4M3FNUZ = 18
    FLOAT8E5M2 = 19
    FLOAT8E5M2FNUZ = 20
    UINT4 = 21
    INT4 = 22
    FLOAT4E2M1 = 23
    FLOAT8E8M0 = 24
    UINT2 = 25
    INT2 = 26
    FLOAT6E2M3 = 27
    FLOAT6E3M2 = 28


_NUMPY = {
    DataType.FLOAT: np.dtype(np.float32),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.INT8: np.dtype(np.int8),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.INT16: np.dtype(np.int16),
    DataType.INT32: np.dtype(np.int32),
    DataType.INT64: np.dtype(np.int64),
    # Strings are held as numpy object arrays of Python `bytes`/`str`.
    DataType.STRING: np.dtype(object),
    DataType.BOOL: np.dtype(np.bool_),
    DataType.FLOAT16: np.dtype(np.float16),
    DataType.DOUBLE: np.dtype(np.float64),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.UINT64: np.dtype(np.uint64),
    DataType.COMPLEX64: np.dtype(np.complex64),
    DataType.COMPLEX128: np.dtype(np.complex128),
    DataType.BFLOAT16: np.dtype(ml_dtypes.bfloat16),
    DataType.FLOAT8E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    DataType.FLOAT8E4M3FNUZ: np.dtype(ml_dtypes.float8_e4m3fnuz),
    DataType.FLOAT8E5M2: np.dtype(ml_dtypes.float8_e5m2),
    DataType.FLOAT8E5M2FNUZ: np.dtype(ml_dtypes.float8_e5m2fnuz),
    DataType.UINT4: np.dtype(ml_dtypes.uint4),
    DataType.INT4: np.dtype(ml_dtypes.int4),
    DataType.FLOAT4E2M1: np.dtype(ml_dtypes.float4_e2m1fn),
    DataType.FLOAT8E8M0: np.dtype(ml_dtypes.float8_e8m0fnu),
    DataType.UINT2: np.dtype(ml_dtypes.uint2),
    DataType.INT2: np.dtype(ml_dtypes.int2),
    DataType.FLOAT6E2M3: np.dtype(ml_dtypes.float6_e2m3fn),
    DataType.FLOAT6E3M2: np.dtype(ml_dtypes.float6_e3m2fn),
}
_FROM_NUMPY = {dt: code for code, dt in _NUMPY.items() if code != DataType.STRING}

# Bits per element where it is not a whole number of bytes.
SUB_BYTE_BITS = {
    DataType.UINT4: 4, DataType.INT4: 4, DataType.FLOAT4E2M1: 4,
    DataType.UINT2: 2, DataType.INT2: 2,
    DataType.FLOAT6E2M3: 6, DataType.FLOAT6E3M2: 6,
}

FLOAT_TYPES = frozenset({
    DataType.FLOAT, DataType.FLOAT16, DataType.DOUBLE, DataType.BFLOAT16,
    DataType.FLOAT8E4M3FN, DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2,
    DataType.FLOAT8E5M2FNUZ, DataType.FLOAT4E2M1, DataType.FLOAT8E8M0,
    DataType.FLOAT6E2M3, DataType.FLOAT6E3M2,
})
INTEGER_TYPES = frozenset({
    DataType.UINT8, DataType.INT8, DataType.UINT16, DataType.INT16, DataType.INT32,
    DataType.INT64, DataType.UINT32, DataType.UINT64, DataType.UINT4, DataType.INT4,
    DataType.UINT2, DataType.INT2,
})

# The spelling used by operator type constraints: "tensor(float16)" etc.
_SCHEMA_NAMES = {
    DataType.FLOAT: "float", DataType.UINT8: "uint8", DataType.INT8: "int8",
    DataType.UINT16: "uint16", DataType.INT16: "int16", DataType.INT32: "int32",
    DataType.INT64: "int64", DataType.STRING: "string", DataType.BOOL: "bool",
    DataType.FLOAT16: "float16", DataType.DOUBLE: "double", DataType.UINT32: "uint32",
    DataType.UINT64: "uint64", DataType.COMPLEX64: "complex64",
    DataType.COMPLEX128: "complex128", DataType.BFLOAT16: "bfloat16",
    DataType.FLOAT8E4M3FN: "float8e4m3fn", DataType.FLOAT8E4M3FNUZ: "float8e4m3fnuz",
    DataType.FLOAT8E5M2: "float8e5m2", DataType.FLOAT8E5M2FNUZ: "float8e5m2fnuz",
    DataType.UINT4: "uint4", DataType.INT4: "int4", DataType.FLOAT4E2M1: "float4e2m1",
    DataType.FLOAT8E8M0: "float8e8m0", DataType.UINT2: "uint2", DataType.INT2: "int2",
    DataType.FLOAT6E2M3: "float6e2m3", DataType.FLOAT6E3M2: "float6e3m2",
}
_BY_SCHEMA_NAME = {name: code for code, name in _SCHEMA_NAMES.items()}


def to_numpy_dtype(code: int) -> np.dtype:
    """numpy dtype for an ONNX element type; ValueError for unknown codes."""
    try:
        return _NUMPY[DataType(code)]
    except (ValueError, KeyError):
        raise ValueError(f"unknown ONNX element type {code}") from None


def from_numpy_dtype(dtype) -> DataType:
    """ONNX element type for a numpy dtype (object / str / bytes → STRING)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "OUS":
        return DataType.STRING
    try:
        return _FROM_NUMPY[dtype]
    except KeyError:
        raise ValueError(f"numpy dtype {dtype} has no ONNX element type") from None


def type_name(code: int) -> str:
    """Short lower-case name ("float", "int64", "bfloat16"); "type(N)" if unknown."""
    try:
        return _SCHEMA_NAMES[DataType(code)]
    except (ValueError, KeyError):
        return "undefined" if code == 0 else f"type({code})"


def from_type_name(name: str) -> DataType:
    """Inverse of type_name(); KeyError if the name is not an element type."""
    return _BY_SCHEMA_NAME[name]


# Every element type this version knows, UNDEFINED left out (a set: the
# checker tests membership for every tensor and attribute it reads).
ELEMENT_TYPES = frozenset(int(t) for t in DataType if t != DataType.UNDEFINED)


def is_known(code: int) -> bool:
    """True when `code` is an element type this version knows (UNDEFINED
    included); a damaged or newer file may hold others."""
    return code in DataType._value2member_map_


def itemsize_bits(code: int) -> int:
    """Storage bits per element (strings, and undefined or unknown types of
    a damaged or newer file: 0)."""
    if not is_known(code) or code == DataType.UNDEFINED:
        return 0
    code = DataType(code)
    if code in SUB_BYTE_BITS:
        return SUB_BYTE_BITS[code]
    if code == DataType.STRING:
        return 0
    return _NUMPY[code].itemsize * 8
