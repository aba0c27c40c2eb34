"""Rules for TensorProto / SparseTensorProto: data vs dims and type, the one
data field rule, external data, sparse indices."""
from __future__ import annotations

import os
import stat
import pathlib

import numpy as np

from ..ir.dtypes import ELEMENT_TYPES, SUB_BYTE_BITS, DataType, itemsize_bits, type_name
from ..proto import onnx_pb2 as pb
from ..ir.text import as_text
from .file_form import STAND_IN_SIZE, raw_data_length

_DATA_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")
_EXTERNAL_KEYS = frozenset({"location", "offset", "length", "checksum", "basepath"})

# Which typed field holds each element type, and how many entries per element
# (None: packed several elements per entry; see _typed_count).
_FIELD_OF = {}
for _t in (DataType.FLOAT, DataType.COMPLEX64):
    _FIELD_OF[_t] = "float_data"
for _t in (DataType.DOUBLE, DataType.COMPLEX128):
    _FIELD_OF[_t] = "double_data"
for _t in (DataType.UINT32, DataType.UINT64):
    _FIELD_OF[_t] = "uint64_data"
_FIELD_OF[DataType.INT64] = "int64_data"
_FIELD_OF[DataType.STRING] = "string_data"
for _t in DataType:
    if _t not in _FIELD_OF and _t != DataType.UNDEFINED:
        _FIELD_OF[_t] = "int32_data"

# The element type a tensor first became legal in (IR version), for the
# "feature newer than the file's IR version" rule.
DTYPE_SINCE_IR = {
    DataType.BFLOAT16: 4,
    DataType.FLOAT8E4M3FN: 9, DataType.FLOAT8E4M3FNUZ: 9, DataType.FLOAT8E5M2: 9, DataType.FLOAT8E5M2FNUZ: 9,
    DataType.UINT4: 10, DataType.INT4: 10,
    DataType.FLOAT4E2M1: 11,
    DataType.FLOAT8E8M0: 12,
    DataType.UINT2: 13, DataType.INT2: 13,
    DataType.FLOAT6E2M3: 14, DataType.FLOAT6E3M2: 14,
}


def _typed_count(dtype: int, n: int) -> int:
    """Entries the typed field must hold for n elements."""
    if dtype in (DataType.COMPLEX64, DataType.COMPLEX128):
        return 2 * n
    bits = SUB_BYTE_BITS.get(dtype)
    if bits in (2, 4):
        per = 8 // bits
        return (n + per - 1) // per
    return n


def _raw_bytes(dtype: int, n: int) -> int:
    return (n * itemsize_bits(dtype) + 7) // 8


_TF = pb.TensorProto.DESCRIPTOR.fields_by_name
_RAW_FIELD = _TF["raw_data"]
# Plain-int tables for tensor_clean (enum lookups cost more than its checks):
# element type -> (its typed data field, entries per element or 0 when
# packed, storage bits, first IR version).
_FAST = {}
for _t in ELEMENT_TYPES:
    _bits = SUB_BYTE_BITS.get(_t)
    _FAST[_t] = (_TF[_FIELD_OF[_t]], 0 if _bits in (2, 4) else 2 if _t in (DataType.COMPLEX64, DataType.COMPLEX128)
                 else 1, itemsize_bits(_t), int(DTYPE_SINCE_IR.get(_t, 0)))
_STRING = int(DataType.STRING)
# What tensor_clean makes of each field: 0 ignored, 1 dims, 2 data_type,
# 3 a data field; any other field set (external data, data_location, segment,
# metadata) leaves the tensor to check_tensor.
_ROLE = {_TF["name"]: 0, _TF["doc_string"]: 0, _TF["dims"]: 1, _TF["data_type"]: 2, _RAW_FIELD: 3,
         **{_TF[name]: 3 for name in _DATA_FIELDS}}


def tensor_clean(t: pb.TensorProto, ir_version: int) -> int:
    """The element type of `t` when check_tensor would find nothing in it,
    else 0: the cheap test (one ListFields call) the lean pass runs before
    any path is built."""
    dtype = 0
    dims = ()
    data = None
    for fd, value in t.ListFields():
        role = _ROLE.get(fd)
        if role == 3:
            if data is not None:
                return 0
            data = fd
            length = len(value)
            if length == STAND_IN_SIZE and fd is _RAW_FIELD:     # only then can it be a stand-in
                length = raw_data_length(value)
        elif role == 1:
            dims = value
        elif role == 2:
            dtype = value
        elif role != 0:
            return 0
    fast = _FAST.get(dtype)
    if fast is None:
        return 0
    field, per, bits, since = fast
    if since and ir_version and ir_version < since:
        return 0
    n = 1
    for d in dims:
        if d < 0:
            return 0
        n *= d
    if data is None:
        return dtype if n == 0 else 0
    if n == 0:
        return 0
    if data is _RAW_FIELD:
        return dtype if dtype != _STRING and length == (n * bits + 7) // 8 else 0
    if data is not field:
        return 0
    want = n * per if per else (n * bits + 7) // 8
    return dtype if length == want else 0


def check_tensor(t: pb.TensorProto, path: str, ctx, out) -> None:
    """`ctx` gives `model_dir` (Path or None) and `ir_version`."""
    dtype = t.data_type
    if dtype == 0:
        out.add("tensor.dtype-missing", path, "the tensor has no element type (data_type is UNDEFINED); set one")
        return
    if dtype not in ELEMENT_TYPES:
        out.add("tensor.dtype-unknown", path, f"data_type {dtype} is not an ONNX element type")
        return
    since = DTYPE_SINCE_IR.get(dtype)
    if since and ctx.ir_version and ctx.ir_version < since:
        out.add("model.feature-too-new", path,
                f"element type {type_name(dtype)} needs IR version {since}; the model declares {ctx.ir_version}")
    n = 1
    for d in t.dims:
        if d < 0:
            out.add("tensor.negative-dim", path, f"dims {list(t.dims)} contain a negative size")
            return
        n *= d
    # Each read of raw_data copies the bytes (upb): read its length once.
    raw_len = raw_data_length(t.raw_data) if t.HasField("raw_data") else 0
    fields = [f for f in _DATA_FIELDS if len(getattr(t, f))]
    if raw_len:
        fields.append("raw_data")
    if t.data_location == pb.TensorProto.EXTERNAL:
        if fields:
            out.add("tensor.external-with-data", path,
                    f"the data is declared external but {fields[0]} is also set; keep only one")
        _check_external(t, path, ctx, out, _raw_bytes(dtype, n) if dtype != DataType.STRING else None)
        return
    if len(fields) > 1:
        out.add("tensor.multiple-data-fields", path,
                f"data is stored in both {fields[0]} and {fields[1]}; a tensor has exactly one data field")
        return
    if not fields:
        if n:
            out.add("tensor.no-data", path, f"the tensor has {n} elements but no data")
        return
    field = fields[0]
    if n == 0:
        out.add("tensor.data-for-empty", path, f"the tensor has 0 elements (dims {list(t.dims)}) but {field} is set")
        return
    if field == "raw_data":
        if dtype == DataType.STRING:
            out.add("tensor.string-raw", path, "string tensors cannot use raw_data; use string_data")
            return
        want, have = _raw_bytes(dtype, n), raw_len
        if have != want:
            out.add("tensor.data-length", path,
                    f"raw_data has {have} bytes; {type_name(dtype)} dims {list(t.dims)} need {want}")
        return
    expected_field = _FIELD_OF[dtype]
    if field != expected_field:
        out.add("tensor.wrong-data-field", path,
                f"{type_name(dtype)} data belongs in {expected_field}, not {field}")
        return
    want, have = _typed_count(dtype, n), len(getattr(t, field))
    if have != want:
        out.add("tensor.data-length", path,
                f"{field} has {have} entries; {type_name(dtype)} dims {list(t.dims)} need {want}")


def _check_external(t, path, ctx, out, nbytes) -> None:
    seen = {}
    for e in t.external_data:
        if e.key not in _EXTERNAL_KEYS:
            out.add("tensor.external-key", path,
                    f"external_data key {as_text(e.key)!r} is not one of location/offset/length/checksum")
        elif e.key in seen:
            out.add("tensor.external-key", path, f"external_data key {as_text(e.key)!r} is given twice")
        seen[e.key] = e.value
    location = as_text(seen.get("location", ""))
    if not location:
        out.add("tensor.external-location", path, "external data has no location; give the file name")
        return
    offset = length = None
    for key in ("offset", "length"):
        if key in seen:
            try:
                value = int(seen[key])
                if value < 0:
                    raise ValueError
            except ValueError:
                out.add("tensor.external-range", path,
                        f"external_data {key} {as_text(seen[key])!r} is not a non-negative integer")
                return
            if key == "offset":
                offset = value
            else:
                length = value
    rel = pathlib.PurePosixPath(location.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or (len(location) > 1 and location[1] == ":"):
        out.add("tensor.external-location", path,
                f"external data location {location!r} must be a relative path inside the model's folder")
        return
    if ctx.model_dir is None:
        out.add("tensor.external-unverified", path,
                f"external file {location!r} not checked: the model was not loaded from a folder")
        return
    base = pathlib.Path(ctx.model_dir)
    target = base / rel
    try:
        resolved = target.resolve()
        if not resolved.is_relative_to(base.resolve()):
            out.add("tensor.external-location", path, f"external data {location!r} resolves outside the model's folder")
            return
        st = os.stat(resolved)
    except OSError:
        out.add("tensor.external-missing-file", path,
                f"external data file {location!r} does not exist in the model's folder {base}; "
                "put the file back there, next to the model")
        return
    if not stat.S_ISREG(st.st_mode):
        # A folder, FIFO or device cannot hold tensor bytes (and reading a
        # FIFO would block): loading refuses them, so the checker says so too.
        out.add("tensor.external-missing-file", path,
                f"external data {location!r} is not a regular file; point it at the file holding the data")
        return
    size = st.st_size
    start = offset or 0
    if length is not None and nbytes is not None and length != nbytes:
        out.add("tensor.external-range", path, f"external length {length} bytes, but dims and type need {nbytes}")
    end = start + (length if length is not None else (nbytes or 0))
    if end > size:
        out.add("tensor.external-range", path,
                f"bytes {start}..{end} of {location!r} are needed but the file has {size} bytes")


def _int64_values(t: pb.TensorProto) -> np.ndarray:
    if t.HasField("raw_data"):
        return np.frombuffer(t.raw_data, dtype="<i8")
    return np.array(t.int64_data, dtype=np.int64)


def check_sparse(sp: pb.SparseTensorProto, path: str, ctx, out) -> None:
    before = len(out.items)
    values = sp.values
    check_tensor(values, f"{path}/values", ctx, out)
    if len(values.dims) != 1:
        out.add("sparse.values-rank", path, f"values must be 1-D; dims are {list(values.dims)}")
        return
    nnz = values.dims[0]
    dims = list(sp.dims)
    if not dims or any(d <= 0 for d in dims):
        out.add("sparse.dims", path, f"dense dims {dims} must be a non-empty list of positive sizes")
        return
    if not sp.HasField("indices"):
        if nnz:
            out.add("sparse.indices-shape", path, f"{nnz} values but no indices")
        return
    idx = sp.indices
    check_tensor(idx, f"{path}/indices", ctx, out)
    if idx.data_type != DataType.INT64:
        out.add("sparse.indices-type", path, f"indices must be int64, not {type_name(idx.data_type)}")
        return
    if len(out.items) > before:
        return      # broken tensor data: index values cannot be read reliably
    rank = len(dims)
    shape = list(idx.dims)
    if shape not in ([nnz], [nnz, rank]):
        out.add("sparse.indices-shape", path,
                f"indices dims {shape} must be [{nnz}] (linear) or [{nnz}, {rank}] (coordinates)")
        return
    data = _int64_values(idx)
    if len(shape) == 2:
        coords = data.reshape(nnz, rank)
        bad = (coords < 0) | (coords >= np.array(dims))
        if bad.any():
            i = int(np.argwhere(bad)[0][0])
            out.add("sparse.index-range", path, f"index {coords[i].tolist()} of value {i} is outside dims {dims}")
            return
        if nnz > 1:
            # Lexicographic order without linearising (dims may overflow int64).
            step = coords[1:] - coords[:-1]
            moved = step != 0
            first = moved.argmax(axis=1)
            ok = moved.any(axis=1) & (step[np.arange(nnz - 1), first] > 0)
            if not ok.all():
                i = int(np.argmin(ok)) + 1
                out.add("sparse.index-order", path, f"index of value {i} does not come after the previous one")
        return
    total = 1
    for d in dims:
        total *= d
    bad = (data < 0) | (data >= total) if total < 2**63 else (data < 0)
    if bad.any():
        i = int(np.argmax(bad))
        out.add("sparse.index-range", path, f"linear index {int(data[i])} of value {i} is outside 0..{total - 1}")
        return
    if nnz > 1 and not (np.diff(data) > 0).all():
        i = int(np.argmax(np.diff(data) <= 0)) + 1
        out.add("sparse.index-order", path, f"index of value {i} does not come after the previous one")
