"""The subtle parts of the late operators (issue 5): losses with ignored
targets, state carried between calls of the recurrent operators, FlexAttention
subgraphs, Gradient by autodiff (checked by finite differences) and the image
formats ImageDecoder reads without a codec. onnx's reference implementation
and Pillow serve as oracles only."""
from __future__ import annotations

import io
import struct
import zlib

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core.exec import Session
from onnxstudio.core.exec import kernels  # noqa: F401  (registers kernels)
from onnxstudio.core.exec.registry import KernelContext, find_kernel

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

RNG = np.random.default_rng(5)


def run(op, *args, opset=28, domain="", n_out=1, **attrs):
    k = find_kernel(domain, op, opset)
    assert k is not None, f"no kernel for {op} at {opset}"
    if k.context:
        ctx = KernelContext(opset=opset, num_outputs=n_out, rng=np.random.default_rng(0))
        return k.fn(ctx, *args, **attrs)
    return k.fn(*args, **attrs)


def reference(op, inputs, n_out=1, opset=28, **attrs):
    """The same node through onnx.reference (omitted optional inputs as None)."""
    names = [f"i{j}" if x is not None else "" for j, x in enumerate(inputs)]
    outs = [f"o{j}" for j in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(x.dtype), x.shape)
           for n, x in zip(names, inputs) if x is not None]
    graph = helper.make_graph([node], "g", ins, [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    feeds = {n: x for n, x in zip(names, inputs) if x is not None}
    return ReferenceEvaluator(model).run(None, feeds)


def session_run(graph, feeds, opsets=(("", 18),)):
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])
    return Session(core.load_bytes(model.SerializeToString())).run(feeds)


# -- losses ------------------------------------------------------------------


def test_nll_mean_divides_by_the_weights_actually_used():
    x = RNG.standard_normal((3, 4, 2)).astype(np.float32)
    target = np.array([[0, -100], [3, 1], [-100, 2]], np.int64)   # -100: ignored, out of range
    weight = np.array([0.5, 1.0, 2.0, 4.0], np.float32)
    got = run("NegativeLogLikelihoodLoss", x, target, weight, ignore_index=-100)
    kept = target != -100
    picked = -np.array([x[n, t, d] for (n, d), t in np.ndenumerate(target) if t != -100])
    w = weight[target[kept]]
    np.testing.assert_allclose(got, (picked * w).sum() / w.sum(), rtol=1e-6)
    none = run("NegativeLogLikelihoodLoss", x, target, weight, ignore_index=-100, reduction="none")
    assert none.shape == target.shape and (none[~kept] == 0).all()


def test_nll_without_weight_mean_skips_ignored_positions():
    x = RNG.standard_normal((4, 3)).astype(np.float32)
    target = np.array([2, 1, 1, 0])
    got = run("NegativeLogLikelihoodLoss", x, target, ignore_index=1)
    np.testing.assert_allclose(got, -(x[0, 2] + x[3, 0]) / 2, rtol=1e-6)


def test_nll_target_out_of_range_is_an_error_unless_ignored():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match="outside"):
        run("NegativeLogLikelihoodLoss", x, np.array([0, 3]))
    assert run("NegativeLogLikelihoodLoss", x, np.array([0, 3]), ignore_index=3, reduction="sum") == 0


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_softmax_cross_entropy_matches_reference_nd_with_log_prob(reduction):
    x = RNG.standard_normal((2, 5, 3, 2)).astype(np.float32) * 4
    labels = RNG.integers(0, 5, (2, 3, 2)).astype(np.int64)
    labels[0, 1, 1] = -1
    weights = RNG.random(5).astype(np.float32)
    loss, log_prob = run("SoftmaxCrossEntropyLoss", x, labels, weights, n_out=2,
                         ignore_index=-1, reduction=reduction)
    exp_loss, exp_log_prob = reference("SoftmaxCrossEntropyLoss", [x, labels, weights], n_out=2, opset=13,
                                       ignore_index=-1, reduction=reduction)
    np.testing.assert_allclose(loss, exp_loss, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(log_prob, exp_log_prob, rtol=1e-5, atol=1e-6)
    assert loss.dtype == np.float32 and log_prob.shape == x.shape


def test_softmax_cross_entropy_float16_keeps_its_type_and_large_scores():
    x = np.array([[60000.0, 0.0, -60000.0]], np.float16)      # exp would overflow in float16
    loss = run("SoftmaxCrossEntropyLoss", x, np.array([0]))
    assert loss.dtype == np.float16 and np.isfinite(loss) and abs(float(loss)) < 1e-3


# -- SwiGLU and TensorScatter -------------------------------------------------


def test_swiglu_float16_extremes_and_shape_rule():
    a = np.array([-30.0, -1.0, 0.0, 2.0, 30.0], np.float16)
    b = np.array([1.0, 2.0, 3.0, 4.0, 0.5], np.float16)
    got = run("SwiGLU", a, b, alpha=1.5)
    wide = a.astype(np.float64)
    np.testing.assert_allclose(got, wide / (1 + np.exp(-1.5 * wide)) * b, rtol=2e-3, atol=1e-4)
    assert got.dtype == np.float16
    with pytest.raises(ValueError, match="same shape"):
        run("SwiGLU", a, b[:4])


@pytest.mark.parametrize("mode,starts", [("linear", [0, 3]), ("circular", [4, 6])])
@pytest.mark.parametrize("axis", [-2, 1, 2])
def test_tensor_scatter_matches_reference(mode, starts, axis):
    cache = RNG.standard_normal((2, 7, 7, 3)).astype(np.float32)
    shape = list(cache.shape)
    shape[axis] = 3
    update = RNG.standard_normal(shape).astype(np.float32)
    idx = np.array(starts, np.int64)
    got = run("TensorScatter", cache, update, idx, axis=axis, mode=mode)
    (expected,) = reference("TensorScatter", [cache, update, idx], opset=24, axis=axis, mode=mode)
    np.testing.assert_array_equal(got, expected)
    assert not np.shares_memory(got, cache)


def test_tensor_scatter_linear_overrun_is_an_error():
    with pytest.raises(ValueError, match="circular"):
        run("TensorScatter", np.zeros((1, 4, 2)), np.ones((1, 2, 2)), np.array([3]))


# -- recurrent state ----------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2, 4])
def test_causal_conv_in_chunks_equals_one_pass(k):
    x = RNG.standard_normal((2, 3, 9)).astype(np.float32)
    w = RNG.standard_normal((3, 1, k)).astype(np.float32)
    bias = RNG.standard_normal(3).astype(np.float32)
    whole, state = run("CausalConvWithState", x, w, bias, activation="silu")
    first, mid = run("CausalConvWithState", x[:, :, :4], w, bias, activation="silu")
    second, last = run("CausalConvWithState", x[:, :, 4:], w, bias, mid, activation="silu")
    np.testing.assert_allclose(np.concatenate([first, second], axis=2), whole, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(last, state)
    assert state.shape == (2, 3, k - 1)
    (expected, _) = reference("CausalConvWithState", [x, w, bias], n_out=2, opset=27, activation="silu")
    np.testing.assert_allclose(whole, expected, rtol=1e-5, atol=1e-6)


def _linear_attention_inputs(rule, b=2, t=5, hq=4, hkv=2, dk=3, dv=2, per_key_decay=False):
    q = RNG.standard_normal((b, t, hq * dk)).astype(np.float32)
    k = RNG.standard_normal((b, t, hkv, dk)).astype(np.float32)
    k = (k / np.linalg.norm(k, axis=-1, keepdims=True)).reshape(b, t, hkv * dk)
    v = RNG.standard_normal((b, t, hkv * dv)).astype(np.float32)
    decay = beta = None
    if rule in ("gated", "gated_delta"):
        decay = -RNG.random((b, t, hkv * dk if per_key_decay else hkv)).astype(np.float32)
    if rule in ("delta", "gated_delta"):
        beta = RNG.random((b, t, hkv)).astype(np.float32)
    return q, k, v, decay, beta


@pytest.mark.parametrize("rule", ["linear", "gated", "delta", "gated_delta"])
@pytest.mark.parametrize("per_key_decay", [False, True])
def test_linear_attention_matches_reference_and_decodes_step_by_step(rule, per_key_decay):
    q, k, v, decay, beta = _linear_attention_inputs(rule, per_key_decay=per_key_decay)
    attrs = dict(q_num_heads=4, kv_num_heads=2, update_rule=rule)
    out, state = run("LinearAttention", q, k, v, None, decay, beta, **attrs)
    expected = reference("LinearAttention", [q, k, v, None, decay, beta], n_out=2, opset=27, **attrs)
    np.testing.assert_allclose(out, expected[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state, expected[1], rtol=1e-5, atol=1e-6)
    # The same tokens fed one at a time, carrying the state, give the same result.
    s, steps = None, []
    for i in range(q.shape[1]):
        def pick(a):
            return None if a is None else a[:, i:i + 1]
        o, s = run("LinearAttention", pick(q), pick(k), pick(v), s, pick(decay), pick(beta), **attrs)
        steps.append(o)
    np.testing.assert_allclose(np.concatenate(steps, axis=1), out, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(s, state, rtol=1e-5, atol=1e-6)


def test_linear_attention_inputs_must_fit_the_rule():
    q, k, v, decay, _ = _linear_attention_inputs("gated")
    with pytest.raises(ValueError, match="takes no decay"):
        run("LinearAttention", q, k, v, None, decay, q_num_heads=4, kv_num_heads=2, update_rule="linear")
    with pytest.raises(ValueError, match="needs beta"):
        run("LinearAttention", q, k, v, None, decay, q_num_heads=4, kv_num_heads=2)


# -- FlexAttention ------------------------------------------------------------


def _attention(q, k, v, scale, bias=None):
    group = q.shape[1] // k.shape[1]
    k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    s = q.astype(np.float64) @ np.swapaxes(k, -1, -2) * scale
    if bias is not None:
        s = bias(s)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def test_flex_attention_score_mod_reads_an_outer_value_and_gqa():
    q = RNG.standard_normal((1, 4, 3, 5)).astype(np.float32)
    k = RNG.standard_normal((1, 2, 6, 5)).astype(np.float32)
    v = RNG.standard_normal((1, 2, 6, 2)).astype(np.float32)
    cap = np.array(2.0, np.float32)
    # score_mod: cap * tanh(s / cap), with `cap` taken from the enclosing graph.
    body = helper.make_graph(
        [helper.make_node("Div", ["s", "cap"], ["r"]), helper.make_node("Tanh", ["r"], ["t"]),
         helper.make_node("Mul", ["t", "cap"], ["s_out"])], "soft_cap",
        [helper.make_tensor_value_info("s", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, None)])
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], domain="ai.onnx.preview",
                            score_mod=body, scale=0.7)
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in "qkv"],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[onnx.numpy_helper.from_array(cap, "cap")])
    got = session_run(graph, {"q": q, "k": k, "v": v}, opsets=(("", 18), ("ai.onnx.preview", 1)))["y"]
    expected = _attention(q, k, v, 0.7, lambda s: 2.0 * np.tanh(s / 2.0))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert got.shape == (1, 4, 3, 2) and got.dtype == np.float32


def test_flex_attention_default_scale_and_double():
    q, k, v = (RNG.standard_normal((2, 2, 3, 4)) for _ in range(3))
    got = run("FlexAttention", q, k, v, opset=1, domain="ai.onnx.preview")
    np.testing.assert_allclose(got, _attention(q, k, v, 0.5), rtol=1e-12)
    assert got.dtype == np.float64


# -- Gradient -----------------------------------------------------------------


def _gradient_model(nodes, xs, zs, y, feeds, opset=18):
    grads = [f"d_{x}" for x in xs]
    extra = {"zs": zs} if zs else {}
    gnode = helper.make_node("Gradient", xs + zs, grads, domain="ai.onnx.preview.training", xs=xs, y=y, **extra)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in feeds.items()]
    outs = [helper.make_tensor_value_info(n, TensorProto.DOUBLE, None) for n in [y] + grads]
    graph = helper.make_graph(nodes + [gnode], "g", ins, outs)
    return graph, grads, (("", opset), ("ai.onnx.preview.training", 1))


def _numeric_gradient(f, feeds, name, eps=1e-6):
    x = feeds[name]
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = dict(feeds), dict(feeds)
        up[name], down[name] = x.copy(), x.copy()
        up[name][i] += eps
        down[name][i] -= eps
        g[i] = (f(up).sum() - f(down).sum()) / (2 * eps)
    return g


def test_gradient_matches_finite_differences_through_a_small_network():
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"]),                          # batch broadcast of w
        helper.make_node("Gemm", ["h2", "u", "c"], ["g"], transA=1, transB=1, alpha=0.5, beta=2.0),
        helper.make_node("Reshape", ["h", "flat"], ["h2"]),
        helper.make_node("Sigmoid", ["g"], ["sg"]),
        helper.make_node("Div", ["sg", "g"], ["r"]),
        helper.make_node("Pow", ["sg", "e"], ["p"]),
        helper.make_node("Add", ["r", "p"], ["a"]),
        helper.make_node("ReduceMean", ["a", "axes"], ["y"], keepdims=0),
    ]
    # Keep node order topological: Reshape must come before Gemm.
    nodes[1], nodes[2] = nodes[2], nodes[1]
    feeds = {"x": RNG.standard_normal((2, 3, 4)), "w": RNG.standard_normal((4, 2)),
             "u": RNG.standard_normal((5, 2)), "c": RNG.standard_normal((1, 5)), "e": np.array(1.7),
             "flat": np.array([2, 6]), "axes": np.array([0])}
    graph, grads, opsets = _gradient_model(nodes, ["x", "w", "u", "c", "e"], ["flat", "axes"], "y", feeds)
    # transA turns h2 (2x6) into 6x2 and transB u (5x2) into 2x5: g is 6x5, c broadcasts.
    got = session_run(graph, feeds, opsets)

    def forward(f):
        h2 = (f["x"] @ f["w"]).reshape(2, 6)
        g = 0.5 * h2.T @ f["u"].T + 2.0 * f["c"]
        sg = 1 / (1 + np.exp(-g))
        return (sg / g + sg ** f["e"]).mean(axis=0)

    np.testing.assert_allclose(got["y"], forward(feeds), rtol=1e-8)
    for x, d in zip(["x", "w", "u", "c", "e"], grads):
        np.testing.assert_allclose(got[d], _numeric_gradient(forward, feeds, x), rtol=1e-5, atol=1e-7,
                                   err_msg=x)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def test_gradient_through_selection_and_normalisation_operators():
    nodes = [
        helper.make_node("Concat", ["x", "z"], ["c"], axis=1),
        helper.make_node("Expand", ["w", "shape"], ["e"]),
        helper.make_node("Max", ["c", "e"], ["m"]),
        helper.make_node("Min", ["c", "e"], ["n"]),
        helper.make_node("LeakyRelu", ["m"], ["l"], alpha=0.2),
        helper.make_node("Clip", ["n", "lo", "hi"], ["cl"]),
        helper.make_node("Where", ["cond", "l", "cl"], ["wh"]),
        helper.make_node("Cast", ["wh"], ["wc"], to=TensorProto.DOUBLE),
        helper.make_node("Softmax", ["wc"], ["s"], axis=0),
        helper.make_node("LogSoftmax", ["wc"], ["ls"]),
        helper.make_node("Add", ["s", "ls"], ["y"]),
    ]
    feeds = {"x": RNG.standard_normal((2, 3)), "z": RNG.standard_normal((2, 3)), "w": RNG.standard_normal((1, 6)),
             "shape": np.array([2, 6]), "lo": np.array(-0.5), "hi": np.array(0.5),
             "cond": RNG.random((2, 6)) > 0.5}
    xs = ["x", "z", "w"]
    graph, grads, opsets = _gradient_model(nodes, xs, ["shape", "lo", "hi", "cond"], "y", feeds)
    got = session_run(graph, feeds, opsets)

    def forward(f):
        c = np.concatenate([f["x"], f["z"]], axis=1)
        e = np.broadcast_to(f["w"], (2, 6))
        m, n = np.maximum(c, e), np.minimum(c, e)
        wh = np.where(f["cond"], np.where(m > 0, m, 0.2 * m), np.clip(n, -0.5, 0.5))
        return _softmax(wh, 0) + np.log(_softmax(wh, -1))

    np.testing.assert_allclose(got["y"], forward(feeds), rtol=1e-8)
    for x, d in zip(xs, grads):
        np.testing.assert_allclose(got[d], _numeric_gradient(forward, feeds, x), rtol=1e-5, atol=1e-7,
                                   err_msg=x)


@pytest.mark.parametrize("opset", [11, 13])
def test_gradient_of_softmax_follows_the_opset_axis_rule(opset):
    feeds = {"x": RNG.standard_normal((2, 3, 4)), "k": RNG.standard_normal((2, 3, 4))}
    nodes = [helper.make_node("Softmax", ["x"], ["s"], axis=1), helper.make_node("Mul", ["s", "k"], ["y"])]
    graph, grads, opsets = _gradient_model(nodes, ["x"], ["k"], "y", feeds, opset=opset)
    got = session_run(graph, feeds, opsets)

    def forward(f):
        x = f["x"]
        # Before opset 13 the axes from `axis` on are flattened into one.
        s = _softmax(x.reshape(2, 12), 1).reshape(x.shape) if opset < 13 else _softmax(x, 1)
        return s * f["k"]

    np.testing.assert_allclose(got["d_x"], _numeric_gradient(forward, feeds, "x"), rtol=1e-5, atol=1e-8)


def test_gradient_with_respect_to_an_intermediate_value_and_a_reused_input():
    nodes = [helper.make_node("Mul", ["a", "a"], ["sq"]), helper.make_node("Mul", ["sq", "a"], ["y"])]
    a = np.array([1.0, -2.0, 0.5])
    graph, grads, opsets = _gradient_model(nodes, ["a", "sq"], [], "y", {"a": a, "sq": a * a})
    got = session_run(graph, {"a": a, "sq": a * a}, opsets)
    # With sq given, y = sq * a: dy/da = sq and dy/dsq = a (sq is not recomputed).
    np.testing.assert_allclose(got["d_a"], a * a)
    np.testing.assert_allclose(got["d_sq"], a)
    graph, grads, opsets = _gradient_model(nodes, ["a"], [], "y", {"a": a})
    np.testing.assert_allclose(session_run(graph, {"a": a}, opsets)["d_a"], 3 * a * a)


def test_gradient_refuses_operators_it_cannot_differentiate():
    nodes = [helper.make_node("Floor", ["a"], ["f"]), helper.make_node("Mul", ["f", "a"], ["y"])]
    feeds = {"a": np.array([1.5, 2.5])}
    graph, _, opsets = _gradient_model(nodes, ["a"], [], "y", feeds)
    with pytest.raises(core.exec.ExecError, match="cannot differentiate Floor"):
        session_run(graph, feeds, opsets)
    feeds["f"] = np.ones(2)
    graph, _, opsets = _gradient_model(nodes[1:], ["a"], [], "y", feeds)
    with pytest.raises(core.exec.ExecError, match="neither in xs/zs"):
        session_run(graph, feeds, opsets)


# -- ImageDecoder ---------------------------------------------------------------


def _png_chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _filtered(rows, bpp, kind):
    """PNG filter `kind` applied to (h, stride) bytes, written from the PNG specification."""
    rows = rows.astype(np.int32)
    out = []
    for y, row in enumerate(rows):
        prev = rows[y - 1] if y else np.zeros_like(row)
        left = np.concatenate([np.zeros(bpp, np.int32), row[:-bpp]])
        upleft = np.concatenate([np.zeros(bpp, np.int32), prev[:-bpp]])
        if kind == 0:
            pred = np.zeros_like(row)
        elif kind == 1:
            pred = left
        elif kind == 2:
            pred = prev
        elif kind == 3:
            pred = (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
        out.append(bytes([kind]) + ((row - pred) & 0xFF).astype(np.uint8).tobytes())
    return b"".join(out)


def _png(img, interlace=False, kind=4):
    h, w, c = img.shape
    ctype = {1: 0, 3: 2, 4: 6}[c]
    passes = ([(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
              if interlace else [(0, 0, 1, 1)])
    raw = b""
    for i, (x0, y0, dx, dy) in enumerate(passes):
        sub = img[y0::dy, x0::dx]
        if sub.size:
            raw += _filtered(sub.reshape(sub.shape[0], -1), c, (kind + i) % 5)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, ctype, 0, 0, int(interlace))
    return np.frombuffer(b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + _png_chunk(b"IDAT", zlib.compress(raw))
                         + _png_chunk(b"IEND", b""), np.uint8)


@pytest.mark.parametrize("interlace", [False, True])
@pytest.mark.parametrize("kind", range(5))
def test_png_every_filter_and_adam7(interlace, kind):
    img = RNG.integers(0, 256, (11, 13, 3), dtype=np.uint8)
    np.testing.assert_array_equal(run("ImageDecoder", _png(img, interlace, kind)), img)
    bgra = np.concatenate([img, RNG.integers(0, 256, (11, 13, 1), dtype=np.uint8)], axis=2)
    np.testing.assert_array_equal(run("ImageDecoder", _png(bgra, interlace, kind), pixel_format="BGR"),
                                  img[..., ::-1])


def test_plain_pnm_and_grayscale_of_grey():
    np.testing.assert_array_equal(run("ImageDecoder", np.frombuffer(b"P1\n# c\n3 2\n010\n1 1 0\n", np.uint8),
                                      pixel_format="Grayscale")[..., 0],
                                  [[255, 0, 255], [0, 0, 255]])
    np.testing.assert_array_equal(run("ImageDecoder", np.frombuffer(b"P2 2 1 4 0 4", np.uint8))[..., 1],
                                  [[0, 255]])
    rgb = run("ImageDecoder", np.frombuffer(b"P3\n1 1\n255\n10 20 30\n", np.uint8))
    np.testing.assert_array_equal(rgb, [[[10, 20, 30]]])


@pytest.mark.parametrize("magic,name", [(b"RIFF\0\0\0\0WEBPVP8 ", "WebP"), (b"\xffO\xffQ\0\0", "JPEG 2000"),
                                        (b"GIF89a", "GIF"), (b"hello", "unrecognised")])
def test_formats_needing_a_codec_are_named(magic, name):
    with pytest.raises(ValueError, match=name):
        run("ImageDecoder", np.frombuffer(magic + bytes(16), np.uint8))


def _pillow_cases():
    pil = pytest.importorskip("PIL.Image")
    rgb = pil.fromarray(RNG.integers(0, 256, (9, 14, 3), dtype=np.uint8), "RGB")
    gray = rgb.convert("L")
    return pil, [
        ("BMP", rgb.quantize(16), {}), ("BMP", gray.convert("1"), {}), ("BMP", rgb.convert("RGBA"), {}),
        ("PPM", gray.convert("1"), {}), ("PNG", rgb.quantize(20), {}), ("PNG", gray.convert("1"), {}),
        ("TIFF", rgb, {"compression": "tiff_lzw"}), ("TIFF", rgb, {"compression": "packbits"}),
        ("TIFF", rgb.quantize(30), {"compression": "tiff_adobe_deflate"}), ("TIFF", gray.convert("1"), {}),
        ("TIFF", gray, {}), ("JPEG", rgb, {}),
    ]


def test_decoded_pixels_match_pillow():
    pil, cases = _pillow_cases()
    for fmt, img, options in cases:
        buf = io.BytesIO()
        img.save(buf, format=fmt, **options)
        encoded = np.frombuffer(buf.getvalue(), np.uint8)
        opened = pil.open(io.BytesIO(buf.getvalue()))
        np.testing.assert_array_equal(run("ImageDecoder", encoded), np.array(opened.convert("RGB")),
                                      err_msg=f"{fmt} {img.mode} {options}")
        np.testing.assert_array_equal(run("ImageDecoder", encoded, pixel_format="Grayscale")[..., 0],
                                      np.array(opened.convert("L")), err_msg=f"{fmt} {img.mode} gray")


def test_sixteen_bit_samples_keep_the_high_byte():
    values = np.array([[0, 255, 256, 65535]], np.uint16)
    body = values.astype(">u2").tobytes()
    png = (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 1, 16, 0, 0, 0, 0))
           + _png_chunk(b"IDAT", zlib.compress(b"\0" + body)) + _png_chunk(b"IEND", b""))
    pgm = b"P5 4 1 65535\n" + body
    for data in (png, pgm):
        got = run("ImageDecoder", np.frombuffer(data, np.uint8), pixel_format="Grayscale")
        np.testing.assert_array_equal(got[..., 0], [[0, 0, 1, 255]])


# -- signatures -----------------------------------------------------------------

OWN_MODULES = {"loss", "glu", "tensor_scatter", "recurrent_state", "flex_attention", "image_decoder", "gradient"}


def test_every_schema_version_resolves_and_attribute_defaults_match():
    import inspect

    from onnx import defs
    from onnxstudio.core.exec.registry import registered
    ours = {(k.domain, k.op_type) for k in registered() if k.fn.__module__.rsplit(".", 1)[-1] in OWN_MODULES}
    assert len(ours) == 9
    checked = 0
    for schema in defs.get_all_schemas_with_history():
        if (schema.domain, schema.name) not in ours:
            continue
        k = find_kernel(schema.domain, schema.name, schema.since_version)
        assert k is not None, f"{schema.name} since {schema.since_version}"
        params = inspect.signature(k.fn).parameters
        for name, attr in schema.attributes.items():
            assert name in params, f"{schema.name}: attribute {name} not accepted"
            if attr.default_value.name:
                want = helper.get_attribute_value(attr.default_value)
                want = want.decode() if isinstance(want, bytes) else want
                assert params[name].default == pytest.approx(want), f"{schema.name}: default of {name}"
            elif not attr.required:
                assert params[name].default is None, f"{schema.name}: {name} has no schema default"
        checked += 1
    assert checked >= 12


def test_truncated_images_name_their_format():
    img = RNG.integers(0, 256, (6, 5, 3), dtype=np.uint8)
    data = _png(img)
    with pytest.raises(ValueError, match="cannot decode this PNG image"):
        run("ImageDecoder", data[:60])
    with pytest.raises(ValueError, match="cannot decode this PNM image"):
        run("ImageDecoder", np.frombuffer(b"P6 4 4 255\n" + bytes(10), np.uint8))


def test_gradient_of_y_with_respect_to_itself_is_one():
    # The Gradient node reads y and a themselves as the evaluation point.
    gnode = helper.make_node("Gradient", ["y", "a"], ["d_y", "d_a"], domain="ai.onnx.preview.training",
                             xs=["y", "a"], y="y")
    graph = helper.make_graph([helper.make_node("Mul", ["a", "a"], ["y"]), gnode], "g",
                              [helper.make_tensor_value_info("a", TensorProto.DOUBLE, [2])],
                              [helper.make_tensor_value_info(n, TensorProto.DOUBLE, None) for n in ("d_y", "d_a")])
    got = session_run(graph, {"a": np.array([1.0, -2.0])}, (("", 18), ("ai.onnx.preview.training", 1)))
    np.testing.assert_array_equal(got["d_y"], [1.0, 1.0])
    np.testing.assert_array_equal(got["d_a"], [0.0, 0.0])     # with y held, a no longer matters


def test_gradient_of_max_goes_to_the_first_of_tied_inputs():
    feeds = {"a": np.array([1.0, 2.0, 5.0]), "b": np.array([1.0, 3.0, 5.0])}
    graph, _, opsets = _gradient_model([helper.make_node("Max", ["a", "b"], ["y"])], ["a", "b"], [], "y", feeds)
    got = session_run(graph, feeds, opsets)
    np.testing.assert_array_equal(got["d_a"], [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(got["d_b"], [0.0, 1.0, 0.0])


def test_whole_number_nearest_upsampling_repeats_elements_like_the_gather(monkeypatch):
    # nearest/asymmetric/floor with whole-number scales is served by repeating
    # elements; it must equal the general per-axis gather exactly
    from onnxstudio.core.exec.kernels import image
    rng = np.random.default_rng(5)
    opts = dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor",
                cubic_coeff_a=-0.75, antialias=0, exclude_outside=0, extrapolation_value=0.0)
    cases = [((1, 6, 5, 7), [1, 1, 2, 2], None), ((2, 3, 4), [1, 3, 1], None), ((1, 2, 3, 3), None, [1, 2, 12, 6]),
             ((1, 1, 4, 4), [1, 1, 2.5, 2], None), ((1, 1, 4, 4), [1, 1, 2.0000002, 2], None)]
    for shape, scales, sizes in cases:
        for dtype in (np.float32, np.int64, np.bool_):
            x = (rng.standard_normal(shape) * 10).astype(dtype)
            sc = None if scales is None else np.array(scales, np.float32)
            sz = None if sizes is None else np.array(sizes, np.int64)
            got = image.resize_nd(x, sc, sz, None, opts)
            with monkeypatch.context() as m:
                m.setattr(image, "_integer_upsampling", lambda *a: None)
                want = image.resize_nd(x, sc, sz, None, opts)
            assert got.dtype == want.dtype and got.flags.c_contiguous
            np.testing.assert_array_equal(got, want)
