"""Tensor codec: every element type, from raw_data and from each typed field."""
import ml_dtypes
import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

from onnxstudio.core.ir.dtypes import DataType, to_numpy_dtype
from onnxstudio.core.proto import onnx_pb2 as pb
from onnxstudio.core.serde import codec

from same_bits import same_bits


def _ours(t: onnx.TensorProto) -> pb.TensorProto:
    p = pb.TensorProto()
    p.ParseFromString(t.SerializeToString())
    return p


def _sample(code: DataType, shape) -> np.ndarray:
    n = int(np.prod(shape))
    rng = np.random.default_rng(int(code))
    dt = to_numpy_dtype(code)
    if code == DataType.STRING:
        return np.array([f"s{i}é" for i in range(n)], dtype=object).reshape(shape)
    if code == DataType.BOOL:
        return (rng.random(n) > 0.5).reshape(shape)
    if code in (DataType.COMPLEX64, DataType.COMPLEX128):
        return (rng.standard_normal(n) + 1j * rng.standard_normal(n)).astype(dt).reshape(shape)
    if dt.kind in "iu" or code in (DataType.INT4, DataType.UINT4, DataType.INT2, DataType.UINT2):
        info = ml_dtypes.iinfo(dt) if code in (DataType.INT4, DataType.UINT4, DataType.INT2, DataType.UINT2) \
            else np.iinfo(dt)
        return rng.integers(int(info.min), int(info.max), n, dtype=np.int64 if info.min < 0 else np.uint64,
                            endpoint=True).astype(dt).reshape(shape)
    vals = rng.standard_normal(n) * 3
    if code == DataType.FLOAT8E8M0:
        vals = np.abs(vals) + 0.01
    out = vals.astype(np.float32).astype(dt)
    if n > 2 and code not in (DataType.FLOAT8E8M0, DataType.FLOAT4E2M1, DataType.FLOAT6E2M3, DataType.FLOAT6E3M2):
        out.reshape(-1)[1] = np.array(np.nan, dtype=np.float32).astype(dt)
    return out.reshape(shape)


CODES = [c for c in DataType if c != DataType.UNDEFINED]
SHAPES = [(), (0,), (5,), (3, 7), (2, 3, 1)]


@pytest.mark.parametrize("code", CODES, ids=lambda c: c.name)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_from_numpy_round_trips_and_matches_onnx(code, shape):
    arr = _sample(code, shape)
    t = codec.from_numpy(arr, "x", data_type=code)
    assert same_bits(codec.to_numpy(t), arr)
    theirs = onnx.TensorProto()
    theirs.ParseFromString(t.SerializeToString())
    assert same_bits(numpy_helper.to_array(theirs), arr)


@pytest.mark.parametrize("code", CODES, ids=lambda c: c.name)
@pytest.mark.parametrize("raw", [False, True])
@pytest.mark.parametrize("shape", [(), (5,), (3, 7)], ids=str)
def test_decodes_what_onnx_helper_encodes(code, raw, shape):
    if raw and code == DataType.STRING:
        pytest.skip("strings have no raw form")
    arr = _sample(code, shape)
    vals = [s.encode() for s in arr.reshape(-1)] if code == DataType.STRING else arr.reshape(-1)
    if raw:
        t = helper.make_tensor("x", int(code), shape, codec.tensor_bytes(arr, code), raw=True)
    else:
        t = helper.make_tensor("x", int(code), shape, vals)
    expected = numpy_helper.to_array(t)
    assert same_bits(codec.to_numpy(_ours(t)), expected)


def test_sub_byte_packing_is_lowest_bits_first():
    arr = np.array([1, -2, 3], dtype=ml_dtypes.int4)
    t = codec.from_numpy(arr, data_type=DataType.INT4)
    assert t.raw_data == bytes([0x1 | (0xE << 4), 0x3])
    arr2 = np.array([1, 2, 3, 0, 1], dtype=ml_dtypes.uint2)
    t2 = codec.from_numpy(arr2, data_type=DataType.UINT2)
    assert t2.raw_data == bytes([1 | 2 << 2 | 3 << 4 | 0 << 6, 1])


def test_data_and_dims_disagreeing_is_reported():
    t = pb.TensorProto(data_type=DataType.FLOAT, dims=[2, 3], raw_data=b"\0" * 20)
    with pytest.raises(codec.TensorDataError, match="24"):
        codec.to_numpy(t)
    t = pb.TensorProto(data_type=DataType.INT64, dims=[4], int64_data=[1, 2])
    with pytest.raises(codec.TensorDataError, match="need 4"):
        codec.to_numpy(t)


def test_raw_data_is_a_view_not_a_copy():
    buf = bytearray(np.arange(6, dtype=np.float32).tobytes())
    t = pb.TensorProto(data_type=DataType.FLOAT, dims=[2, 3])
    arr = codec.to_numpy(t, raw=memoryview(buf))
    buf[0:4] = np.float32(42).tobytes()
    assert arr[0, 0] == 42


@pytest.mark.parametrize("linear", [True, False])
def test_sparse_to_dense(linear):
    values = np.array([1.5, 2.5], np.float32)
    indices = np.array([1, 5]) if linear else np.array([[0, 1], [1, 2]])
    dense = codec.sparse_to_dense(values, indices, (2, 3))
    expected = np.zeros((2, 3), np.float32)
    expected.reshape(-1)[[1, 5]] = values
    assert np.array_equal(dense, expected)
