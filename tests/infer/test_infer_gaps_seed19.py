"""Shape and type facts onnx full_check and onnxruntime refuse and the app
called clean, found with tools/check_differential.py (seeds 19-21, then
22-27); inference now reports them (so the app and `onnxstudio check` do).
Each case names the reproducer it comes from (`--replay BASE:SEED`):

- StringNormalizer takes [C] or [1, C]
  (node/test_strnormalizer_nostopwords_nochangecase:20001650);
- Attention's past keys and values have the batch, heads and head size of
  K and V, and one past length (node/test_attention_4d_diff_heads_with_past_
  and_present_mask4d:20003996);
- TensorScatter's update has the cache's rank (node/test_tensorscatter_circular:21001653);
- Resize's sizes, when computed, is 1-D (node/test_resize_upsample_sizes_
  nearest_not_larger:21002854); its axes lie inside the rank (node/test_resize_
  upsample_scales_cubic_align_corners:25001052); an empty sizes is not one
  (node/test_resize_tf_crop_and_resize_extrapolation_value:26001982);
- RotaryEmbedding with a 3-D input needs num_heads (node/test_rotary_embedding_3d_input:22000577);
- LinearAttention's decay and beta are 3-D (node/test_linear_attention_decode_step:23003908)
  and its head counts positive (node/test_linear_attention_prefill_with_past:27001818);
- CausalConvWithState's weight is 3-D (node/test_causal_conv_with_state_silu:24002984);
- a Loop's carried value keeps its element type through the body
  (test_range_float_type_positive_delta_expanded:24001252).

Each refused case is proved on both oracles: onnx full_check refuses it, and
onnxruntime refuses it at load (its load runs onnx's inference and graph
checks, never a kernel: the same on every machine) or, where it loads it,
fails to run it. Valid neighbours are accepted by both and clean for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F, I64, S, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING, TensorProto.BOOL


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _dims(n, prefix="d"):
    return [f"{prefix}{i}" for i in range(n)]


def _model(nodes, inputs, outputs, inits=(), opset=23):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _string_normalizer(shape):
    # locale "C": onnxruntime builds the named locale when it loads the node.
    node = helper.make_node("StringNormalizer", ["x"], ["y"], name="norm", case_change_action="LOWER", locale="C")
    return _model([node], [_vi("x", S, shape)], [_vi("y", S, _dims(max(len(shape), 1)))], opset=17)


def _attention(past_key=(2, 3, 12, 8), past_value=(2, 3, 12, 10), q=(2, 3, 4, 8), k=(2, 3, 6, 8), v=(2, 3, 6, 10),
               **attrs):
    """The present outputs are declared as K and V make them (as the
    reproducer's file declares them): onnx derives them from the past."""
    node = helper.make_node("Attention", ["q", "k", "v", "", "past_k", "past_v"], ["y", "present_k", "present_v"],
                            name="att", **attrs)
    total = past_key[2] + (k[2] if len(k) == 4 else k[1])
    heads = k[1] if len(k) == 4 else attrs["kv_num_heads"]
    k_head = k[3] if len(k) == 4 else k[2] // heads
    v_head = v[3] if len(v) == 4 else v[2] // heads
    inputs = [_vi("q", F, list(q)), _vi("k", F, list(k)), _vi("v", F, list(v)), _vi("past_k", F, list(past_key)),
              _vi("past_v", F, list(past_value))]
    outputs = [_vi("y", F, _dims(len(q))), _vi("present_k", F, [k[0], heads, total, k_head]),
               _vi("present_v", F, [v[0], heads, total, v_head])]
    return _model([node], inputs, outputs)


def _tensor_scatter(update):
    node = helper.make_node("TensorScatter", ["cache", "update"], ["y"], name="scatter", axis=-2)
    return _model([node], [_vi("cache", F, [2, 3, 4, 5]), _vi("update", F, update)], [_vi("y", F, [2, 3, 4, 5])],
                  opset=24)


def _resize_sizes(shape, const=False, **attrs):
    """sizes of `shape`: a graph input, or (const) an initializer."""
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode="nearest", **attrs)
    inputs, inits = [_vi("x", F, [1, 1, 2, 2])], []
    if const:
        inits.append(numpy_helper.from_array(np.array([1, 1, 4, 4], np.int64).reshape(shape), "sizes"))
    else:
        inputs.append(_vi("sizes", I64, shape))
    return _model([node], inputs, [_vi("y", F, _dims(4))], inits, opset=19)


def _rotary(x_shape, **attrs):
    inits = [numpy_helper.from_array(np.ones((8, 4), np.float32), n) for n in ("cos", "sin")]
    pos = numpy_helper.from_array(np.zeros((1, 3), np.int64), "pos")
    node = helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"], name="rope", **attrs)
    return _model([node], [_vi("x", F, x_shape)], [_vi("y", F, _dims(len(x_shape)))], inits + [pos])


def _linear_attention(beta=(1, 3, 2), **heads):
    inputs = [_vi(n, F, [1, 3, 8]) for n in ("q", "k", "v", "decay")] + [_vi("beta", F, list(beta))]
    heads = {"q_num_heads": 2, "kv_num_heads": 2, **heads}
    node = helper.make_node("LinearAttention", ["q", "k", "v", "", "decay", "beta"], ["y", "state"], name="lin",
                            **heads)
    return _model([node], inputs, [_vi("y", F, _dims(3)), _vi("state", F, _dims(4))], opset=27)


def _causal_conv(weight):
    node = helper.make_node("CausalConvWithState", ["x", "w"], ["y", "s"], name="conv")
    return _model([node], [_vi("x", F, [1, 4, 8]), _vi("w", F, weight)], [_vi("y", F, _dims(3)), _vi("s", F, _dims(3))],
                  opset=27)


def _loop(body_op):
    """x0 carried through a body that gives back `body_op`(x, 1): Add keeps
    the float, GreaterOrEqual makes it bool."""
    body = helper.make_graph(
        [helper.make_node(body_op, ["x", "one"], ["x2"]), helper.make_node("Identity", ["c"], ["c2"])], "body",
        [_vi("i", I64, []), _vi("c", B, []), _vi("x", F, [2])],
        [_vi("c2", B, []), helper.make_empty_tensor_value_info("x2")],
        [numpy_helper.from_array(np.ones(2, np.float32), "one")])
    node = helper.make_node("Loop", ["n", "", "x0"], ["xf"], name="loop", body=body)
    return _model([node], [_vi("x0", F, [2])], [_vi("xf", B if body_op == "GreaterOrEqual" else F, [2])],
                  [numpy_helper.from_array(np.array(3, np.int64), "n")], opset=17)


# name -> (model, our code); onnx and onnxruntime's load refuse each
REFUSED_AT_LOAD = {
    "string_normalizer_scalar": (_string_normalizer([]), "shape.rank-mismatch"),
    "string_normalizer_rank_3": (_string_normalizer([1, 2, 3]), "shape.rank-mismatch"),
    "string_normalizer_two_rows": (_string_normalizer([2, 3]), "shape.dim-mismatch"),
    "tensor_scatter_update_rank_3": (_tensor_scatter([2, 1, 5]), "shape.rank-mismatch"),
    "resize_sizes_rank_2": (_resize_sizes([1, 4]), "shape.rank-mismatch"),
    "resize_sizes_scalar": (_resize_sizes([]), "shape.rank-mismatch"),
    "resize_axes_past_the_rank": (_resize_sizes([1], axes=[99]), "attr.axis-out-of-range"),
    "resize_sizes_empty": (_resize_sizes([0]), "node.inputs-exclusive"),
    "rotary_3d_without_num_heads": (_rotary([1, 3, 8]), "attr.required-missing"),
    "linear_attention_beta_rank_4": (_linear_attention(beta=(1, 3, 2, 1)), "shape.rank-mismatch"),
    "linear_attention_no_query_heads": (_linear_attention(q_num_heads=0), "attr.value-out-of-range"),
    "causal_conv_weight_rank_2": (_causal_conv([4, 3]), "shape.rank-mismatch"),
    "loop_carried_float_given_back_as_bool": (_loop("GreaterOrEqual"), "node.type-mismatch"),
}
# name -> (model, our code, the feeds); onnx refuses, onnxruntime loads it and fails to run it
REFUSED_AT_RUN = {
    "attention_past_value_head_size": (_attention(past_value=(2, 3, 12, 1000)), "shape.dim-mismatch"),
    "attention_past_key_head_size": (_attention(past_key=(2, 3, 12, 7)), "shape.dim-mismatch"),
    "attention_past_key_batch": (_attention(past_key=(1, 3, 12, 8)), "shape.dim-mismatch"),
    "attention_past_value_heads": (_attention(past_value=(2, 1, 12, 10)), "shape.dim-mismatch"),
    "attention_3d_past_key_heads": (_attention(past_key=(2, 4, 12, 8), q=(2, 4, 24), k=(2, 6, 24), v=(2, 6, 30),
                                               q_num_heads=3, kv_num_heads=3), "shape.dim-mismatch"),
}
ACCEPTED = {
    "string_normalizer_one_row": _string_normalizer([1, 3]),
    "string_normalizer_1d": _string_normalizer([3]),
    "tensor_scatter": _tensor_scatter([2, 3, 1, 5]),
    "resize_sizes_1d": _resize_sizes([4]),
    # A constant sizes of another rank: both oracles read its numbers.
    "resize_sizes_constant_2x2": _resize_sizes([2, 2], const=True),
    "resize_axes_inside_the_rank": _resize_sizes([2], axes=[-2, 3]),
    "rotary_3d_with_num_heads": _rotary([1, 3, 8], num_heads=1),
    "rotary_4d": _rotary([1, 1, 3, 8]),
    "linear_attention": _linear_attention(),
    "causal_conv": _causal_conv([4, 1, 3]),
    "loop_carried_float": _loop("Add"),
    "attention_with_past": _attention(),
    "attention_3d_with_past": _attention(q=(2, 4, 24), k=(2, 6, 24), v=(2, 6, 30), q_num_heads=3, kv_num_heads=3),
}


@pytest.mark.parametrize("name", sorted(REFUSED_AT_LOAD))
def test_refused_by_both_oracles_and_by_us(name, tmp_path):
    model, code = REFUSED_AT_LOAD[name]
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    assert [d.code for d in our_errors(model, tmp_path)] == [code]


def _feeds(model) -> dict:
    return {vi.name: np.ones([d.dim_value for d in vi.type.tensor_type.shape.dim], np.float32)
            for vi in model.graph.input}


@pytest.mark.parametrize("name", sorted(REFUSED_AT_RUN))
def test_refused_by_onnx_failing_in_onnxruntime_and_ours(name, tmp_path):
    model, code = REFUSED_AT_RUN[name]
    assert not onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, _feeds(model))
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code]
    assert found[0].path == 'graph/node[0] Attention "att"'


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_valid_forms_are_clean(name, tmp_path):
    model = ACCEPTED[name]
    assert onnx_accepts(model)
    assert onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_the_attention_with_past_runs():
    """The valid neighbour of REFUSED_AT_RUN runs, so the failures there are the dims'."""
    model = ACCEPTED["attention_with_past"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    shapes = [r.shape for r in session.run(None, _feeds(model))]
    assert shapes == [(2, 3, 4, 10), (2, 3, 18, 8), (2, 3, 18, 10)]


def test_past_lengths_of_keys_and_values_differ_fails_to_run_and_is_ours(tmp_path):
    """onnx accepts it (it reads each cache on its own); onnxruntime's run
    refuses the two past lengths."""
    model = _attention(past_value=(2, 3, 11, 10))
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, _feeds(model))
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == ["shape.dim-mismatch"]
    assert "12 and 11 past positions" in found[0].message


def test_messages_name_the_input_and_what_is_expected(tmp_path):
    (found,) = our_errors(REFUSED_AT_RUN["attention_past_value_head_size"][0], tmp_path)
    assert "input 5 'past_v' [2, 3, 12, 1000]" in found.message and "head size of 10" in found.message
    (found,) = our_errors(REFUSED_AT_LOAD["loop_carried_float_given_back_as_bool"][0], tmp_path)
    assert "input 2 'x0' is float" in found.message and "as bool" in found.message
    (found,) = our_errors(REFUSED_AT_LOAD["string_normalizer_two_rows"][0], tmp_path)
    assert "[C] or [1, C]" in found.message


def test_a_symbolic_first_row_count_is_not_ours_to_refuse(tmp_path):
    """onnx wants the number 1 as a [1, C] input's first dim; a symbol may
    be 1 at run, so it contradicts nothing."""
    model = _string_normalizer(["b", 3])
    assert not onnx_accepts(model)
    assert our_errors(model, tmp_path) == []
