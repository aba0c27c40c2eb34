"""Kernels specialised to constant inputs (the registry's `prepare` hook) give
the backend test data's expected outputs.

The backend cases feed every input at run time, so on their own they reach
prepared kernels only through attributes (Cast). Here each single-node case
of an operator with a prepare hook is rebuilt with all inputs but the first
as initializers, and run twice: the first run prepares the step, the second
reuses it.
"""
import warnings

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

import backend_data
from conformance import compare

from onnxstudio import core
from onnxstudio.core.exec import Session
from onnxstudio.core.exec.registry import registered

PREPARED_OPS = sorted({k.op_type for k in registered() if k.prepare is not None and not k.domain})


def _cases():
    out = []
    for case in backend_data.all_cases(kinds=("node",)):
        model = onnx.load(case.model_path, load_external_data=False)
        g = model.graph
        if (len(g.node) == 1 and g.node[0].op_type in PREPARED_OPS and len(g.input) >= 2
                and not g.initializer and all(i.type.HasField("tensor_type") for i in g.input)):
            out.append(case)
    return out


def _with_constant_inputs(model, values: list) -> onnx.ModelProto:
    """The model with every input after the first turned into an initializer."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for vi, value in zip(list(m.graph.input[1:]), values[1:]):
        m.graph.initializer.append(numpy_helper.from_array(value, vi.name))
    del m.graph.input[1:]
    return m


def test_prepared_ops_are_known():
    assert {"Cast", "Conv", "Pad", "Slice", "Squeeze", "Unsqueeze"} <= set(PREPARED_OPS)


def test_prepared_kernels_match_the_backend_data():
    warnings.simplefilter("ignore")
    cases = _cases()
    assert len(cases) >= 60
    failures = {}
    prepared = 0
    for case in cases:
        model = onnx.load(case.model_path, load_external_data=False)
        for inputs, outputs in case.data_sets():
            values = [backend_data.read_pb_value(p, vi) for p, vi in zip(inputs, model.graph.input)]
            if any(not isinstance(v, np.ndarray) for v in values):
                continue
            ours = core.load_bytes(_with_constant_inputs(model, values).SerializeToString())
            session = Session(ours)
            feeds = {model.graph.input[0].name: values[0]}
            try:
                runs = [session.run(feeds), session.run(feeds)]
            except Exception as e:  # noqa: BLE001
                failures[case.id] = f"{type(e).__name__}: {e}"
                continue
            prepared += any(st.call is not None for st in session.plan.steps)
            for got in runs:
                for p, vi in zip(outputs, model.graph.output):
                    why = compare(backend_data.read_pb_value(p, vi), got.get(vi.name), max(case.rtol, 1e-3), 1e-5)
                    if why:
                        failures[case.id] = why
    assert not failures, "\n".join(f"{k}: {v[:200]}" for k, v in failures.items())
    assert prepared >= 60   # the hooks really ran


@pytest.mark.parametrize("op", ["Slice", "Squeeze", "Unsqueeze"])
def test_invalid_constant_inputs_still_fail_with_the_node_named(op):
    from onnx import TensorProto, helper
    axes = helper.make_tensor("k", TensorProto.INT64, [1], [7])
    ins = ["x", "k", "k", "k"] if op == "Slice" else ["x", "k"]     # axis 7 of a rank-2 tensor
    g = helper.make_graph([helper.make_node(op, ins, ["y"], name="the_node")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 1])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], [axes])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString())
    from onnxstudio.core.exec import ExecError
    with pytest.raises(ExecError, match="the_node"):
        Session(m).run({"x": np.zeros((2, 1), np.float32)})


def test_pointwise_conv_is_one_product_equal_to_the_general_kernel():
    from onnxstudio.core.exec.kernels.conv import _prepare_conv, conv
    from onnxstudio.core.exec.registry import VARIES
    rng = np.random.default_rng(3)
    for n, c, m, hw in [(1, 384, 64, (10, 10)), (2, 16, 32, (40, 40)), (1, 8, 4, (7,))]:
        x = rng.standard_normal((n, c, *hw)).astype(np.float32)
        w = rng.standard_normal((m, c) + (1,) * len(hw)).astype(np.float32)
        b = rng.standard_normal(m).astype(np.float32)
        attrs = {"kernel_shape": [1] * len(hw)}
        prepared = _prepare_conv((VARIES, w, b), attrs)
        np.testing.assert_allclose(prepared(x, w, b), conv(x, w, b, **attrs), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(prepared(x, w, b), np.einsum("mc,nc...->nm...", w.reshape(m, c), x)
                                   + b.reshape((1, m) + (1,) * len(hw)), rtol=1e-4, atol=1e-4)


_NATIVE_PREPARED = sorted((k.op_type, k.since) for k in registered()
                          if not k.domain and k.prepare is not None
                          and getattr(k.prepare, "__qualname__", "").startswith("prepare_native"))


def test_activations_and_unary_math_are_prepared():
    ops = {op for op, _ in _NATIVE_PREPARED}
    assert {"Relu", "Sigmoid", "Tanh", "Sqrt", "Exp", "LeakyRelu", "Gelu", "Abs"} <= ops


@pytest.mark.parametrize("op,since", _NATIVE_PREPARED)
def test_a_prepared_activation_gives_the_kernels_bits(op, since):
    import ml_dtypes

    from onnxstudio.core.exec.kernels._math_util import quiet_numpy
    from onnxstudio.core.exec.registry import find_kernel
    k = find_kernel("", op, since)
    attrs = {"LeakyRelu": {"alpha": 0.3}, "Elu": {"alpha": 0.7}, "HardSigmoid": {"alpha": 0.3, "beta": 0.4},
             "ThresholdedRelu": {"alpha": 0.5}, "Celu": {"alpha": 1.5}, "Shrink": {"bias": 0.1, "lambd": 0.4},
             "Gelu": {"approximate": "tanh"}}.get(op, {})
    prepared = k.prepare((None,), dict(attrs, consumed_inputs=[0]) if since == 1 else attrs)
    base = np.array([-3.5, -0.5, -0.0, 0.0, 0.25, 0.9, 4.0, np.nan, np.inf, -np.inf])
    extra = (np.array([0.25]),) if op == "PRelu" else ()
    for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16):
        x = base.astype(dtype)
        args = tuple(e.astype(dtype) for e in extra)
        with quiet_numpy():
            got = prepared(x, *args)
            want = k.fn(x, *args, **attrs)
        assert got.dtype == want.dtype, (op, dtype)
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), np.asarray(want).view(np.uint8))


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceMax", "ReduceLogSumExp", "ReduceL2"])
def test_a_prepared_reduce_follows_the_input_rank_and_gives_the_kernels_values(op):
    import ml_dtypes

    from onnxstudio.core.exec.registry import VARIES, find_kernel
    rng = np.random.default_rng(1)
    for since, consts_of, attrs_of in ((11, lambda axes: (VARIES,), lambda axes, kd: {"axes": axes, "keepdims": kd}),
                                       (18, lambda axes: (VARIES, None if axes is None else np.array(axes)),
                                        lambda axes, kd: {"keepdims": kd})):
        k = find_kernel("", op, since)
        for axes in ([1], [-1, 0], None):
            for keepdims in (0, 1):
                attrs = attrs_of(axes, keepdims)
                prepared = k.prepare(consts_of(axes), attrs)
                for shape in ((2, 3), (2, 3, 4), (4, 1, 2, 3), (2, 3)):      # the rank changes, then comes back
                    for dtype in (np.float32, ml_dtypes.bfloat16):
                        x = rng.standard_normal(shape).astype(dtype)
                        args = (x,) if since == 11 else (x, None if axes is None else np.array(axes))
                        want = k.fn(*args, **attrs)
                        got = prepared(*args)
                        assert got.dtype == want.dtype and got.shape == want.shape
                        np.testing.assert_array_equal(got, want)
    noop = find_kernel("", op, 18).prepare((VARIES, None), {"noop_with_empty_axes": 1})
    x = rng.standard_normal((2, 3)).astype(np.float32)
    assert np.array_equal(noop(x), x) and noop(x) is not x
    with pytest.raises(ValueError):
        find_kernel("", op, 11).prepare((VARIES,), {"axes": [3]})(x)      # out of range: reported as the kernel does


@pytest.mark.parametrize("shape,axis", [((1, 1, 256), -1), ((1, 9, 32), -1), ((2, 3, 4, 5), 1), ((2, 3, 4, 5), -2)])
def test_a_prepared_layer_norm_gives_the_kernels_bits(shape, axis):
    import ml_dtypes

    from onnxstudio.core.exec.kernels._math_util import quiet_numpy
    from onnxstudio.core.exec.registry import VARIES, find_kernel
    k = find_kernel("", "LayerNormalization", 17)
    rng = np.random.default_rng(len(shape))
    for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16):
        for stash_type in (1, 11):
            g = rng.standard_normal(shape[axis:]).astype(dtype)
            b = rng.standard_normal(shape[axis:]).astype(dtype)
            for bias in (b, None):
                attrs = {"axis": axis, "epsilon": 1e-3, "stash_type": stash_type}
                prepared = k.prepare((VARIES, g) if bias is None else (VARIES, g, bias), attrs)
                for x_shape in (shape, (3,) + shape[1:], shape):    # a new shape, then the first again
                    x = rng.standard_normal(x_shape).astype(dtype)
                    x.flat[0] = np.inf
                    with quiet_numpy():
                        want = k.fn(x, g, bias, **attrs)
                        got = prepared(x, g, bias)
                    for got_v, want_v in zip(got, want):
                        assert got_v.dtype == want_v.dtype and got_v.shape == want_v.shape
                        assert got_v.tobytes() == want_v.tobytes()


def test_layer_norm_parameters_that_do_not_fit_the_input_take_the_kernel():
    from onnxstudio.core.exec.registry import VARIES, find_kernel
    k = find_kernel("", "LayerNormalization", 17)
    g = np.ones((2, 4), np.float32)      # broadcasts the normalised rows up to (2, 4): the result grows
    prepared = k.prepare((VARIES, g), {"axis": -1})
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    got, want = prepared(x, g), k.fn(x, g, axis=-1)
    assert got[0].shape == want[0].shape == (2, 4)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax", "Hardmax"])
def test_a_prepared_softmax_gives_the_kernels_bits(op):
    import ml_dtypes

    from onnxstudio.core.exec.kernels._math_util import quiet_numpy
    from onnxstudio.core.exec.registry import find_kernel
    k = find_kernel("", op, 13)
    rng = np.random.default_rng(3)
    for axis in (-1, 1, 0, -2):
        prepared = k.prepare((None,), {"axis": axis})
        for shape in ((1, 4, 1, 80), (40, 64), (2, 0, 3)):
            for dtype in (np.float32, np.float64, np.float16, ml_dtypes.bfloat16):
                x = (rng.standard_normal(shape) * 4).astype(dtype)
                if x.size:
                    x.flat[1] = -np.inf
                with quiet_numpy():
                    want, got = k.fn(x, axis=axis), prepared(x)
                assert got.dtype == want.dtype and got.shape == want.shape
                assert got.tobytes() == want.tobytes()
    with pytest.raises(ValueError):
        k.prepare((None,), {"axis": 4})(np.zeros((2, 2), np.float32))


def test_a_prepared_unsqueeze_follows_every_input_shape():
    from onnxstudio.core.exec.registry import VARIES, find_kernel
    k = find_kernel("", "Unsqueeze", 13)
    axes = np.array([0, -1])
    prepared = k.prepare((VARIES, axes), {})
    for n in list(range(1, 80)) + [3, 1]:      # past the table's bound, then shapes seen before
        for shape in ((n,), (2, n), (n, 1, 3)):
            x = np.zeros(shape, np.float32)
            assert prepared(x, axes).shape == k.fn(x, axes).shape
