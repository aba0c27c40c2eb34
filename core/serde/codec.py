"""Tensor codec: TensorProto <-> numpy, for every ONNX element type.

Decoding never copies raw bytes it does not have to: little-endian raw data of
whole-byte types becomes a read-only `np.frombuffer` view. Sub-byte types
(4-, 2- and 6-bit) are packed as the ONNX spec says: 4-bit values two per byte
and 2-bit values four per byte, first element in the lowest bits; 6-bit values
four per three bytes, again lowest bits first. In the typed field `int32_data`
4- and 2-bit kinds hold one packed byte per entry, while 16-bit, 8-bit and
6-bit kinds hold one element per entry.
"""
from __future__ import annotations

import sys
from typing import Optional

import numpy as np

from ..errors import CoreError
from ..ir.dtypes import DataType, to_numpy_dtype
from ..proto import onnx_pb2 as pb

_BIG_ENDIAN = sys.byteorder == "big"

_INT32_WIDE = {DataType.INT32, DataType.INT16, DataType.INT8, DataType.UINT8, DataType.BOOL}
_INT32_BITS16 = {DataType.FLOAT16, DataType.BFLOAT16, DataType.UINT16}
_INT32_BITS8 = {DataType.FLOAT8E4M3FN, DataType.FLOAT8E4M3FNUZ, DataType.FLOAT8E5M2,
                DataType.FLOAT8E5M2FNUZ, DataType.FLOAT8E8M0}
_NIBBLE = {DataType.INT4, DataType.UINT4, DataType.FLOAT4E2M1}
_CRUMB = {DataType.INT2, DataType.UINT2}
_SIX_BIT = {DataType.FLOAT6E2M3, DataType.FLOAT6E3M2}


class TensorDataError(CoreError, ValueError):
    """The tensor's stored data does not fit its declared type and dims (bad
    input, so a CoreError; still a ValueError for callers decoding arrays)."""


def element_count(dims) -> int:
    n = 1
    for d in dims:
        n *= int(d)
    return n


# --- sub-byte packing ----------------------------------------------------------

def unpack_bits(packed: np.ndarray, bits: int, count: int) -> np.ndarray:
    """Unpack `count` values of `bits` (2 or 4) bits each, lowest bits first."""
    per_byte = 8 // bits
    packed = np.asarray(packed, dtype=np.uint8).reshape(-1)
    if packed.size * per_byte < count:
        raise TensorDataError(f"{packed.size} bytes hold fewer than {count} {bits}-bit values")
    mask = (1 << bits) - 1
    shifts = np.arange(per_byte, dtype=np.uint8) * bits
    out = (packed[:, None] >> shifts) & mask
    return out.reshape(-1)[:count].astype(np.uint8)


def pack_bits(values: np.ndarray, bits: int) -> np.ndarray:
    per_byte = 8 // bits
    v = np.asarray(values).reshape(-1).view(np.uint8) & ((1 << bits) - 1)
    pad = (-v.size) % per_byte
    if pad:
        v = np.concatenate([v, np.zeros(pad, np.uint8)])
    v = v.reshape(-1, per_byte).astype(np.uint8)
    shifts = np.arange(per_byte, dtype=np.uint8) * bits
    return np.bitwise_or.reduce(v << shifts, axis=1).astype(np.uint8)


def unpack_6bit(packed: np.ndarray, count: int) -> np.ndarray:
    data = np.asarray(packed, dtype=np.uint8).reshape(-1)
    groups = -(-count // 4)
    if data.size < -(-count * 6 // 8):
        raise TensorDataError(f"{data.size} bytes hold fewer than {count} 6-bit values")
    buf = np.zeros(groups * 3, np.uint8)
    buf[: min(data.size, buf.size)] = data[: buf.size]
    b0, b1, b2 = buf[0::3], buf[1::3], buf[2::3]
    out = np.empty((groups, 4), np.uint8)
    out[:, 0] = b0 & 0x3F
    out[:, 1] = (b0 >> 6) | ((b1 & 0x0F) << 2)
    out[:, 2] = (b1 >> 4) | ((b2 & 0x03) << 4)
    out[:, 3] = b2 >> 2
    return out.reshape(-1)[:count]


def pack_6bit(values: np.ndarray) -> np.ndarray:
    v = np.asarray(values).reshape(-1).view(np.uint8) & 0x3F
    count = v.size
    pad = (-count) % 4
    if pad:
        v = np.concatenate([v, np.zeros(pad, np.uint8)])
    v = v.reshape(-1, 4)
    out = np.empty((v.shape[0], 3), np.uint8)
    out[:, 0] = v[:, 0] | ((v[:, 1] & 0x03) << 6)
    out[:, 1] = (v[:, 1] >> 2) | ((v[:, 2] & 0x0F) << 4)
    out[:, 2] = (v[:, 2] >> 4) | (v[:, 3] << 2)
    return out.reshape(-1)[: -(-count * 6 // 8)]


# --- decoding ----------------------------------------------------------------------

def decode_raw(raw, data_type: int, dims) -> np.ndarray:
    """numpy array from little-endian raw bytes (bytes, memoryview or mmap slice)."""
    code = DataType(data_type)
    dtype = to_numpy_dtype(code)
    count = element_count(dims)
    shape = tuple(int(d) for d in dims)
    if code == DataType.STRING:
        raise TensorDataError("STRING tensors cannot use raw_data")
    if code in _NIBBLE or code in _CRUMB:
        bits = 4 if code in _NIBBLE else 2
        return unpack_bits(np.frombuffer(raw, np.uint8), bits, count).view(dtype).reshape(shape)
    if code in _SIX_BIT:
        return unpack_6bit(np.frombuffer(raw, np.uint8), count).view(dtype).reshape(shape)
    nbytes = len(raw) if not isinstance(raw, np.ndarray) else raw.nbytes
    if nbytes != count * dtype.itemsize:
        raise TensorDataError(
            f"raw_data has {nbytes} bytes but {count} elements of {code.name} need {count * dtype.itemsize}")
    arr = np.frombuffer(raw, dtype=dtype.newbyteorder("<") if _BIG_ENDIAN and dtype.itemsize > 1 else dtype)
    if _BIG_ENDIAN and dtype.itemsize > 1:
        arr = arr.astype(dtype)
    return arr.reshape(shape)


def _typed(t: pb.TensorProto, code: DataType, shape: tuple, count: int) -> np.ndarray:
    dtype = to_numpy_dtype(code)
    if code == DataType.STRING:
        out = np.empty(len(t.string_data), dtype=object)
        for i, s in enumerate(t.string_data):
            try:
                out[i] = s.decode("utf-8")
            except UnicodeDecodeError:
                out[i] = s
        arr = out
    elif code == DataType.FLOAT:
        arr = np.array(t.float_data, dtype=np.float32)
    elif code == DataType.COMPLEX64:
        arr = np.array(t.float_data, dtype=np.float32).view(np.complex64)
    elif code == DataType.DOUBLE:
        arr = np.array(t.double_data, dtype=np.float64)
    elif code == DataType.COMPLEX128:
        arr = np.array(t.double_data, dtype=np.float64).view(np.complex128)
    elif code == DataType.INT64:
        arr = np.array(t.int64_data, dtype=np.int64)
    elif code in (DataType.UINT32, DataType.UINT64):
        arr = np.array(t.uint64_data, dtype=np.uint64).astype(dtype)
    elif code in _INT32_WIDE:
        arr = np.array(t.int32_data, dtype=np.int32).astype(dtype)
    elif code in _INT32_BITS16:
        arr = np.array(t.int32_data, dtype=np.int32).view(np.uint32).astype(np.uint16).view(dtype)
    elif code in _INT32_BITS8:
        arr = np.array(t.int32_data, dtype=np.int32).view(np.uint32).astype(np.uint8).view(dtype)
    elif code in _SIX_BIT:
        arr = (np.array(t.int32_data, dtype=np.int32).view(np.uint32).astype(np.uint8) & 0x3F).view(dtype)
    elif code in _NIBBLE or code in _CRUMB:
        packed = np.array(t.int32_data, dtype=np.int32).view(np.uint32).astype(np.uint8)
        arr = unpack_bits(packed, 4 if code in _NIBBLE else 2, count).view(dtype)
    else:
        raise TensorDataError(f"no typed field for element type {code.name}")
    if arr.size != count:
        raise TensorDataError(f"{arr.size} stored elements but dims {list(shape)} need {count}")
    return arr.reshape(shape)


def to_numpy(t: pb.TensorProto, raw=None) -> np.ndarray:
    """Decode a TensorProto. `raw` overrides `t.raw_data` (external or mmap'd bytes).

    Raises TensorDataError (a ValueError) when data and dims disagree.
    """
    if t.HasField("segment"):
        raise TensorDataError("segmented tensors are not supported")
    try:
        code = DataType(t.data_type)
    except ValueError:
        raise TensorDataError(f"unknown element type {t.data_type}") from None
    if code == DataType.UNDEFINED:
        raise TensorDataError("element type is UNDEFINED")
    shape = tuple(int(d) for d in t.dims)
    if raw is None and t.HasField("raw_data"):
        raw = t.raw_data
    if raw is not None:
        return decode_raw(raw, code, shape)
    return _typed(t, code, shape, element_count(shape))


# --- encoding --------------------------------------------------------------------------

def tensor_bytes(array: np.ndarray, data_type: int) -> bytes:
    """Little-endian raw bytes of `array` as ONNX stores them (packing sub-byte types)."""
    code = DataType(data_type)
    if code in _NIBBLE:
        return pack_bits(array, 4).tobytes()
    if code in _CRUMB:
        return pack_bits(array, 2).tobytes()
    if code in _SIX_BIT:
        return pack_6bit(array).tobytes()
    arr = np.ascontiguousarray(array)
    if _BIG_ENDIAN and arr.dtype.itemsize > 1:
        arr = arr.astype(arr.dtype.newbyteorder("<"))
    return arr.tobytes()


def from_numpy(array, name: str = "", data_type: Optional[int] = None) -> pb.TensorProto:
    """TensorProto holding `array` (raw_data, or string_data for strings)."""
    from ..ir.dtypes import from_numpy_dtype  # local: keeps import graph flat

    array = np.asarray(array)
    code = DataType(data_type) if data_type is not None else from_numpy_dtype(array.dtype)
    t = pb.TensorProto()
    if name:
        t.name = name
    t.data_type = code
    t.dims.extend(int(d) for d in array.shape)
    if code == DataType.STRING:
        t.string_data.extend(s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in array.reshape(-1))
    else:
        if array.dtype != to_numpy_dtype(code):
            array = array.astype(to_numpy_dtype(code))
        t.raw_data = tensor_bytes(array, code)
    return t


def sparse_to_dense(values: np.ndarray, indices: np.ndarray, dims) -> np.ndarray:
    """Densify a COO sparse tensor (indices [NNZ] linearised or [NNZ, rank])."""
    shape = tuple(int(d) for d in dims)
    dense = np.zeros(shape, dtype=values.dtype) if values.dtype != object else np.full(shape, "", dtype=object)
    idx = np.asarray(indices, dtype=np.int64)
    if idx.ndim == 1:
        dense.reshape(-1)[idx] = values.reshape(-1)
    elif idx.ndim == 2 and idx.shape[1] == len(shape):
        dense[tuple(idx.T)] = values.reshape(-1)
    else:
        raise TensorDataError(f"sparse indices of shape {list(idx.shape)} do not fit dims {list(shape)}")
    return dense
