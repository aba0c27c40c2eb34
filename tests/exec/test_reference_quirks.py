"""A comparison with onnxruntime on a CPU where its uint8 x int8
MatMulInteger saturates (x86 with AVX2, no VNNI) pinned the difference on
the model: "largest own error: MatMulInteger", and `reduce` extracted it
as a failing subgraph. The difference is onnxruntime's: the comparison now
recomputes its saturated sum for the differing elements and, only when
every one equals it, says the node differs without being wrong.

The reference values here come from exact_integer.int16_pair_saturated_matmul
(a model of the AVX2 kernel written for the tests), fed as a golden set, so
the test gives the same answer on every machine. Last, a first divergence
that only rounds an input difference within the tolerance is said to be so."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from exact_integer import int16_pair_saturated_matmul, int_matmul
from onnxstudio.core import load
from onnxstudio.core.exec.other_references import compare_with_golden
from onnxstudio.core.exec.reduce import ReduceError, reduce_failing
from onnxstudio.core.exec.reference_quirks import saturated_product_explains


class _Node:
    op_type, domain = "MatMulInteger", ""


def _operands(rng, m=6, k=33, n=5):
    """u8 x s8 operands large enough that some neighbouring pair sums pass int16."""
    a = rng.integers(200, 256, (m, k)).astype(np.uint8)
    b = rng.integers(100, 128, (k, n)).astype(np.int8)
    b[:, 1::2] = rng.integers(-20, 20, (k, n // 2)).astype(np.int8)    # columns that never saturate
    return a, b


@pytest.mark.parametrize("a_zp, b_zp", [(None, None), (np.uint8(3), np.int8(-2)),
                                        (np.arange(6, dtype=np.uint8), np.arange(5, dtype=np.int8))])
def test_the_saturated_sum_explains_exactly_what_it_is(a_zp, b_zp):
    a, b = _operands(np.random.default_rng(0))
    exact = int_matmul(a, a_zp, b, b_zp)
    saturated = int16_pair_saturated_matmul(a, a_zp, b, b_zp)
    assert (exact != saturated).any() and (exact == saturated).any()
    inputs = [a, b, a_zp, b_zp]
    text = saturated_product_explains(_Node(), inputs, saturated, exact)
    assert text and "saturat" in text and "VNNI" in text and "exactly" in text

    off = saturated.copy()
    off[exact != saturated] += 1                    # another difference: not onnxruntime's saturation
    assert saturated_product_explains(_Node(), inputs, off, exact) is None
    assert saturated_product_explains(_Node(), inputs, exact, exact) is None          # nothing differs
    signed = [a.astype(np.int16).clip(-128, 127).astype(np.int8), b, None, None]      # s8 x s8: no such kernel
    assert saturated_product_explains(_Node(), signed, saturated, exact) is None


def test_a_batched_operand_is_followed():
    rng = np.random.default_rng(1)
    a = np.stack([_operands(rng)[0] for _ in range(3)])            # (3, 6, 33)
    b = _operands(rng)[1]
    exact = np.stack([int_matmul(x, None, b, None) for x in a])
    saturated = np.stack([int16_pair_saturated_matmul(x, None, b, None) for x in a])
    assert saturated_product_explains(_Node(), [a, b], saturated, exact)
    swapped = saturated[::-1].copy()
    assert (swapped != saturated).any()
    assert saturated_product_explains(_Node(), [a, b], swapped, exact) is None


def _quantized_model(path, b) -> None:
    """DynamicQuantizeLinear-free core of quantize_dynamic's pattern: u8 A x s8 weight -> Cast -> Relu."""
    nodes = [helper.make_node("MatMulInteger", ["a", "w"], ["p"], name="mm"),
             helper.make_node("Cast", ["p"], ["f"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Relu", ["f"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "q", [helper.make_tensor_value_info("a", TensorProto.UINT8, list((6, 33)))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 5])],
                              initializer=[numpy_helper.from_array(b, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_the_report_blames_no_node_and_reduce_extracts_nothing(tmp_path):
    a, b = _operands(np.random.default_rng(2))
    path = tmp_path / "q.onnx"
    _quantized_model(path, b)
    model = load(path)
    p = int16_pair_saturated_matmul(a, None, b, None).astype(np.int32)
    golden = {"p": p, "f": p.astype(np.float32), "y": np.maximum(p, 0).astype(np.float32)}
    report = compare_with_golden(model, {"a": a}, golden)
    mm = next(nd for nd in report.nodes if nd.node.name == "mm")
    assert not mm.agrees and mm.explained and report.first_divergence is mm
    assert [nd.node.name for nd in report.explained] == ["mm"]
    assert report.worst_own is None or report.worst_own.node.name != "mm"
    assert report.to_json()["nodes"][0]["explained"] == mm.explained
    with pytest.raises(ReduceError, match="without being wrong"):
        reduce_failing(model, report, {"a": a, **golden}, run_reference=lambda *a, **k: {})

    wrong = {**golden, "p": p + 1}                       # a reference off by one everywhere: unexplained
    report = compare_with_golden(model, {"a": a}, wrong)
    assert not report.explained and report.worst_own.node.name == "mm"



def _requantized(sums, a_scale, b_scale, y_scale, y_zp):
    """QLinearMatMul's output from integer sums, scaled in float32 as onnxruntime scales."""
    multiplier = np.float32(a_scale) * np.float32(b_scale) / np.float32(y_scale)
    return np.clip(np.rint(sums.astype(np.float32) * multiplier) + np.float32(y_zp), 0, 255).astype(np.uint8)


def test_qlinear_matmul_scaled_after_the_saturated_sum_is_recognised(tmp_path):
    a, b = _operands(np.random.default_rng(5))
    scales = dict(a_scale=np.float32(0.02), b_scale=np.float32(0.01), y_scale=np.float32(90.0))
    a_zp, b_zp, y_zp = np.uint8(4), np.int8(1), np.uint8(10)
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in
             (("w", b), ("as", scales["a_scale"]), ("az", a_zp), ("bs", scales["b_scale"]), ("bz", b_zp),
              ("ys", scales["y_scale"]), ("yz", y_zp))]
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "w", "bs", "bz", "ys", "yz"], ["y"], name="qmm")
    graph = helper.make_graph([node], "q", [helper.make_tensor_value_info("a", TensorProto.UINT8, [6, 33])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, [6, 5])], initializer=inits)
    path = tmp_path / "qlm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    saturated = int16_pair_saturated_matmul(a, int(a_zp), b, int(b_zp))
    assert (saturated != int_matmul(a, int(a_zp), b, int(b_zp))).any()
    theirs = _requantized(saturated, y_zp=y_zp, **scales)
    report = compare_with_golden(load(path), {"a": a}, {"y": theirs})
    qmm = report.nodes[0]
    assert not qmm.agrees and "scaled in float32" in qmm.explained

    off = theirs.copy()
    exact = _requantized(int_matmul(a, int(a_zp), b, int(b_zp)), y_zp=y_zp, **scales)
    off[tuple(np.argwhere(theirs != exact)[0])] ^= 1         # one differing element off by one more
    report = compare_with_golden(load(path), {"a": a}, {"y": off})
    assert not report.nodes[0].explained


def test_a_first_divergence_of_its_inputs_rounding_says_so(tmp_path, capsys):
    """A quantizer fed values within the tolerance of the reference's may
    round one of them to the next step: it is the first node that differs,
    and its own error (run alone on the reference's inputs) is zero. The
    report says so instead of leaving the quantizer to look like the fault."""
    from onnxstudio.cli import main
    nodes = [helper.make_node("Mul", ["x", "two"], ["m"], name="mul"),
             helper.make_node("QuantizeLinear", ["m", "scale"], ["q"], name="quant")]
    inits = [numpy_helper.from_array(np.float32(2.0), "two"), numpy_helper.from_array(np.float32(0.5), "scale")]
    graph = helper.make_graph(nodes, "r", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("q", TensorProto.UINT8, [4])], initializer=inits)
    path = tmp_path / "r.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    x = np.float32([0.375, 1.0, 2.0, 0.8])
    m = x * 2                                   # 0.75 / 0.5 = 1.5 rounds (half to even) to 2
    m_theirs = m.copy()
    m_theirs[0] = np.float32(0.7499999)         # within the tolerance, but 1.4999998 rounds to 1
    golden = {"m": m_theirs, "q": np.rint(m_theirs / np.float32(0.5)).astype(np.uint8)}
    report = compare_with_golden(load(path), {"x": x}, golden)
    first = report.first_divergence
    assert first.node.name == "quant" and first.own_agrees and not first.explained
    np.savez(tmp_path / "golden.npz", **golden)
    np.save(tmp_path / "x.npy", x)
    main(["run", str(path), "--input", f"x={tmp_path / 'x.npy'}", "--golden", str(tmp_path / "golden.npz")])
    out = capsys.readouterr().out
    assert "first divergent node: graph/node[1] QuantizeLinear" in out
    assert "its own error is within the tolerance" in out


def _channels_last_saturated_conv(x, x_zp, w, strides, pads):
    """QLinearConv's integer sums as onnxruntime's AVX2 kernel makes them
    (one group, x_zp 0 or no padding): each window laid out channels last
    (for every kernel tap, the channels) and multiplied pairwise saturated."""
    from exact_integer import im2col
    m, c = w.shape[:2]
    taps = int(np.prod(w.shape[2:]))
    cols = im2col(x, w.shape[2:], strides, pads, [1, 1])                 # (1, oh, ow, c * taps), (c, tap) order
    out = cols.shape[1:3]
    cols = cols.reshape(-1, c, taps).transpose(0, 2, 1).reshape(-1, taps * c)
    weights = w.reshape(m, c, taps).transpose(0, 2, 1).reshape(m, -1).T
    sums = int16_pair_saturated_matmul(cols, int(x_zp), weights, 0)     # (oh * ow, m)
    return sums.T.reshape(1, m, *out)


@pytest.mark.parametrize("x_zp, strides, pads", [(0, [1, 1], [1, 1, 1, 1]), (7, [2, 2], [0, 0, 0, 0])])
def test_qlinear_conv_laid_out_channels_last_is_recognised(tmp_path, x_zp, strides, pads):
    rng = np.random.default_rng(6)
    x = rng.integers(200, 256, (1, 5, 7, 7)).astype(np.uint8)
    # Signs alternating over the input channels: paired channels last, neighbours mostly cancel;
    # paired along the taps (channels first), they add up and saturate.
    w = (rng.integers(100, 128, (4, 5, 3, 3)) * np.array([1, -1, 1, -1, 1]).reshape(1, 5, 1, 1)).astype(np.int8)
    w[1::2] = rng.integers(-3, 3, (2, 5, 3, 3)).astype(np.int8)         # output channels that never saturate
    scales = {"xs": np.float32(0.02), "ws": np.float32(0.01), "ys": np.float32(2.0)}
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in
             (("w", w), ("xs", scales["xs"]), ("xz", np.uint8(x_zp)), ("ws", scales["ws"]), ("wz", np.int8(0)),
              ("ys", scales["ys"]), ("yz", np.uint8(3)))]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"], name="qc",
                            strides=strides, pads=pads)
    graph = helper.make_graph([node], "c", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 5, 7, 7])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], initializer=inits)
    path = tmp_path / "qc.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    sums = _channels_last_saturated_conv(x, x_zp, w, strides, pads)
    theirs = _requantized(sums, scales["xs"], scales["ws"], scales["ys"], np.uint8(3))
    report = compare_with_golden(load(path), {"x": x}, {"y": theirs})
    qc = report.nodes[0]
    assert not qc.agrees and "scaled in float32" in qc.explained

    # The same sums laid out channels first (the spec's order) pair other products: not onnxruntime's.
    from exact_integer import im2col
    cols = im2col(x, [3, 3], strides, pads, [1, 1])
    first = int16_pair_saturated_matmul(cols.reshape(-1, cols.shape[-1]), x_zp, w.reshape(4, -1).T, 0)
    other = _requantized(first.T.reshape(sums.shape), scales["xs"], scales["ws"], scales["ys"], np.uint8(3))
    assert (other != theirs).any()
    assert not compare_with_golden(load(path), {"x": x}, {"y": other}).nodes[0].explained


def test_grouped_qlinear_conv_pairs_within_each_group(tmp_path):
    rng = np.random.default_rng(8)
    x = rng.integers(150, 256, (1, 6, 6, 6)).astype(np.uint8)
    w = (rng.integers(100, 128, (4, 3, 3, 3)) * np.array([1, -1, 1]).reshape(1, 3, 1, 1)).astype(np.int8)
    scales = (np.float32(0.02), np.float32(0.01), np.float32(2.0))
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in
             (("w", w), ("xs", scales[0]), ("xz", np.uint8(0)), ("ws", scales[1]), ("wz", np.int8(0)),
              ("ys", scales[2]), ("yz", np.uint8(0)))]
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"], group=2)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.UINT8, [1, 6, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8, None)], initializer=inits)
    path = tmp_path / "grouped.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    # Each group on its own: input channels 0-2 make outputs 0-1, channels 3-5 outputs 2-3.
    sums = np.concatenate([_channels_last_saturated_conv(x[:, 3 * g:3 * g + 3], 0, w[2 * g:2 * g + 2], [1, 1],
                                                         [0, 0, 0, 0]) for g in range(2)], axis=1)
    theirs = _requantized(sums, *scales, np.uint8(0))
    node_diff = compare_with_golden(load(path), {"x": x}, {"y": theirs}).nodes[0]
    assert not node_diff.agrees and node_diff.explained
    # Paired across the groups' boundary (as if one group), the sums would be others: no claim.
    whole = _channels_last_saturated_conv(x, 0, np.concatenate([w, w], axis=1), [1, 1], [0, 0, 0, 0])
    crossed = _requantized(whole, *scales, np.uint8(0))
    assert (crossed != theirs).any()
    assert not compare_with_golden(load(path), {"x": x}, {"y": crossed}).nodes[0].explained


def test_what_the_optimizer_fuses_is_recognised_too(tmp_path):
    """MatMulIntegerToFloat and DynamicQuantizeMatMul (com.microsoft): the
    saturated sum made float32, times a_scale * b_scale, plus the bias."""
    from onnxstudio.core.exec.kernels.quantize import dynamic_quantize_linear
    rng = np.random.default_rng(9)
    a_float = rng.uniform(1.0, 2.0, (6, 33)).astype(np.float32)        # quantized near the top: saturates
    _, b = _operands(rng)
    b_scale, bias = np.float32(0.05), rng.standard_normal(5).astype(np.float32)
    a_q, a_scale, a_zp = dynamic_quantize_linear(a_float)
    sums = int16_pair_saturated_matmul(a_q, int(a_zp), b, 0)
    assert (sums != int_matmul(a_q, int(a_zp), b, 0)).any()
    theirs = sums.astype(np.float32) * (a_scale * b_scale) + bias
    for op, names in (("DynamicQuantizeMatMul", ["a", "w", "bs", "", "bias"]),
                      ("MatMulIntegerToFloat", ["aq", "w", "as", "bs", "az", "", "bias"])):
        inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in
                 (("w", b), ("bs", b_scale), ("bias", bias), ("as", a_scale), ("az", a_zp))]
        node = helper.make_node(op, names, ["y"], domain="com.microsoft", name="fused")
        feed = "a" if op == "DynamicQuantizeMatMul" else "aq"
        graph = helper.make_graph([node], "f", [helper.make_tensor_value_info(
            feed, TensorProto.FLOAT if feed == "a" else TensorProto.UINT8, [6, 33])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 5])], initializer=inits)
        path = tmp_path / f"{op}.onnx"
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                          helper.make_opsetid("com.microsoft", 1)]), path)
        feeds = {"a": a_float} if feed == "a" else {"aq": a_q}
        fused = compare_with_golden(load(path), feeds, {"y": theirs}).nodes[0]
        assert not fused.agrees and "scaled in float32" in fused.explained, op
        nudged = theirs + np.float32(1e-3)                             # not onnxruntime's arithmetic
        assert not compare_with_golden(load(path), feeds, {"y": nudged}).nodes[0].explained, op


def test_dynamic_quantize_linear_of_zeros_only_is_recognised(tmp_path):
    """onnxruntime gives an input of zeros only the scale 1, the definition
    (and onnx's reference) 1/255: met by a dynamically quantized model at
    batch 1, sequence length 1, where it was named the largest own error."""
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"], name="dql")
    outputs = [helper.make_tensor_value_info(n, t, None) for n, t in
               (("y", TensorProto.UINT8), ("s", TensorProto.FLOAT), ("z", TensorProto.UINT8))]
    graph = helper.make_graph([node], "d", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])], outputs)
    path = tmp_path / "dql.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    zeros = np.zeros(3, np.float32)
    onnxruntime_way = {"y": np.zeros(3, np.uint8), "s": np.float32(1.0), "z": np.uint8(0)}
    report = compare_with_golden(load(path), {"x": zeros}, onnxruntime_way)
    dql = report.nodes[0]
    assert not dql.agrees and "scale 1" in dql.explained and report.worst_own is None

    ones = np.ones(3, np.float32)                    # a scale of 1 here would be a real difference
    wrong = {"y": np.full(3, 255, np.uint8), "s": np.float32(1.0), "z": np.uint8(0)}
    assert not compare_with_golden(load(path), {"x": ones}, wrong).nodes[0].explained


@pytest.mark.parametrize("trans_a, trans_b, quantized_y", [(0, 0, True), (1, 1, True), (0, 1, False)])
def test_qgemm_with_alpha_and_bias_is_recognised(tmp_path, trans_a, trans_b, quantized_y):
    """com.microsoft QGemm (what onnxruntime's quantizer writes for a Gemm):
    the saturated sum plus the int32 C, made float32, times alpha * a_scale
    * b_scale, over y_scale (rounded, y_zp added) when Y is quantized. The
    arithmetic below was measured equal to onnxruntime's on an AVX2 CPU
    without VNNI, element for element, in these three forms."""
    a, b = _operands(np.random.default_rng(11))
    a_zp, b_zp, alpha = np.uint8(3), np.int8(0), np.float32(0.75)
    a_scale, b_scale, y_scale, y_zp = np.float32(0.02), np.float32(0.015), np.float32(7.5), np.uint8(128)
    c = np.arange(-200_000, 300_000, 100_000, dtype=np.int32)     # several output steps apart
    names = ["a", "as", "az", "w", "bs", "bz", "c"] + (["ys", "yz"] if quantized_y else [])
    inits = [numpy_helper.from_array(np.asarray(v), n) for n, v in
             (("w", b.T.copy() if trans_b else b), ("as", a_scale), ("az", a_zp), ("bs", b_scale), ("bz", b_zp),
              ("c", c), ("ys", y_scale), ("yz", y_zp))]
    node = helper.make_node("QGemm", names, ["y"], domain="com.microsoft", name="qgemm",
                            alpha=float(alpha), transA=trans_a, transB=trans_b)
    feed = a.T.copy() if trans_a else a
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("a", TensorProto.UINT8, feed.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.UINT8 if quantized_y else
                                                             TensorProto.FLOAT, [6, 5])], initializer=inits)
    path = tmp_path / "qgemm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                      helper.make_opsetid("com.microsoft", 1)]), path)

    def onnxruntime_way(sums):
        acc = (sums + c).astype(np.float32)
        if not quantized_y:
            return acc * (alpha * a_scale * b_scale)
        return np.clip(np.rint(acc * (alpha * a_scale * b_scale / y_scale)) + np.float32(y_zp), 0, 255
                       ).astype(np.uint8)

    saturated = int16_pair_saturated_matmul(a, int(a_zp), b, int(b_zp))
    theirs, exact = onnxruntime_way(saturated), onnxruntime_way(int_matmul(a, int(a_zp), b, int(b_zp)))
    assert (theirs != exact).any()
    qgemm = compare_with_golden(load(path), {"a": feed}, {"y": theirs}).nodes[0]
    assert not qgemm.agrees and "scaled in float32" in qgemm.explained

    without_bias = onnxruntime_way(saturated - c)        # C left out: not onnxruntime's arithmetic
    assert not compare_with_golden(load(path), {"a": feed}, {"y": without_bias}).nodes[0].explained
