"""Edge cases of the nn / linear algebra / signal / image kernels that the
ONNX backend node cases miss: old opsets, negative axes, groups, layouts,
dtypes, empty tensors. onnx.reference and onnxruntime are oracles only."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core.exec import kernels  # noqa: F401  (registers kernels)
from onnxstudio.core.exec.registry import KernelContext, find_kernel

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402
from exact_integer import int16_pair_saturated_conv, int_conv, qlinear_conv_reference  # noqa: E402

RNG = np.random.default_rng(1234)


def rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


def run(op, *args, opset=28, n_out=1, **attrs):
    k = find_kernel("", op, opset)
    assert k is not None, f"no kernel for {op} at opset {opset}"
    if k.context:
        return k.fn(KernelContext(opset=opset, num_outputs=n_out, rng=np.random.default_rng(0)), *args, **attrs)
    return k.fn(*args, **attrs)


def _model(op, inputs, n_out, opset, attrs):
    names = [f"i{j}" if v is not None else "" for j, v in enumerate(inputs)]
    outs = [f"o{j}" for j in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
           for n, v in zip(names, inputs) if v is not None]
    graph = helper.make_graph([node], "g", ins, [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    ir = 10 if opset >= 21 else 8 if opset >= 15 else 7 if opset >= 12 else 5
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=ir), \
        {n: v for n, v in zip(names, inputs) if v is not None}


def reference(op, *inputs, opset=28, n_out=1, **attrs):
    model, feeds = _model(op, list(inputs), n_out, opset, attrs)
    return ReferenceEvaluator(model).run(None, feeds)


def ort(op, *inputs, opset=18, n_out=1, **attrs):
    rt = pytest.importorskip("onnxruntime")
    model, feeds = _model(op, list(inputs), n_out, opset, attrs)
    sess = rt.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def close(got, want, rtol=1e-4, atol=1e-5):
    got = got if isinstance(got, tuple) else (got,)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        assert g.dtype == w.dtype, (g.dtype, w.dtype)
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol)


# ---- linear algebra ---------------------------------------------------------

def test_gemm_v1_broadcast_flag_and_transposes():
    a, b, c = rand(3, 4), rand(5, 3), rand(5)
    got = run("Gemm", a, b, c, opset=6, transA=1, transB=1, alpha=0.5, beta=2.0, broadcast=1)
    np.testing.assert_allclose(got, 0.5 * a.T @ b.T + 2.0 * c, rtol=1e-5)


def test_gemm_keeps_integer_dtype_and_scalar_c():
    a, b = np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(6, dtype=np.int32).reshape(3, 2)
    got = run("Gemm", a, b, np.array(7, np.int32), opset=13)
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a @ b + 7)


def test_gemm_without_c_opset11():
    a, b = rand(2, 3), rand(3, 4)
    close(run("Gemm", a, b, opset=11, alpha=2.0), [2.0 * a @ b])


@pytest.mark.parametrize("sa,sb", [((3,), (2, 3, 4)), ((2, 5, 3), (3,)), ((4, 1, 2, 3), (5, 3, 6)), ((0, 3), (3, 2))])
def test_matmul_broadcasting_and_vectors(sa, sb):
    a, b = rand(*sa), rand(*sb)
    close(run("MatMul", a, b), [np.matmul(a, b)])


def test_matmul_float16_stays_float16():
    a, b = rand(4, 8, dtype=np.float16), rand(8, 3, dtype=np.float16)
    got = run("MatMul", a, b)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-2, atol=1e-2)


def test_einsum_spaces_implicit_output_and_ints():
    a, b = np.arange(6, dtype=np.int64).reshape(2, 3), np.arange(12, dtype=np.int64).reshape(3, 4)
    got = run("Einsum", a, b, equation="ij, jk")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, a @ b)
    x = rand(2, 3, 3)
    close(run("Einsum", x, equation="...ii->...i"), reference("Einsum", x, opset=12, equation="...ii->...i"))


def test_det_batched_and_float16():
    x = rand(2, 3, 3, 3)
    close(run("Det", x), [np.linalg.det(x).astype(np.float32)], rtol=1e-4)
    assert run("Det", rand(3, 3, dtype=np.float16)).dtype == np.float16


# ---- convolutions -----------------------------------------------------------

@pytest.mark.parametrize("xs,ws,attrs", [
    ((2, 4, 11), (6, 2, 3), dict(group=2, strides=[2], pads=[1, 2], dilations=[2])),
    ((1, 2, 5, 6, 7), (4, 2, 3, 2, 3), dict(pads=[1, 0, 1, 1, 1, 0], strides=[1, 2, 2])),
    ((1, 6, 9, 9), (12, 1, 3, 3), dict(group=6, auto_pad="SAME_LOWER", strides=[2, 2])),
    ((2, 3, 8, 7), (5, 3, 2, 3), dict(auto_pad="SAME_UPPER", dilations=[2, 1])),
    ((1, 3, 7, 7), (4, 3, 3, 3), dict(auto_pad="VALID", strides=[3, 2])),
    ((1, 8, 6, 6), (8, 2, 1, 1), dict(group=4)),
])
def test_conv_matches_reference(xs, ws, attrs):
    x, w, b = rand(*xs), rand(*ws), rand(ws[0])
    close(run("Conv", x, w, b, **attrs), reference("Conv", x, w, b, opset=11, **attrs), rtol=1e-4, atol=1e-4)


def test_conv_float16_and_empty_batch():
    x, w = rand(1, 2, 5, 5, dtype=np.float16), rand(3, 2, 3, 3, dtype=np.float16)
    got = run("Conv", x, w)
    assert got.dtype == np.float16 and got.shape == (1, 3, 3, 3)
    assert run("Conv", np.zeros((0, 2, 5, 5), np.float32), rand(3, 2, 3, 3)).shape == (0, 3, 3, 3)


@pytest.mark.parametrize("xs,ws,attrs", [
    ((1, 4, 5), (4, 3, 3), dict(group=2, strides=[2], output_padding=[1], pads=[1, 0])),
    ((2, 2, 3, 4), (2, 3, 3, 2), dict(strides=[2, 3], dilations=[2, 1], pads=[1, 0, 0, 1])),
    # kernel == stride: taps never overlap (a reshuffle of the products)
    ((1, 8, 20, 20), (8, 4, 2, 2), dict(strides=[2, 2])),
    ((2, 4, 5, 6), (4, 3, 3, 2), dict(strides=[3, 2], pads=[1, 0, 1, 1])),
    ((1, 4, 7), (4, 2, 4), dict(strides=[4], group=2, output_padding=[2])),
    ((1, 3, 2, 3, 4), (3, 2, 2, 2, 2), dict(strides=[2, 2, 2])),
])
def test_conv_transpose_matches_onnxruntime(xs, ws, attrs):
    x, w, b = rand(*xs), rand(*ws), rand(ws[1] * attrs.get("group", 1))
    close(run("ConvTranspose", x, w, b, **attrs), ort("ConvTranspose", x, w, b, **attrs), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("attrs", [
    dict(strides=[2, 2], output_shape=[7, 8], auto_pad="SAME_UPPER"),
    dict(strides=[2, 2], auto_pad="SAME_LOWER"),
])
def test_conv_transpose_auto_pad_follows_the_spec(attrs):
    # onnxruntime splits odd SAME_* padding the other way round; the backend
    # data and the reference follow the spec, and so do we
    x, w = rand(1, 1, 3, 3), rand(1, 2, 3, 3)
    close(run("ConvTranspose", x, w, **attrs), reference("ConvTranspose", x, w, opset=11, **attrs), atol=1e-4)


def _plant_saturating_taps(x, w):
    """x's top-left 3x3 at 255 and the first two taps of output channels 0
    and 1 at 127 and -128: windows there pair 255 x 127 (or -128) twice,
    64770 (-65280), past the int16 in which AVX2's vpmaddubsw adds such pairs."""
    x[:, 0, :3, :3] = 255
    w[0, 0, 0, :2], w[1, 0, 0, :2] = 127, -128


def test_conv_integer_per_channel_zero_point():
    """Against exact int64 arithmetic, not onnxruntime: its u8 x s8 sums
    saturate at int16 on AVX2 CPUs without VNNI, so its answer here would
    depend on the CPU."""
    x = RNG.integers(0, 255, (1, 2, 5, 5)).astype(np.uint8)
    w = RNG.integers(-128, 127, (3, 2, 3, 3)).astype(np.int8)
    _plant_saturating_taps(x, w)
    xz, wz = np.array(3, np.uint8), np.array(2, np.int8)
    got = run("ConvInteger", x, w, xz, wz, pads=[1, 1, 1, 1])
    want = int_conv(x, xz, w, wz, pads=[1, 1, 1, 1])
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, want)
    # the inputs do tell exact sums from AVX2's saturating ones
    assert not np.array_equal(int16_pair_saturated_conv(x, xz, w, wz, pads=[1, 1, 1, 1]), want)


def test_qlinear_conv_per_channel_scales():
    """|w| < 50 keeps every pair of u8 x s8 products inside int16, so
    onnxruntime's integers are exact on any CPU and it stays an oracle, to
    within the one step its float32 scaling moves near-ties; the exact
    reference gives every value."""
    x = RNG.integers(0, 255, (1, 2, 6, 6)).astype(np.uint8)
    w = RNG.integers(-50, 50, (4, 2, 3, 3)).astype(np.int8)
    args = (x, np.array(0.02, np.float32), np.array(128, np.uint8), w,
            np.array([0.01, 0.02, 0.03, 0.04], np.float32), np.zeros(4, np.int8),
            np.array(0.05, np.float32), np.array(100, np.uint8), RNG.integers(-100, 100, 4).astype(np.int32))
    got = run("QLinearConv", *args, strides=[2, 2])
    want = ort("QLinearConv", *args, opset=10, strides=[2, 2])[0]
    assert got.dtype == np.uint8
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1
    np.testing.assert_array_equal(got, qlinear_conv_reference(*args, strides=[2, 2]))


@pytest.mark.parametrize("w_zero_point", [None, 0, "per_channel"])
def test_qlinear_conv_on_sums_that_leave_int16(w_zero_point):
    """Weights over all of int8 and taps planted to pair 255 with 127 and
    -128: against exact integers only, since onnxruntime's differ on AVX2
    CPUs without VNNI (and the check below shows these inputs reach that)."""
    rng = np.random.default_rng(77)
    x = rng.integers(0, 256, (2, 2, 7, 7)).astype(np.uint8)
    w = rng.integers(-128, 128, (3, 2, 3, 3)).astype(np.int8)
    _plant_saturating_taps(x, w)
    wz = {None: None, 0: np.array(0, np.int8), "per_channel": np.array([0, 1, -1], np.int8)}[w_zero_point]
    xz = np.array(37, np.uint8)
    args = (x, np.array(0.02, np.float32), xz, w, np.array([0.001, 0.002, 0.003], np.float32), wz,
            np.array(0.07, np.float32), np.array(120, np.uint8), rng.integers(-500, 500, 3).astype(np.int32))
    attrs = dict(pads=[1, 0, 1, 2], strides=[1, 2])
    got = run("QLinearConv", *args, **attrs)
    want = qlinear_conv_reference(*args, **attrs)
    assert got.dtype == np.uint8
    np.testing.assert_array_equal(got, want)
    saturated = int16_pair_saturated_conv(x, xz, w, wz, **attrs)
    assert not np.array_equal(saturated, int_conv(x, xz, w, wz, **attrs))


# ---- pooling ----------------------------------------------------------------

def test_maxpool_indices_column_major_dilated_ceil():
    x = rand(2, 3, 7, 8)
    attrs = dict(kernel_shape=[3, 2], strides=[2, 2], dilations=[2, 1], ceil_mode=1, storage_order=1)
    got = run("MaxPool", x, n_out=2, **attrs)
    want = ort("MaxPool", x, n_out=2, opset=12, **attrs)
    close(got, want)


def test_maxpool_v1_single_output_and_int8():
    x = RNG.integers(-100, 100, (1, 2, 5, 5)).astype(np.int8)
    got = run("MaxPool", x, opset=12, kernel_shape=[2, 2], pads=[1, 1, 0, 0])
    close(got, ort("MaxPool", x, opset=12, kernel_shape=[2, 2], pads=[1, 1, 0, 0]))
    assert not isinstance(run("MaxPool", rand(1, 1, 4, 4), opset=1, kernel_shape=[2, 2]), tuple)


@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_average_pool_pads_and_ceil(count_include_pad):
    x = rand(1, 2, 6, 7)
    attrs = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1,
                 count_include_pad=count_include_pad)
    close(run("AveragePool", x, **attrs), ort("AveragePool", x, opset=19, **attrs))


def test_lp_pool_p3_and_global_lp_pool():
    x = rand(1, 2, 5, 5)
    close(run("LpPool", x, kernel_shape=[2, 2], p=3, strides=[1, 2]),
          ort("LpPool", x, kernel_shape=[2, 2], p=3, strides=[1, 2]), rtol=1e-4)
    close(run("GlobalLpPool", x, p=3), ort("GlobalLpPool", x, p=3), rtol=1e-4)


def test_max_roi_pool_against_reference():
    x = rand(2, 3, 10, 12)
    rois = np.array([[0, 1, 1, 8, 6], [1, 0, 2, 11, 9], [0, 5, 5, 5, 5]], np.float32)
    close(run("MaxRoiPool", x, rois, pooled_shape=[3, 2], spatial_scale=0.9),
          ort("MaxRoiPool", x, rois, pooled_shape=[3, 2], spatial_scale=0.9))


def test_global_pools_keep_dims_and_dtype():
    x = rand(2, 3, 4, 5, 6, dtype=np.float16)
    got = run("GlobalAveragePool", x)
    assert got.shape == (2, 3, 1, 1, 1) and got.dtype == np.float16
    assert run("GlobalMaxPool", x).shape == (2, 3, 1, 1, 1)


# ---- recurrent ----------------------------------------------------------------

def _rnn_weights(gates, dirs, hidden, inp):
    return (rand(dirs, gates * hidden, inp), rand(dirs, gates * hidden, hidden),
            rand(dirs, 2 * gates * hidden))


@pytest.mark.parametrize("op,gates,extra", [
    ("RNN", 1, dict(activations=["Relu", "Tanh"])),
    ("GRU", 3, dict(linear_before_reset=1)),
    ("GRU", 3, dict(activations=["HardSigmoid", "Tanh", "Sigmoid", "Softsign"], activation_alpha=[0.3, 0.2],
                    activation_beta=[0.4, 0.6])),
    ("LSTM", 4, dict(clip=0.5)),
])
def test_recurrent_bidirectional_with_sequence_lens(op, gates, extra):
    seq, batch, inp, hidden = 5, 3, 4, 6
    x = rand(seq, batch, inp)
    w, r, b = _rnn_weights(gates, 2, hidden, inp)
    lens = np.array([5, 2, 3], np.int32)
    h0 = rand(2, batch, hidden)
    ins = [x, w, r, b, lens, h0]
    got = run(op, *ins, n_out=2, direction="bidirectional", hidden_size=hidden, **extra)
    want = ort(op, *ins, n_out=2, opset=14, direction="bidirectional", hidden_size=hidden, **extra)
    close(got[:2], want, rtol=1e-4, atol=1e-5)


def test_lstm_batch_first_layout_with_peepholes():
    seq, batch, inp, hidden = 4, 2, 3, 5
    x = rand(batch, seq, inp)
    w, r, b = _rnn_weights(4, 1, hidden, inp)
    p = rand(1, 3 * hidden)
    h0, c0 = rand(batch, 1, hidden), rand(batch, 1, hidden)
    got = run("LSTM", x, w, r, b, None, h0, c0, p, n_out=3, hidden_size=hidden, layout=1)
    want = reference("LSTM", x, w, r, b, None, h0, c0, p, n_out=3, opset=14, hidden_size=hidden, layout=1)
    close(got, want, rtol=1e-4, atol=1e-5)


# ---- attention ----------------------------------------------------------------

def test_attention_3d_gqa_bool_mask_causal_with_past():
    b, s, past, hq, hkv, d = 2, 3, 4, 4, 2, 8
    q, k, v = rand(b, s, hq * d), rand(b, s, hkv * d), rand(b, s, hkv * d)
    pk, pv = rand(b, hkv, past, d), rand(b, hkv, past, d)
    mask = RNG.random((s, past + s)) > 0.3
    attrs = dict(q_num_heads=hq, kv_num_heads=hkv, is_causal=1, qk_matmul_output_mode=3)
    got = run("Attention", q, k, v, mask, pk, pv, n_out=4, **attrs)
    want = reference("Attention", q, k, v, mask, pk, pv, n_out=4, opset=23, **attrs)
    close(got, want, rtol=1e-4, atol=1e-5)


def test_rotary_embedding_partial_dim_with_positions():
    b, s, h, d = 2, 3, 2, 8
    x = rand(b, s, h * d)
    cos, sin = rand(10, 2), rand(10, 2)
    pos = np.array([[0, 1, 2], [5, 6, 7]], np.int64)
    attrs = dict(num_heads=h, rotary_embedding_dim=4, interleaved=1)
    close(run("RotaryEmbedding", x, cos, sin, pos, **attrs),
          reference("RotaryEmbedding", x, cos, sin, pos, opset=23, **attrs))


# ---- resize / sampling -----------------------------------------------------------

def test_resize_v10_nearest_and_linear_follow_onnxruntime():
    x = rand(1, 1, 3, 4)
    scales = np.array([1, 1, 1.7, 2.5], np.float32)
    for mode in ("nearest", "linear"):
        close(run("Resize", x, scales, opset=10, mode=mode), ort("Resize", x, scales, opset=10, mode=mode))


def test_resize_negative_axes_sizes_and_uint8():
    x = RNG.integers(0, 255, (1, 2, 5, 6)).astype(np.uint8)
    sizes = np.array([8, 4], np.int64)
    attrs = dict(mode="linear", axes=[-2, -1])
    got = run("Resize", x, None, None, sizes, **attrs)
    want = ort("Resize", x, None, None, sizes, opset=18, mode="linear", axes=[2, 3])[0]
    assert got.dtype == np.uint8 and got.shape == want.shape
    assert np.abs(got.astype(int) - want.astype(int)).max() <= 1


def test_resize_cubic_antialias_downscale():
    x = rand(1, 1, 9, 10)
    scales = np.array([1, 1, 0.45, 0.6], np.float32)
    attrs = dict(mode="cubic", antialias=1, exclude_outside=1)
    close(run("Resize", x, None, scales, **attrs), reference("Resize", x, None, scales, opset=18, **attrs), atol=1e-4)


def test_upsample_v7_linear_and_v9_nearest():
    x = rand(1, 1, 2, 3)
    close(run("Upsample", x, opset=7, mode="linear", scales=[1.0, 1.0, 2.0, 1.5]),
          ort("Upsample", x, opset=7, mode="linear", scales=[1.0, 1.0, 2.0, 1.5]))
    s = np.array([1, 1, 3, 2], np.float32)
    close(run("Upsample", x, s, opset=9), ort("Upsample", x, s, opset=9))


@pytest.mark.parametrize("mode,padding", [("bilinear", "reflection"), ("bicubic", "reflection"), ("nearest", "zeros")])
def test_grid_sample_v16_out_of_range_grid(mode, padding):
    x = rand(2, 3, 5, 6)
    grid = (RNG.random((2, 4, 7, 2)) * 3 - 1.5).astype(np.float32)
    attrs = dict(mode=mode, padding_mode=padding, align_corners=0)
    close(run("GridSample", x, grid, opset=16, **attrs), ort("GridSample", x, grid, opset=16, **attrs), atol=1e-4)


@pytest.mark.parametrize("align_corners", [0, 1])
def test_grid_sample_cubic_border_moves_only_points_beyond_the_border(align_corners):
    # onnxruntime never clamps cubic coordinates; the spec's reference clamps
    # the ones outside the border band, and so do we
    x = rand(1, 2, 5, 6)
    grid = (RNG.random((1, 4, 7, 2)) * 3 - 1.5).astype(np.float32)
    attrs = dict(mode="cubic", padding_mode="border", align_corners=align_corners)
    close(run("GridSample", x, grid, **attrs), reference("GridSample", x, grid, opset=20, **attrs), atol=1e-4)


def test_center_crop_pad_negative_axes_odd_difference():
    x = rand(3, 5, 4)
    got = run("CenterCropPad", x, np.array([2, 7], np.int64), axes=[-2, 0])
    close(got, reference("CenterCropPad", x, np.array([2, 7], np.int64), opset=18, axes=[-2, 0]))


# ---- signal / detection ------------------------------------------------------------

@pytest.mark.parametrize("attrs,axis,length", [
    (dict(), -2, None), (dict(onesided=1), 1, 6), (dict(inverse=1), 2, None)])
def test_dft_opset20_axis_input(attrs, axis, length):
    x = rand(2, 5, 4, 2)
    args = [x, None if length is None else np.array(length, np.int64), np.array(axis, np.int64)]
    close(run("DFT", *args, **attrs), reference("DFT", *args, opset=20, **attrs), atol=1e-4)


def test_stft_with_window_and_complex_input():
    x = rand(2, 40, 2)
    win = np.hanning(16).astype(np.float32)
    args = (x, np.array(6, np.int64), win, np.array(16, np.int64))
    close(run("STFT", *args, onesided=0), reference("STFT", *args, opset=17, onesided=0), atol=1e-4)


def test_symmetric_windows_and_dtype():
    size = np.array(9, np.int64)
    for op in ("HannWindow", "HammingWindow", "BlackmanWindow"):
        close(run(op, size, periodic=0, output_datatype=11),
              reference(op, size, opset=17, periodic=0, output_datatype=11))


def test_nms_center_boxes_with_score_threshold():
    boxes = np.array([[[5, 5, 4, 4], [5.5, 5, 4, 4], [20, 20, 2, 2], [5, 5.2, 4, 4]]], np.float32)
    scores = np.array([[[0.9, 0.8, 0.7, 0.95], [0.1, 0.6, 0.2, 0.3]]], np.float32)
    args = (boxes, scores, np.array([2], np.int64), np.array([0.4], np.float32), np.array([0.25], np.float32))
    np.testing.assert_array_equal(run("NonMaxSuppression", *args, center_point_box=1),
                                  ort("NonMaxSuppression", *args, opset=11, center_point_box=1)[0])


def test_roi_align_v10_output_half_pixel_max_mode():
    x = rand(1, 2, 8, 8)
    rois = np.array([[1, 1, 6, 5], [0, 0, 7, 7]], np.float32)
    bi = np.array([0, 0], np.int64)
    attrs = dict(mode="max", output_height=3, output_width=2, sampling_ratio=2, spatial_scale=0.8)
    close(run("RoiAlign", x, rois, bi, opset=10, **attrs), ort("RoiAlign", x, rois, bi, opset=10, **attrs), atol=1e-4)


def test_deform_conv_groups_and_offset_groups_with_mask():
    x = rand(1, 4, 6, 5)
    w = rand(6, 2, 2, 3)
    oh, ow = 6, 4     # pads are (top, left, bottom, right)
    offset = (rand(1, 2 * 2 * 6, oh, ow) * 1.5).astype(np.float32)
    b, mask = rand(6), RNG.random((1, 2 * 6, oh, ow)).astype(np.float32)
    attrs = dict(group=2, offset_group=2, pads=[1, 0, 0, 1], strides=[1, 1], dilations=[1, 1])
    close(run("DeformConv", x, w, offset, b, mask, **attrs),
          reference("DeformConv", x, w, offset, b, mask, opset=19, **attrs), atol=1e-4)


def test_col2im_3d_strided_dilated_padded():
    image, block = np.array([5, 6, 4], np.int64), np.array([2, 2, 1], np.int64)
    attrs = dict(strides=[1, 2, 1], dilations=[2, 1, 1], pads=[1, 0, 0, 1, 1, 0])
    blocks = (5 + 2 - 3) // 1 + 1, (6 + 1 - 2) // 2 + 1, 4
    x = rand(2, 3 * 4, int(np.prod(blocks)))
    close(run("Col2Im", x, image, block, **attrs), reference("Col2Im", x, image, block, opset=18, **attrs))


def test_max_unpool_with_larger_output_shape():
    x = rand(1, 1, 4, 4)
    y, idx = run("MaxPool", x, n_out=2, kernel_shape=[2, 2], strides=[2, 2])
    shape = np.array([1, 1, 5, 5], np.int64)
    close(run("MaxUnpool", y, idx, shape, kernel_shape=[2, 2], strides=[2, 2]),
          reference("MaxUnpool", y, idx, shape, opset=11, kernel_shape=[2, 2], strides=[2, 2]))


def test_attention_nonpad_kv_seqlen_softcap_and_window():
    q, k, v = rand(2, 3, 4, 8), rand(2, 3, 6, 8), rand(2, 3, 6, 8)
    nonpad = np.array([6, 4], np.int64)
    attrs = dict(softcap=2.0, is_causal=1, left_window_size=2, qk_matmul_output_mode=2)
    got = run("Attention", q, k, v, None, None, None, nonpad, n_out=4, **attrs)
    want = reference("Attention", q, k, v, None, None, None, nonpad, n_out=4, opset=25, **attrs)
    close(got[:1] + got[3:], [want[0], want[3]], atol=1e-5)


@pytest.mark.parametrize("xs,ws,attrs", [
    ((2, 3, 12, 14), (4, 3, 3, 5), dict(dilations=[2, 1], pads=[1, 2, 0, 1])),
    ((1, 2, 6, 7, 5), (3, 2, 2, 3, 2), dict(dilations=[1, 2, 1])),
    ((1, 3, 30), (2, 3, 5), dict(dilations=[3], pads=[2, 2])),
])
def test_conv_shifted_gemm_path_matches_reference(monkeypatch, xs, ws, attrs):
    from onnxstudio.core.exec.kernels import conv as conv_module
    monkeypatch.setattr(conv_module, "_SHIFT_MIN_COLS", 0)      # force the large-image path
    x, w, b = rand(*xs), rand(*ws), rand(ws[0])
    close(run("Conv", x, w, b, **attrs), reference("Conv", x, w, b, opset=11, **attrs), atol=1e-4)


@pytest.mark.parametrize("axes,mode", [([3, 2], "nearest"), ([2, 3], "linear"), ([-1, -2], "cubic")])
def test_resize_crop_and_resize_roi_follows_axes(axes, mode):
    # roi lists starts then ends in `axes` order; 0.1 * 5 must round like
    # float32 (a tie for nearest), as onnxruntime computes it
    x = rand(1, 2, 6, 7)
    roi = np.array([0.2, 0.1, 0.9, 0.8], np.float32)
    sizes = np.array([4, 10], np.int64)
    attrs = dict(mode=mode, coordinate_transformation_mode="tf_crop_and_resize", axes=axes,
                 extrapolation_value=-3.0)
    close(run("Resize", x, roi, None, sizes, **attrs),
          ort("Resize", x, roi, None, sizes, opset=19, **attrs), atol=1e-5)
