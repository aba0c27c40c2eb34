"""Shape facts onnx full_check and onnxruntime refuse and the app called
clean, found with tools/check_differential.py (seeds 37-40); inference now
reports them (so the app and `onnxstudio check` do). Each case names the
reproducer it comes from (`--replay BASE:SEED`):

- LinearAttention packs its heads into the last dim of Q (H_q * d_k), K
  (H_kv * d_k) and V (H_kv * d_v), and q_num_heads is a multiple of
  kv_num_heads (node/test_linear_attention_no_past_explicit_zeros:39001755:
  the query's last dim declared 5 beside q_num_heads 4);
- MaxUnpool's kernel_shape, strides and pads fit X's spatial axes, with
  output_shape given too (node/test_maxunpool_export_with_output_shape:
  40001613, strides [2], and 40003296, kernel_shape [2, 2, 2], for a 4-D X).

Each refused case is proved on both oracles: onnx full_check refuses it and
onnxruntime refuses it at load (its load runs onnx's inference, never a
kernel: the same on every machine). Valid neighbours are accepted by both,
run on onnxruntime and are clean for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _model(node, inputs, outputs, opset):
    g = helper.make_graph([node], "g", inputs, outputs)
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _runs(model, feeds) -> bool:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    session.run(None, feeds)
    return True


# --- LinearAttention's packed heads ------------------------------------------------------------------

def _linear_attention(q, k, v, q_heads, kv_heads):
    node = helper.make_node("LinearAttention", ["q", "k", "v"], ["y", "state"], name="lin", update_rule="linear",
                            q_num_heads=q_heads, kv_num_heads=kv_heads)
    inputs = [_vi("q", F, q), _vi("k", F, k), _vi("v", F, v)]
    return _model(node, inputs, [_vi("y", F, ["b", "t", "h"]), _vi("state", F, ["b", "h", "dk", "dv"])], opset=27)


# name -> (Q, K, V shapes, q_num_heads, kv_num_heads, our code, words of our message)
LINEAR_ATTENTION_REFUSED = {
    # the reproducer: 5 is no multiple of 4 heads
    "query_last_dim_5_for_4_heads": ([2, 4, 5], [2, 4, 32], [2, 4, 32], 4, 4, "shape.dim-mismatch",
                                     "input 0 'q' [2, 4, 5] packs 4 heads (q_num_heads) into its last dim, 5"),
    "key_last_dim_30_for_4_heads": ([2, 4, 32], [2, 4, 30], [2, 4, 32], 4, 4, "shape.dim-mismatch",
                                    "input 1 'k' [2, 4, 30] packs 4 heads (kv_num_heads) into its last dim, 30"),
    "value_last_dim_30_for_4_heads": ([2, 4, 32], [2, 4, 32], [2, 4, 30], 4, 4, "shape.dim-mismatch",
                                      "input 2 'v' [2, 4, 30] packs 4 heads (kv_num_heads) into its last dim, 30"),
    "query_and_key_head_sizes_differ": ([2, 4, 16], [2, 4, 32], [2, 4, 32], 4, 4, "shape.dim-mismatch",
                                        "a head size d_k of 4 (16 over q_num_heads 4) but input 1 'k' [2, 4, 32] "
                                        "one of 8"),
    "q_heads_no_multiple_of_kv_heads": ([2, 4, 32], [2, 4, 24], [2, 4, 24], 4, 3, "attr.value-out-of-range",
                                        "q_num_heads 4 is not a multiple of kv_num_heads 3"),
    "kv_heads_above_q_heads": ([2, 4, 16], [2, 4, 32], [2, 4, 32], 2, 4, "attr.value-out-of-range",
                               "q_num_heads 2 is not a multiple of kv_num_heads 4"),
}


@pytest.mark.parametrize("name", sorted(LINEAR_ATTENTION_REFUSED))
def test_linear_attention_heads_that_do_not_fit_are_refused_by_both_and_by_us(name, tmp_path):
    q, k, v, q_heads, kv_heads, code, words = LINEAR_ATTENTION_REFUSED[name]
    model = _linear_attention(q, k, v, q_heads, kv_heads)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found
    assert words in found[0].message
    assert 'node[0] LinearAttention "lin"' in found[0].path


# Valid neighbours: one head size for Q and K, a value head size of its own,
# grouped query heads (4 over 2), multi-query (kv_num_heads 1), symbolic
# last dims (not judged).
LINEAR_ATTENTION_VALID = {
    "equal_heads": ([2, 4, 32], [2, 4, 32], [2, 4, 32], 4, 4),
    "value_head_size_of_its_own": ([2, 4, 32], [2, 4, 32], [2, 4, 16], 4, 4),
    "grouped_query_heads": ([2, 4, 32], [2, 4, 16], [2, 4, 16], 4, 2),
    "multi_query": ([2, 4, 24], [2, 4, 8], [2, 4, 6], 3, 1),
}


@pytest.mark.parametrize("name", sorted(LINEAR_ATTENTION_VALID))
def test_linear_attention_heads_that_fit_run_and_are_clean(name, tmp_path):
    q, k, v, q_heads, kv_heads = LINEAR_ATTENTION_VALID[name]
    model = _linear_attention(q, k, v, q_heads, kv_heads)
    assert onnx_accepts(model)
    rng = np.random.default_rng(0)
    assert _runs(model, {n: rng.random(s, dtype=np.float32) for n, s in (("q", q), ("k", k), ("v", v))})
    assert our_errors(model, tmp_path) == []


def test_linear_attention_symbolic_last_dims_are_not_judged(tmp_path):
    """The heads' relation is an attribute fact, judged whatever the dims;
    a numeric dim beside symbolic ones is judged; symbolic dims are not.
    The oracles agree on each."""
    heads_off = _linear_attention([2, 4, "dq"], [2, 4, "dk"], [2, 4, "dv"], 4, 3)
    key_off = _linear_attention([2, 4, "dq"], [2, 4, 30], [2, 4, "dv"], 4, 4)
    fits = _linear_attention([2, 4, "dq"], [2, 4, "dk"], [2, 4, "dv"], 4, 2)
    for model, code in ((heads_off, "attr.value-out-of-range"), (key_off, "shape.dim-mismatch")):
        assert not onnx_accepts(model) and not onnxruntime_loads(model)
        assert [d.code for d in our_errors(model, tmp_path)] == [code]
    assert onnx_accepts(fits) and onnxruntime_loads(fits)
    assert our_errors(fits, tmp_path) == []


# --- MaxUnpool's window attributes, with and without output_shape ------------------------------------

def _max_unpool(with_shape=True, **attrs):
    """The reproducer's base: X and I [1, 1, 2, 2], output_shape [1, 1, 5, 5]."""
    inputs = ["x", "i"] + (["shape"] if with_shape else [])
    node = helper.make_node("MaxUnpool", inputs, ["y"], name="unpool", **attrs)
    values = [_vi("x", F, [1, 1, 2, 2]), _vi("i", I64, [1, 1, 2, 2])] + ([_vi("shape", I64, [4])] if with_shape else [])
    return _model(node, values, [_vi("y", F, ["n", "c", "h", "w"])], opset=22)


FEEDS = {"x": np.array([[[[5, 6], [7, 8]]]], np.float32), "i": np.array([[[[5, 7], [13, 15]]]], np.int64),
         "shape": np.array([1, 1, 5, 5], np.int64)}
UNPOOL = 'graph/node[0] MaxUnpool "unpool"'

# name -> (output_shape given, attributes, the attribute our finding names)
MAX_UNPOOL_REFUSED = {
    "strides_one_for_two_axes": (True, {"kernel_shape": [2, 2], "strides": [2]}, "strides"),      # 40001613
    "kernel_three_for_two_axes": (True, {"kernel_shape": [2, 2, 2], "strides": [2, 2]}, "kernel_shape"),  # 40003296
    "pads_two_for_two_axes": (True, {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0]}, "pads"),
    "strides_three_without_output_shape": (False, {"kernel_shape": [2, 2], "strides": [2, 2, 2]}, "strides"),
    "pads_two_without_output_shape": (False, {"kernel_shape": [2, 2], "strides": [2, 2], "pads": [0, 0]}, "pads"),
}


@pytest.mark.parametrize("name", sorted(MAX_UNPOOL_REFUSED))
def test_max_unpool_attributes_of_other_lengths_are_refused_by_both_and_by_us(name, tmp_path):
    with_shape, attrs, attr = MAX_UNPOOL_REFUSED[name]
    model = _max_unpool(with_shape, **attrs)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("attr.length-mismatch", UNPOOL)], found
    assert f"attribute {attr!r} has {len(attrs[attr])} entries" in found[0].message
    assert "an input with 2 spatial axes needs" in found[0].message


def test_max_unpool_of_a_1d_input_is_refused_by_both_and_by_us(tmp_path):
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=[2])
    model = _model(node, [_vi("x", F, [4]), _vi("i", I64, [4])], [_vi("y", F, ["n"])], opset=22)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    assert [d.code for d in our_errors(model, tmp_path)] == ["shape.rank-mismatch"]


@pytest.mark.parametrize("with_shape", [True, False], ids=["output_shape", "computed"])
def test_max_unpool_with_attributes_of_its_rank_runs_and_is_clean(with_shape, tmp_path):
    model = _max_unpool(with_shape, kernel_shape=[2, 2], strides=[2, 2], pads=[0, 0, 0, 0])
    assert onnx_accepts(model)
    assert _runs(model, {k: v for k, v in FEEDS.items() if with_shape or k != "shape"})
    assert our_errors(model, tmp_path) == []
