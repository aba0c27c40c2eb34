"""The executor's shortcuts give what the general paths give: constants of
enclosing graphs folded inside bodies, reused kernel contexts, and the
kernels' small-tensor fast paths."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec import Session, run
from onnxstudio.core.exec.kernels.misc import _pad, _pad_by_concatenation


def _load(graph, opset=18):
    return core.load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
                           .SerializeToString())


def _vi(name, elem=TensorProto.FLOAT, shape=None):
    return helper.make_tensor_value_info(name, elem, shape)


def _if_slicing_an_outer_weight():
    """y = x + W[1:3] when c, else x - W[0:2]; W and the slice bounds live
    outside the branches, so the Slices depend on constants only."""
    then = helper.make_graph(
        [helper.make_node("Slice", ["W", "s1", "e3"], ["w13"]), helper.make_node("Add", ["x", "w13"], ["t"])],
        "then", [], [_vi("t", shape=[2, 3])])
    other = helper.make_graph(
        [helper.make_node("Slice", ["W", "s0", "e2"], ["w02"]), helper.make_node("Sub", ["x", "w02"], ["e"])],
        "else", [], [_vi("e", shape=[2, 3])])
    w = np.arange(12, dtype=np.float32).reshape(4, 3)
    inits = [helper.make_tensor("W", TensorProto.FLOAT, [4, 3], w.ravel())]
    inits += [helper.make_tensor(n, TensorProto.INT64, [1], [v]) for n, v in
              (("s0", 0), ("s1", 1), ("e2", 2), ("e3", 3))]
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)], "g",
                          [_vi("c", TensorProto.BOOL, []), _vi("x", shape=[2, 3])], [_vi("y", shape=[2, 3])], inits)
    return _load(g), w


def test_a_body_folds_steps_on_outer_constants_and_stays_right_across_runs():
    m, w = _if_slicing_an_outer_weight()
    s = Session(m)
    rng = np.random.default_rng(0)
    for cond in (True, False, True, False):
        x = rng.standard_normal((2, 3)).astype(np.float32)
        want = x + w[1:3] if cond else x - w[0:2]
        assert np.array_equal(s.run({"c": np.array(cond), "x": x})["y"], want)
    bodies = [p for p in s._plans.values() if p is not s.plan]
    assert len(bodies) == 2
    for p in bodies:   # the Slice of the outer weight is folded, the arithmetic on x is not
        assert [st.node.op_type for st in p.live_steps] in (["Add"], ["Sub"])
        assert "W" not in p.live_outer_names and "x" in p.live_outer_names


def test_loop_body_reading_outer_values_and_carried_state():
    body = helper.make_graph(
        [helper.make_node("Gather", ["table", "i"], ["row"], axis=0),
         helper.make_node("Mul", ["row", "scale"], ["scaled"]),
         helper.make_node("Add", ["acc_in", "scaled"], ["acc_out"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [_vi("i", TensorProto.INT64, []), _vi("c_in", TensorProto.BOOL, []), _vi("acc_in", shape=[2])],
        [_vi("c_out", TensorProto.BOOL, []), _vi("acc_out", shape=[2])])
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    g = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "acc0"], ["acc"], body=body)], "g",
        [_vi("scale", shape=[2]), _vi("acc0", shape=[2])], [_vi("acc", shape=[2])],
        [helper.make_tensor("n", TensorProto.INT64, [], [4]),
         helper.make_tensor("table", TensorProto.FLOAT, [4, 2], table.ravel())])
    s = Session(_load(g))
    for scale in ([1, 1], [2, -1], [0.5, 3]):
        scale = np.array(scale, np.float32)
        acc0 = np.array([1, 2], np.float32)
        assert np.allclose(s.run({"scale": scale, "acc0": acc0})["acc"], acc0 + table.sum(0) * scale)


def test_random_draws_in_a_body_are_reseeded_every_run():
    then = helper.make_graph([helper.make_node("RandomUniformLike", ["x"], ["r"], seed=None)], "then", [],
                             [_vi("r", shape=[3])])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["o"])], "else", [], [_vi("o", shape=[3])])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)], "g",
                          [_vi("c", TensorProto.BOOL, []), _vi("x", shape=[3])], [_vi("y", shape=[3])])
    m = _load(g)
    feeds = {"c": np.array(True), "x": np.zeros(3, np.float32)}
    s = Session(m, seed=7)
    first, second = s.run(feeds)["y"], s.run(feeds)["y"]
    assert np.array_equal(first, second)
    assert np.array_equal(first, run(m, feeds, seed=7)["y"])
    assert not np.array_equal(first, run(m, feeds, seed=8)["y"])


_GATES = {"RNN": 1, "GRU": 3, "LSTM": 4}


@pytest.mark.parametrize("op,extra", [("RNN", {}), ("GRU", {}), ("GRU", {"linear_before_reset": 1}),
                                      ("LSTM", {})])
@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("seq,batch,with_bias,with_state", [(1, 1, True, True), (5, 3, True, True),
                                                            (4, 2, False, False), (0, 2, True, True)])
def test_plain_recurrences_match_the_general_path(op, extra, layout, seq, batch, with_bias, with_state):
    from onnxstudio.core.exec.kernels import rnn
    fn = {"RNN": rnn.rnn, "GRU": rnn.gru, "LSTM": rnn.lstm}[op]
    gates = _GATES[op]
    rng = np.random.default_rng(seq * 10 + batch)
    inp, hidden = 7, 4
    x = (rng.standard_normal((seq, batch, inp) if layout == 0 else (batch, seq, inp)) * 3).astype(np.float32)
    w = rng.standard_normal((1, gates * hidden, inp)).astype(np.float32)
    r = rng.standard_normal((1, gates * hidden, hidden)).astype(np.float32)
    b = rng.standard_normal((1, 2 * gates * hidden)).astype(np.float32) if with_bias else None
    state = (1, batch, hidden) if layout == 0 else (batch, 1, hidden)
    states = [rng.standard_normal(state).astype(np.float32) if with_state else None
              for _ in range(2 if op == "LSTM" else 1)]
    fast = fn(x, w, r, b, None, *states, layout=layout, **extra)
    general = fn(x, w, r, b, None, *states, layout=layout, clip=1e30, **extra)   # a clip forces the general path
    assert len(fast) == len(general)
    for got, want in zip(fast, general):
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", ["reflect", "edge"])
def test_pad_by_concatenation_equals_numpy_pad(mode):
    rng = np.random.default_rng(1)
    for shape in [(5,), (3, 4), (2, 3, 4), (1, 2)]:
        x = rng.standard_normal(shape)
        for _ in range(40):
            widths = [(int(rng.integers(0, min(4, n))), int(rng.integers(0, min(4, n)))) for n in shape]
            got = _pad_by_concatenation(x, widths, mode)
            assert got is not None and np.array_equal(got, np.pad(x, widths, mode=mode)), widths


def test_reflection_wider_than_the_axis_is_refused():
    # numpy would repeat the reflection; onnxruntime refuses it, and so do we, at the Pad.
    from onnxstudio.core.exec.errors import KernelInputError
    x = np.arange(3.0)
    assert _pad_by_concatenation(x, [(4, 0)], "reflect") is None
    with pytest.raises(KernelInputError, match="reflect padding of 5 on axis 0 of length 3"):
        _pad(x, [4, 5], "reflect", 0)
    assert np.array_equal(_pad(x, [2, 2], "reflect", 0), np.pad(x, (2, 2), mode="reflect"))
    with pytest.raises(KernelInputError, match="edge padding of axis 0, which is empty"):
        _pad(np.zeros(0), [1, 0], "edge", 0)


_CONV_CASES = [   # x shape, w shape, attributes, with bias
    ((1, 1, 640), (8, 1, 256), dict(strides=[128], pads=[0, 0], kernel_shape=[256]), False),
    ((1, 129, 4), (16, 129, 3), dict(pads=[1, 1], kernel_shape=[3]), True),
    ((3, 12, 7), (5, 12, 3), dict(pads=[2, 1], strides=[2], dilations=[2]), True),
    ((2, 3, 9, 7), (4, 3, 3, 2), dict(pads=[1, 0, 2, 1], strides=[2, 1], dilations=[1, 2]), True),
    ((2, 3, 9, 7), (4, 3, 3, 3), dict(auto_pad="SAME_UPPER"), False),
    ((1, 3, 8, 7), (4, 3, 2, 3), dict(auto_pad="SAME_LOWER", strides=[2, 2]), True),
    ((1, 3, 8, 7), (4, 3, 3, 3), dict(auto_pad="VALID"), True),
    ((2, 4, 9, 7), (4, 2, 3, 3), dict(group=2, pads=[1, 1, 1, 1]), True),
    ((1, 2, 4, 5, 6), (3, 2, 2, 3, 2), dict(pads=[1, 0, 1, 0, 1, 1]), True),
    ((1, 8, 64, 64), (16, 8, 3, 3), dict(pads=[1, 1, 1, 1]), True),     # large: the general routine
    ((1, 5, 3), (2, 5, 1), {}, True),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("xs,ws,attrs,with_bias", _CONV_CASES)
def test_prepared_conv_matches_the_general_kernel(xs, ws, attrs, with_bias, dtype):
    from onnxstudio.core.exec.kernels.conv import _prepare_conv, conv
    from onnxstudio.core.exec.registry import VARIES
    rng = np.random.default_rng(len(xs) * 100 + ws[0])
    x = rng.standard_normal(xs).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    args = (x, w) + ((rng.standard_normal(ws[0]).astype(dtype),) if with_bias else ())
    prepared = _prepare_conv((VARIES,) + args[1:], attrs)
    want = conv(*args, **attrs)
    for _ in range(2):   # the second call reuses the geometry worked out by the first
        got = prepared(*args)
        assert got.shape == want.shape and got.dtype == want.dtype
        tol = 1e-2 if dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol)


def test_feed_checks_bind_symbolic_dims_across_inputs_and_runs():
    from onnxstudio.core.exec import FeedError
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["c"])], "g",
                          [_vi("a", shape=["n", 3]), _vi("b", shape=["n", 3])], [_vi("c", shape=["n", 3])])
    s = Session(_load(g))
    for n in (2, 5):    # a new run binds `n` afresh
        x = np.ones((n, 3), np.float32)
        assert s.run({"a": x, "b": x})["c"].shape == (n, 3)
    with pytest.raises(FeedError, match=r"dimension 0 \(n\) is 4, but another input already set n = 2"):
        s.run({"a": np.ones((2, 3), np.float32), "b": np.ones((4, 3), np.float32)})
    with pytest.raises(FeedError, match=r"expected float\[n,3\], got double\[2,3\]"):
        s.run({"a": np.ones((2, 3)), "b": np.ones((2, 3), np.float32)})
    with pytest.raises(FeedError, match=r"dimension 1 is 4, not 3"):
        s.run({"a": np.ones((2, 4), np.float32), "b": np.ones((2, 3), np.float32)})


def test_prepared_cast_matches_the_kernel_and_stays_silent():
    import warnings

    from onnxstudio.core.exec.kernels.cast import _prepare_cast, cast
    from onnxstudio.core.exec.registry import VARIES
    from onnxstudio.core.ir.dtypes import DataType
    values = [np.array([1.5, -2.7, np.nan, np.inf, 1e40, 300, -1]), np.array([True, False]),
              np.array([1, -5, 300, 70000, 2 ** 62], np.int64), np.array([0.5, -1.5, 1e6], np.float32),
              np.array([1, 2], np.uint8), np.array([1.0, 2.0], np.float16), np.array([2 ** 63 + 5], np.uint64)]
    targets = [DataType.FLOAT, DataType.DOUBLE, DataType.INT64, DataType.INT32, DataType.INT8, DataType.UINT8,
               DataType.UINT64, DataType.BOOL, DataType.FLOAT16, DataType.BFLOAT16, DataType.FLOAT8E4M3FN,
               DataType.STRING]
    for to in targets:
        prepared = _prepare_cast((VARIES,), {"to": int(to)})
        for x in values:
            with warnings.catch_warnings():
                warnings.simplefilter("error")       # the quick path must not trip numpy's warnings
                got = prepared(x)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = cast(x, int(to))
            assert got.dtype == want.dtype and got is not x
            if got.dtype == object:
                assert list(got) == list(want)
            else:
                wide = [a.astype(np.float64) if a.dtype.kind == "V" else a for a in (got, want)]
                assert np.array_equal(*wide, equal_nan=got.dtype.kind in "fV"), (to, x.dtype)


@pytest.mark.parametrize("mode", ["constant", "reflect", "edge", "wrap"])
def test_pad_with_negative_and_axis_pads_matches_numpy(mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    # axes 0..2: begin 1,-1,b  end 0,1,-2 (a reflection of the 2 values left on the last axis reaches 1 out)
    b = 1 if mode == "reflect" else 2
    got = _pad(x, [1, -1, b, 0, 1, -2], mode, 7.0)
    cropped = x[:, 1:, :2]
    want = np.pad(cropped, [(1, 0), (0, 1), (b, 0)], mode=mode,
                  **({"constant_values": 7.0} if mode == "constant" else {}))
    assert np.array_equal(got, want)
    got_axes = _pad(x, [2, 1], mode, 0.0, axes=[-1])
    assert np.array_equal(got_axes, np.pad(x, [(0, 0), (0, 0), (2, 1)], mode=mode))


def test_repeated_runs_report_kernel_failures_with_the_node():
    from onnxstudio.core.exec import ExecError
    g = helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["r"], name="to_pairs"),
         helper.make_node("Split", ["r"], ["a", "b"], axis=1, num_outputs=2, name="halves"),
         helper.make_node("Sub", ["a", "b"], ["y"])], "g",
        [_vi("x", shape=None)], [_vi("y", shape=None)],
        [helper.make_tensor("shape", TensorProto.INT64, [2], [-1, 2])])
    s = Session(_load(g))
    for _ in range(3):     # the first run compiles the fast steps, later ones use them
        assert np.array_equal(s.run({"x": np.arange(6, dtype=np.float32)})["y"], -np.ones((3, 1), np.float32))
    with pytest.raises(ExecError, match=r'to_pairs.*Reshape failed.*float\[5\]'):
        s.run({"x": np.arange(5, dtype=np.float32)})
    assert np.array_equal(s.run({"x": np.arange(4, dtype=np.float32)})["y"], -np.ones((2, 1), np.float32))


def test_nested_loops_see_the_enclosing_iteration_values():
    """The inner body reads the outer body's per-iteration value `row`: a
    loop's runner must look enclosing values up per Loop call, not once."""
    inner = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "row"], ["acc_out"]), helper.make_node("Identity", ["c_in"], ["c_out"])],
        "inner", [_vi("j", TensorProto.INT64, []), _vi("c_in", TensorProto.BOOL, []), _vi("acc_in", shape=[2])],
        [_vi("c_out", TensorProto.BOOL, []), _vi("acc_out", shape=[2])])
    outer = helper.make_graph(
        [helper.make_node("Gather", ["table", "i"], ["row"], axis=0),
         helper.make_node("Loop", ["three", "", "tot_in"], ["tot_out"], body=inner),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "outer", [_vi("i", TensorProto.INT64, []), _vi("c_in", TensorProto.BOOL, []), _vi("tot_in", shape=[2])],
        [_vi("c_out", TensorProto.BOOL, []), _vi("tot_out", shape=[2])])
    table = np.arange(8, dtype=np.float32).reshape(4, 2)
    g = helper.make_graph(
        [helper.make_node("Loop", ["n", "", "zero"], ["total"], body=outer)], "g",
        [_vi("zero", shape=[2])], [_vi("total", shape=[2])],
        [helper.make_tensor("n", TensorProto.INT64, [], [4]), helper.make_tensor("three", TensorProto.INT64, [], [3]),
         helper.make_tensor("table", TensorProto.FLOAT, [4, 2], table.ravel())])
    s = Session(_load(g))
    for start in (0.0, 1.0):
        got = s.run({"zero": np.full(2, start, np.float32)})["total"]
        assert np.allclose(got, start + 3 * table.sum(0))


def test_keep_returns_every_value_on_every_run():
    g = helper.make_graph(
        [helper.make_node("Constant", [], ["k"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [2.0])),
         helper.make_node("Mul", ["k", "k"], ["k2"]),          # constant-only: folded after the first run
         helper.make_node("Add", ["x", "k2"], ["y"])], "g", [_vi("x", shape=[1])], [_vi("y", shape=[1])])
    s = Session(_load(g), keep=True)
    feeds = {"x": np.ones(1, np.float32)}
    seen = []
    for _ in range(3):
        s.run(feeds)
        seen.append(s.values)
    assert all(set(v) == {"x", "k", "k2", "y"} for v in seen)
    assert all(np.array_equal(v["k"], [2.0]) and np.array_equal(v["y"], [5.0]) for v in seen)


def test_prepared_conv_keeps_few_geometries_when_shapes_keep_changing():
    from onnxstudio.core.exec.kernels import _conv_prepared
    from onnxstudio.core.exec.kernels.conv import _prepare_conv, conv
    from onnxstudio.core.exec.registry import VARIES
    w = np.random.default_rng(0).standard_normal((3, 2, 3)).astype(np.float32)
    prepared = _prepare_conv((VARIES, w), {"pads": [1, 1]})
    for length in range(4, 40):
        x = np.ones((1, 2, length), np.float32)
        assert np.allclose(prepared(x, w), conv(x, w, pads=[1, 1]), atol=1e-5)
    kept = [c.cell_contents for c in prepared.__closure__ if isinstance(c.cell_contents, dict)]
    assert kept and all(len(d) <= _conv_prepared._SHAPES_KEPT for d in kept)


def test_shape_arithmetic_is_remembered_by_value_and_follows_new_shapes():
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the integer steps
    remember results per input value, so alternating input shapes must still
    give each its own answer."""
    g = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["s"]),
         helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
         helper.make_node("Unsqueeze", ["n", "axes"], ["n1"]),
         helper.make_node("Mul", ["n1", "two"], ["n2"]),
         helper.make_node("Concat", ["n2", "minus_one"], ["shape"], axis=0),
         helper.make_node("Reshape", ["x", "shape"], ["y"])], "g",
        [_vi("x", shape=None)], [_vi("y", shape=None)],
        [helper.make_tensor("zero", TensorProto.INT64, [], [0]),
         helper.make_tensor("axes", TensorProto.INT64, [1], [0]),
         helper.make_tensor("two", TensorProto.INT64, [1], [2]),
         helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])])
    s = Session(_load(g))
    for n in (2, 3, 2, 4, 3, 2):
        x = np.arange(n * 6, dtype=np.float32).reshape(n, 6)
        assert np.array_equal(s.run({"x": x})["y"], x.reshape(2 * n, 3))
    memo_ops = {st.node.op_type for st in s.plan.live_steps if st.memo}
    assert {"Gather", "Unsqueeze", "Mul", "Concat"} <= memo_ops
    assert "Reshape" not in memo_ops and "Shape" not in memo_ops     # float data: never remembered


def test_remembered_results_are_read_only_and_not_graph_outputs():
    g = helper.make_graph(
        [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Add", ["s", "one"], ["t"]),
         helper.make_node("Mul", ["t", "one"], ["u"])], "g",
        [_vi("x", shape=None)], [helper.make_tensor_value_info("u", TensorProto.INT64, None)],
        [helper.make_tensor("one", TensorProto.INT64, [1], [1])])
    s = Session(_load(g), keep=False)
    outs = [s.run({"x": np.zeros((2, 5), np.float32)})["u"] for _ in range(3)]
    assert [st.memo for st in s.plan.live_steps] == [False, True, False]   # Shape reads floats; Mul makes the output
    outs[-1][0] = 99                      # the caller may change what it got ...
    assert np.array_equal(s.run({"x": np.zeros((2, 5), np.float32)})["u"], [3, 6])   # ... without harm


def test_large_results_of_shape_steps_are_not_kept():
    g = helper.make_graph([helper.make_node("ConstantOfShape", ["shape"], ["z"]),
                           helper.make_node("Add", ["z", "x"], ["y"])], "g",
                          [helper.make_tensor_value_info("shape", TensorProto.INT64, [2]), _vi("x", shape=None)],
                          [_vi("y", shape=None)])
    s = Session(_load(g))
    for n in (100, 100, 3):
        got = s.run({"shape": np.array([n, n]), "x": np.ones(1, np.float32)})["y"]
        assert got.shape == (n, n) and (got == 1).all()
    step = s.plan.live_steps[0]
    assert step.memo
    cache = [c.cell_contents for c in s.plan.runners[0].__closure__ if type(c.cell_contents) is dict][0]
    assert all(v.size <= 4096 for v in cache.values()) and len(cache) == 1    # only the 3x3 one


def test_remembered_results_do_not_alias_fed_arrays():
    g = helper.make_graph([helper.make_node("Unsqueeze", ["v", "axes"], ["u"]),
                           helper.make_node("Add", ["u", "u"], ["y"])], "g",
                          [helper.make_tensor_value_info("v", TensorProto.INT64, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.INT64, None)],
                          [helper.make_tensor("axes", TensorProto.INT64, [1], [0])])
    s = Session(_load(g))
    buf = np.array([1, 2])
    for _ in range(2):
        assert np.array_equal(s.run({"v": buf})["y"], [[2, 4]])
    buf[:] = [5, 6]                   # the caller reuses its buffer
    assert np.array_equal(s.run({"v": buf})["y"], [[10, 12]])
    assert np.array_equal(s.run({"v": np.array([1, 2])})["y"], [[2, 4]])


def test_integer_steps_on_a_loop_counter_stay_right_and_stop_remembering():
    body = helper.make_graph(
        [helper.make_node("Mul", ["i", "i"], ["sq"]), helper.make_node("Add", ["acc_in", "sq"], ["acc_out"]),
         helper.make_node("Identity", ["c_in"], ["c_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []), _vi("c_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("acc_in", TensorProto.INT64, [])],
        [_vi("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.INT64, [])])
    g = helper.make_graph([helper.make_node("Loop", ["n", "", "acc0"], ["acc"], body=body)], "g",
                          [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                           helper.make_tensor_value_info("acc0", TensorProto.INT64, [])],
                          [helper.make_tensor_value_info("acc", TensorProto.INT64, [])])
    s = Session(_load(g))
    for n in (3, 300, 300, 5):
        got = s.run({"n": np.array(n), "acc0": np.array(0)})["acc"]
        assert int(got) == sum(i * i for i in range(n))
    mul = [st for p in s._plans.values() if p is not s.plan for st in p.live_steps if st.node.op_type == "Mul"][0]
    assert mul.memo
    runner = [p for p in s._plans.values() if p is not s.plan][0].runners[0]
    counts = {c.cell_contents for c in runner.__closure__ if type(c.cell_contents) is int}
    assert max(counts) == 64          # gave up after 64 misses instead of missing all 600 iterations


def test_split_runs_compiled_with_its_context_and_failures_name_the_node():
    # Split reads its output count from the step's context; repeated runs bind
    # that context instead of going through the general step
    node = helper.make_node("Split", ["x"], ["a", "b", "c"], axis=1, name="three_ways")
    graph = helper.make_graph([node], "g", [_vi("x", shape=None)], [_vi("a"), _vi("b"), _vi("c")])
    s = Session(_load(graph, opset=13))
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for _ in range(3):
        out = s.run({"x": x})
        for name, part in zip("abc", np.split(x, 3, axis=1)):
            np.testing.assert_array_equal(out[name], part)
    step = next(st for st in s.plan.steps if st.node.name == "three_ways")
    assert step.context is not None
    with pytest.raises(Exception, match="three_ways.*Split failed"):
        s.run({"x": np.zeros((2, 5), np.float32)})      # 5 columns cannot split in three
    np.testing.assert_array_equal(s.run({"x": x})["c"], x[:, 4:])


def test_control_flow_runs_compiled_in_its_frame_on_repeated_runs(monkeypatch):
    # If and Loop read the running frame through their context: repeated runs
    # point the context at the frame and call the kernel, without the general step
    m, w = _if_slicing_an_outer_weight()
    s = Session(m)
    x = np.ones((2, 3), np.float32)
    for cond in (True, False):      # each branch's first run folds and prepares through the general step
        s.run({"c": np.array(cond), "x": x})
    general = []
    plain = Session._run_step
    monkeypatch.setattr(Session, "_run_step", lambda self, st, *a: general.append(st.node.op_type)
                        or plain(self, st, *a))
    for cond in (False, True, False):
        want = x + w[1:3] if cond else x - w[0:2]
        assert np.array_equal(s.run({"c": np.array(cond), "x": x})["y"], want)
    assert general == []


def test_a_failing_control_flow_node_on_a_repeated_run_is_reported_with_the_node():
    branch = helper.make_graph([helper.make_node("Identity", ["x"], ["o"])], "b", [], [_vi("o")])
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], name="choose", then_branch=branch,
                                            else_branch=branch)], "g",
                          [_vi("c", TensorProto.BOOL, None), _vi("x")], [_vi("y")])
    s = Session(_load(g))
    x = np.arange(3, dtype=np.float32)
    for _ in range(2):
        assert np.array_equal(s.run({"c": np.array([True]), "x": x})["y"], x)
    with pytest.raises(Exception, match="choose.*If failed"):       # an empty condition
        s.run({"c": np.zeros(0, bool), "x": x})
    assert np.array_equal(s.run({"c": np.array(False), "x": x})["y"], x)


@pytest.mark.parametrize("layout", [0, 1])
@pytest.mark.parametrize("seq,with_bias,with_state", [(1, True, True), (3, False, False), (0, True, False)])
def test_prepared_lstm_gives_the_kernels_bits(layout, seq, with_bias, with_state):
    from onnxstudio.core.exec.kernels import rnn
    from onnxstudio.core.exec.registry import VARIES
    rng = np.random.default_rng(seq)
    batch, inp, hidden = 2, 5, 3
    x = rng.standard_normal((seq, batch, inp) if layout == 0 else (batch, seq, inp)).astype(np.float32)
    w = rng.standard_normal((1, 4 * hidden, inp)).astype(np.float32)
    r = rng.standard_normal((1, 4 * hidden, hidden)).astype(np.float32)
    b = rng.standard_normal((1, 8 * hidden)).astype(np.float32) if with_bias else None
    state = (1, batch, hidden) if layout == 0 else (batch, 1, hidden)
    h0, c0 = ((rng.standard_normal(state).astype(np.float32) for _ in range(2)) if with_state else (None, None))
    attrs = {"hidden_size": hidden, "layout": layout}
    prepared = rnn._prepare_lstm((VARIES, w, r, b, None, VARIES if with_state else None,
                                  VARIES if with_state else None), attrs)
    assert prepared is not None
    want = rnn.lstm(x, w, r, b, None, h0, c0, **attrs)
    for got_v, want_v in zip(prepared(x, w, r, b, None, h0, c0), want):
        assert got_v.shape == want_v.shape and got_v.dtype == want_v.dtype
        np.testing.assert_array_equal(got_v, want_v)
    x64 = x.astype(np.float64)      # another element type than the weights': what the general kernel gives
    for got_v, want_v in zip(prepared(x64, w, r, b, None, h0, c0), rnn.lstm(x64, w, r, b, None, h0, c0, **attrs)):
        assert got_v.dtype == want_v.dtype
        np.testing.assert_array_equal(got_v, want_v)


@pytest.mark.parametrize("change", [{"clip": 3.0}, {"direction": "reverse"}, {"input_forget": 1},
                                    {"activations": ["Sigmoid", "Relu", "Tanh"]}])
def test_lstm_with_other_than_plain_attributes_is_not_prepared(change):
    from onnxstudio.core.exec.kernels import rnn
    from onnxstudio.core.exec.registry import VARIES
    w = np.zeros((1, 12, 5), np.float32)
    r = np.zeros((1, 12, 3), np.float32)
    assert rnn._prepare_lstm((VARIES, w, r), {"hidden_size": 3}) is not None
    assert rnn._prepare_lstm((VARIES, w, r), {"hidden_size": 3, **change}) is None
    assert rnn._prepare_lstm((VARIES, w, r, VARIES), {"hidden_size": 3}) is None       # a bias known only at run time
