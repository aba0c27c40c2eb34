"""The checker reports, it never raises: damaged files that still parse
give diagnostics, not exceptions (and no check.internal: a checker bug)."""
from __future__ import annotations

import random

import pytest

from check_bases import base_names, load_base
from onnxstudio.core.check import CheckSession, check
from onnxstudio.core.proto import onnx_pb2 as pb


def _parses(data: bytes):
    m = pb.ModelProto()
    try:
        m.ParseFromString(data)
    except Exception:  # noqa: BLE001 - not a message at all: not this test's subject
        return None
    return m


@pytest.mark.parametrize("base", base_names()[:12])
def test_byte_damage_never_raises(base, tmp_path):
    data = bytearray(load_base(base).SerializeToString())
    rng = random.Random(base)
    checked = 0
    for _ in range(150):
        damaged = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        m = _parses(bytes(damaged))
        if m is None:
            continue
        diags = CheckSession(m, model_dir=tmp_path).diagnostics
        internal = [d for d in diags if d.code == "check.internal"]
        assert not internal, internal
        checked += 1
    assert checked > 20


def test_odd_values_are_reported_not_raised(tmp_path):
    m = load_base("convnet")
    m.graph.initializer[0].data_type = 200                 # unknown element type
    m.graph.initializer[1].dims[:] = [2**40, 2**40]         # huge element count
    m.opset_import[0].version = 10**9
    m.graph.input[0].type.tensor_type.elem_type = 77
    diags = check(m, model_dir=tmp_path)
    assert not [d for d in diags if d.code == "check.internal"], diags
    codes = {d.code for d in diags}
    assert {"tensor.dtype-unknown", "tensor.data-length"} <= codes


def test_sparse_checks_survive_huge_dense_shapes():
    from onnx import helper, numpy_helper
    import numpy as np
    values = numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "sp")
    coords = numpy_helper.from_array(np.array([[0, 5], [0, 3]], np.int64), "idx")
    m = load_base("convnet")
    m.graph.sparse_initializer.append(helper.make_sparse_tensor(values, coords, [2**40, 2**40]))
    diags = check(m)
    assert not [d for d in diags if d.code == "check.internal"]
    assert [d.path for d in diags if d.code == "sparse.index-order"] == ['graph/sparse_initializer "sp"']
    linear = numpy_helper.from_array(np.array([3, 2**62], np.int64), "idx")
    m.graph.sparse_initializer[0].indices.CopyFrom(linear)
    assert not [d for d in check(m) if d.code.startswith(("sparse.", "check."))]
