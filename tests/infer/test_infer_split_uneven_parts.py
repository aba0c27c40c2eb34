"""Split with num_outputs (opset 18) may leave the last part smaller: each
part is ceil(n/k) and the last takes the rest. For a symbolic dim we said
floor(s/k) for every part, false whenever k does not divide s (7 in 4
parts is 2, 2, 2, 1: we said 1, 1, 1, 1). A split whose last part would be
negative (5 in 4) is unknown, not a dim of -1. The oracle is
onnxruntime's float run at each size, and the backend's expected outputs."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from backend_data import node_dir
from onnxstudio import core
from onnxstudio.core.infer import Inference, infer
from onnxstudio.core.infer.dims import dim_add, dim_floordiv, dim_mul, dim_sub

F = TensorProto.FLOAT


def _split(size, parts: int, opset: int = 18):
    outs = [f"y{i}" for i in range(parts)]
    g = helper.make_graph([helper.make_node("Split", ["x"], outs, axis=0, num_outputs=parts)], "g",
                          [helper.make_tensor_value_info("x", F, [size])],
                          [helper.make_tensor_value_info(o, F, None) for o in outs])
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", opset)])
    return m, outs


def _ort_sizes(m, n: int):
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    return [a.shape[0] for a in sess.run(None, {"x": np.zeros(n, np.float32)})]


def test_symbolic_parts_are_ceil_and_the_rest():
    m, outs = _split("s", 4)
    types = infer(core.load_bytes(m.SerializeToString()))
    chunk = dim_floordiv(dim_add("s", 3), 4)
    assert [types[o].shape[0] for o in outs] == [chunk] * 3 + [dim_sub("s", dim_mul(3, chunk))]
    for n in (4, 6, 7, 8, 10, 13):
        ceil = -(-n // 4)
        assert _ort_sizes(m, n) == [ceil] * 3 + [n - 3 * ceil]


@pytest.mark.parametrize("n", [0, 6, 7])
def test_known_parts_are_what_onnxruntime_gives(n):
    m, outs = _split(n, 4)
    types = infer(core.load_bytes(m.SerializeToString()))
    assert [types[o].shape[0] for o in outs] == _ort_sizes(m, n)


def test_a_negative_last_part_is_unknown_not_minus_one():
    """5 in 4 parts: onnxruntime refuses it; we said [2, 2, 2, -1]. No
    finding: onnx's AffineGrid function splits a 3-D size so in the If
    branch that never runs (node/test_affine_grid_3d_expanded)."""
    m, outs = _split(5, 4)
    with pytest.raises(Exception):
        _ort_sizes(m, 5)
    inf = Inference(core.load_bytes(m.SerializeToString()))
    types = inf.run()
    assert [types[o].shape[0] for o in outs[:3]] == [2, 2, 2]
    assert not isinstance(types[outs[-1]].shape[0], int)
    assert not inf.errors


@pytest.mark.parametrize("case", ["test_split_1d_uneven_split_opset18", "test_split_2d_uneven_split_opset18"])
def test_backend_uneven_splits_with_a_symbolic_axis(case):
    """The backend's own uneven cases with the split axis named `s`: each
    part, with s the input's size, is the expected output's."""
    proto = onnx.load(str(node_dir() / case / "model.onnx"))
    axis = {a.name: a.i for a in proto.graph.node[0].attribute}.get("axis", 0)
    dims = proto.graph.input[0].type.tensor_type.shape.dim
    size = dims[axis].dim_value
    dims[axis].Clear()
    dims[axis].dim_param = "s"
    del proto.graph.value_info[:]
    for o in proto.graph.output:
        o.ClearField("type")
    types = infer(core.load_bytes(proto.SerializeToString()))
    expected = [onnx.load_tensor(str(p)) for p in sorted((node_dir() / case / "test_data_set_0").glob("output_*.pb"))]
    parts = len(proto.graph.output)
    ceil = -(-size // parts)
    values = {dim_floordiv(dim_add("s", parts - 1), parts): ceil}
    values[dim_sub("s", dim_mul(parts - 1, dim_floordiv(dim_add("s", parts - 1), parts)))] = size - (parts - 1) * ceil
    for o, t in zip(proto.graph.output, expected):
        assert values[types[o.name].shape[axis]] == t.dims[axis]


def test_an_invalid_num_outputs_counts_the_outputs():
    """num_outputs -1 on a Split with two outputs (the checker's finding;
    onnxruntime refuses it at load, but inside a function body, as in a
    fuzzed test_rotary_embedding_no_position_ids_rotary_dim_expanded, it
    ran and split in two): we said [-4] and [8]."""
    outs = ["y0", "y1"]
    g = helper.make_graph([helper.make_node("Split", ["x"], outs, axis=0, num_outputs=-1)], "g",
                          [helper.make_tensor_value_info("x", F, [4])],
                          [helper.make_tensor_value_info(o, F, None) for o in outs])
    m = helper.make_model(g, ir_version=9, opset_imports=[helper.make_opsetid("", 18)])
    types = infer(core.load_bytes(m.SerializeToString()))
    assert [types[o].shape[0] for o in outs] == [2, 2]
