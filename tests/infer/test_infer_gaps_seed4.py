"""Shape and type facts onnx's inference and onnxruntime refuse and we called
clean, found with tools/check_differential.py (seeds 4, 5, 6); inference
now reports them (so the app and `onnxstudio check` do):

- Attention: Q, K, V of rank 3 or 4; a 3-D query needs q_num_heads and
  kv_num_heads (positive when V is 3-D too); from opset 25 a 4-D query takes
  neither; past_key/past_value are 4-D when the present outputs are given;
- FlexAttention (ai.onnx.preview): Q, K, V of rank 4;
- ImageDecoder's input 1-D; TfIdfVectorizer's rank 1 or 2; Expand's shape 1-D;
- GridSample: X and the grid of one rank, the grid's last dim the number of
  spatial dims;
- OneHot's depth one number (rank <= 1, at most one element);
- Col2Im: input rank 3, image_shape and block_shape 1-D, and the spatial
  count they, dilations, strides and pads give agreeing;
- BitCast: input and `to` equally wide;
- ConcatFromSequence's axis within the tensors' rank (one more with new_axis);
- Scan's scan_input_axes / scan_output_axes within their tensors' ranks;
- Slice's starts, ends, axes and steps equally long;
and from seeds 7-9: Where's three inputs broadcast together (a third input
no longer hides a conflict of the first two); RMSNormalization's axis; the
loss operators' targets one rank below the scores and a 1-D weight; DFT's
axis (not the last, complex, one); Resize's scales or sizes one per resized
axis; CausalConvWithState's 1-D bias; SplitToSequence's axis;
FlexAttention's keys and values of one sequence length.

Each refused case is proved first: by onnxruntime's load (which runs onnx's
inference; a refusal there is the same on every machine, no kernel runs),
by onnx full_check where onnxruntime does not know the operator, or, where
both load it, by onnxruntime failing to run it. Valid neighbours are
accepted by the oracles and clean for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F, I64, U8 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.UINT8


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _dims(n, prefix="d"):
    return [f"{prefix}{i}" for i in range(n)]


def _model(nodes, inputs, outputs, inits=(), opset=23, preview=False):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    imports = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("ai.onnx.preview", 1)] if preview else [])
    return helper.make_model(g, ir_version=10, opset_imports=imports)


def _one(op, inputs, out_rank, opset=23, inits=(), out_elem=F, **attrs):
    names = [i.name for i in inputs] + [t.name for t in inits]
    node = helper.make_node(op, names, ["y"], name="n", **attrs)
    return _model([node], inputs, [_vi("y", out_elem, _dims(out_rank))], inits, opset)


def _attention(q, k, v, opset=23, past=None, **attrs):
    inputs = [_vi("q", F, q), _vi("k", F, k), _vi("v", F, v)]
    names, outs = ["q", "k", "v"], ["y"]
    if past is not None:
        inputs += [_vi("past_k", F, past[0]), _vi("past_v", F, past[1])]
        names += ["", "past_k", "past_v"]
        outs += ["present_k", "present_v"]
    node = helper.make_node("Attention", names, outs, name="att", **attrs)
    outputs = [_vi("y", F, _dims(len(q)))] + [_vi(o, F, _dims(4, o)) for o in outs[1:]]
    return _model([node], inputs, outputs, opset=opset)


def _flex(k):
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex", domain="ai.onnx.preview")
    return _model([node], [_vi("q", F, [1, 2, 3, 4]), _vi("k", F, k), _vi("v", F, [1, 2, 5, 4])],
                  [_vi("y", F, _dims(4))], preview=True)


_TFIDF = dict(mode="TF", min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0],
              ngram_indexes=[0], pool_int64s=[2])


def _tfidf(shape):
    return _one("TfIdfVectorizer", [_vi("x", I64, shape)], max(1, min(len(shape), 2)), opset=20, **_TFIDF)


def _grid_sample(x, grid):
    return _one("GridSample", [_vi("x", F, x), _vi("grid", F, grid)], len(x), opset=20)


def _one_hot(depth_shape, opset=11):
    return _one("OneHot", [_vi("i", I64, [3]), _vi("depth", I64, depth_shape), _vi("values", F, [2])], 2, opset)


def _col2im(image=(4, 4), block=(2, 2), x=(1, 4, 9), as_inputs=False, **attrs):
    if as_inputs:   # shapes only: image and block lengths from their declared dims
        inputs = [_vi("x", F, list(x)), _vi("image", I64, list(image)), _vi("block", I64, list(block))]
        return _one("Col2Im", inputs, 4, opset=18, **attrs)
    inits = [numpy_helper.from_array(np.array(image, np.int64), "image"),
             numpy_helper.from_array(np.array(block, np.int64), "block")]
    return _one("Col2Im", [_vi("x", F, list(x))], 2 + len(image), opset=18, inits=inits, **attrs)


def _bit_cast(elem, to):
    return _one("BitCast", [_vi("x", elem, [2, 3])], 2, opset=26, out_elem=to, to=to)


def _concat_from_sequence(axis, new_axis=0):
    nodes = [helper.make_node("SequenceConstruct", ["a", "b"], ["s"], name="seq"),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], name="cat", axis=axis, new_axis=new_axis)]
    return _model(nodes, [_vi("a", F, [2, 2, 2]), _vi("b", F, [2, 2, 2])], [_vi("y", F, _dims(3 + new_axis))],
                  opset=17)


def _scan(out_shape=(3, 2), **axes):
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "xt"], ["s2"]), helper.make_node("Identity", ["s2"], ["yt"])], "body",
        [_vi("s", F, [2]), _vi("xt", F, [2])], [_vi("s2", F, [2]), _vi("yt", F, [2])])
    node = helper.make_node("Scan", ["s0", "x"], ["sf", "y"], name="scan", body=body, num_scan_inputs=1)
    node.attribute.extend(helper.make_attribute(k, v, attr_type=AttributeProto.INTS) for k, v in axes.items())
    return _model([node], [_vi("s0", F, [2]), _vi("x", F, [3, 2])], [_vi("sf", F, [2]), _vi("y", F, list(out_shape))],
                  opset=16)


def _slice(starts, ends, axes=None, as_inputs=False):
    inputs, inits, names = [_vi("x", F, [4, 5])], [], ["x"]
    for name, values in (("starts", starts), ("ends", ends), ("axes", axes)):
        if values is None:
            continue
        names.append(name)
        if as_inputs:
            inputs.append(_vi(name, I64, [len(values)]))
        else:
            inits.append(numpy_helper.from_array(np.array(values, np.int64), name))
    node = helper.make_node("Slice", names, ["y"], name="slice")
    return _model([node], inputs, [_vi("y", F, _dims(2))], inits, opset=13)


def _expand(shape_shape):
    return _one("Expand", [_vi("x", F, [3, 1]), _vi("shape", I64, shape_shape)], 2)


def _image_decoder(shape):
    return _one("ImageDecoder", [_vi("data", U8, shape)], 3, opset=20, out_elem=U8)


def _where(cond_shape):
    inputs = [_vi("c", TensorProto.BOOL, cond_shape), _vi("a", F, [2, 2]), _vi("b", F, [2, 2])]
    return _one("Where", inputs, 2)


def _rms(axis):
    return _one("RMSNormalization", [_vi("x", F, [2, 3, 4, 5]), _vi("scale", F, [5])], 4, axis=axis)


def _loss(op, scores, targets, weight=None):
    inputs = [_vi("scores", F, scores), _vi("targets", I64, targets)]
    if weight is not None:
        inputs.append(_vi("weight", F, weight))
    return _one(op, inputs, 0, opset=13)


def _dft(axis, opset=17):
    if opset < 20:
        return _one("DFT", [_vi("x", F, [2, 3, 4, 1])], 4, opset=opset, axis=axis)
    inits = [numpy_helper.from_array(np.array(4, np.int64), "length"), numpy_helper.from_array(np.array(axis, np.int64),
                                                                                                "axis")]
    return _one("DFT", [_vi("x", F, [2, 3, 4, 1])], 4, opset=opset, inits=inits)


def _resize(sizes_length, **attrs):
    node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], name="resize", mode="nearest", **attrs)
    return _model([node], [_vi("x", F, [1, 1, 4, 4]), _vi("sizes", I64, [sizes_length])], [_vi("y", F, _dims(4))],
                  opset=19)


def _causal_conv(bias_shape):
    node = helper.make_node("CausalConvWithState", ["x", "w", "b"], ["y", "s"], name="conv")
    return _model([node], [_vi("x", F, [1, 4, 8]), _vi("w", F, [4, 1, 3]), _vi("b", F, bias_shape)],
                  [_vi("y", F, [1, 4, 8]), _vi("s", F, [1, 4, 2])], opset=27)


def _split_to_sequence(axis):
    nodes = [helper.make_node("SplitToSequence", ["x"], ["s"], name="split", axis=axis),
             helper.make_node("SequenceAt", ["s", "i"], ["y"], name="at")]
    inputs = [_vi("x", F, [2, 3, 4]), _vi("i", I64, [])]
    return _model(nodes, inputs, [_vi("y", F, _dims(3))], opset=17)


def _flex_lengths(k_length, v_length):
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex", domain="ai.onnx.preview")
    inputs = [_vi("q", F, [1, 2, 3, 4]), _vi("k", F, [1, 2, k_length, 4]), _vi("v", F, [1, 2, v_length, 4])]
    return _model([node], inputs, [_vi("y", F, _dims(4))], preview=True)


Q3, Q4, K4 = [1, 3, 8], [1, 2, 3, 4], [1, 2, 5, 4]
# name -> (model, our code); onnxruntime refuses each at load
REFUSED_AT_LOAD = {
    "attention_query_rank_5": (_attention([1, 1, 2, 3, 4], K4, K4), "shape.rank-mismatch"),
    "attention_key_rank_5": (_attention(Q4, [1, 1, 2, 5, 4], K4), "shape.rank-mismatch"),
    "attention_value_rank_2": (_attention(Q4, K4, [5, 4]), "shape.rank-mismatch"),
    "attention_3d_without_kv_num_heads": (_attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=2),
                                          "attr.required-missing"),
    "attention_3d_without_q_num_heads": (_attention(Q3, [1, 5, 8], [1, 5, 8], kv_num_heads=2),
                                         "attr.required-missing"),
    "attention_3d_zero_heads": (_attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=0, kv_num_heads=2),
                                "attr.value-out-of-range"),
    "attention_3d_negative_kv_heads": (_attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=2, kv_num_heads=-1),
                                       "attr.value-out-of-range"),
    "attention_25_4d_with_heads": (_attention(Q4, K4, K4, opset=25, q_num_heads=2), "shape.rank-mismatch"),
    "attention_past_key_rank_5": (_attention(Q4, K4, K4, past=([1, 2, 1, 6, 4], [1, 2, 6, 4])),
                                  "shape.rank-mismatch"),
    "attention_past_value_rank_3": (_attention(Q4, K4, K4, past=([1, 2, 6, 4], [2, 6, 4])), "shape.rank-mismatch"),
    "image_decoder_2d": (_image_decoder([1, 10]), "shape.rank-mismatch"),
    "image_decoder_scalar": (_image_decoder([]), "shape.rank-mismatch"),
    "tfidf_scalar": (_tfidf([]), "shape.rank-mismatch"),
    "tfidf_rank_3": (_tfidf([1, 2, 5]), "shape.rank-mismatch"),
    "expand_scalar_shape": (_expand([]), "shape.rank-mismatch"),
    "expand_matrix_shape": (_expand([1, 2]), "shape.rank-mismatch"),
    "grid_sample_x_rank_above_grid": (_grid_sample([1, 1, 1, 4, 4], [1, 2, 2, 2]), "shape.rank-mismatch"),
    "grid_sample_grid_rank_above_x": (_grid_sample([1, 1, 4, 4], [1, 2, 2, 2, 3]), "shape.rank-mismatch"),
    "grid_sample_grid_last_dim": (_grid_sample([1, 1, 4, 4], [1, 2, 2, 3]), "shape.dim-mismatch"),
    "one_hot_depth_two_numbers": (_one_hot([2]), "shape.dim-mismatch"),
    "one_hot_depth_two_numbers_opset_9": (_one_hot([2], opset=9), "shape.dim-mismatch"),
    "one_hot_depth_matrix": (_one_hot([1, 1]), "shape.rank-mismatch"),
    "col2im_input_rank_4": (_col2im(x=(1, 4, 9, 1)), "shape.rank-mismatch"),
    "col2im_image_shape_matrix": (_col2im(image=(2, 1), block=(2,), as_inputs=True), "shape.rank-mismatch"),
    "col2im_one_dilation_for_two_dims": (_col2im(dilations=[1]), "attr.length-mismatch"),
    "col2im_four_strides_for_two_dims": (_col2im(strides=[1, 1, 1, 1]), "attr.length-mismatch"),
    "col2im_two_pads_for_two_dims": (_col2im(pads=[0, 0]), "attr.length-mismatch"),
    "col2im_block_longer_than_image": (_col2im(block=(2, 2, 1)), "attr.length-mismatch"),
    "col2im_lists_disagree_without_known_dims": (_col2im(image=("n",), block=("n",), as_inputs=True,
                                                         dilations=[1], pads=[0, 0, 0, 0]), "attr.length-mismatch"),
    "bit_cast_8_bits_to_64": (_bit_cast(TensorProto.FLOAT8E5M2FNUZ, TensorProto.DOUBLE), "node.input-type"),
    "bit_cast_32_bits_to_16": (_bit_cast(F, TensorProto.INT16), "node.input-type"),
    "scan_input_axis_past_rank": (_scan(scan_input_axes=[5]), "attr.axis-out-of-range"),
    "scan_output_axis_past_rank": (_scan(scan_output_axes=[5]), "attr.axis-out-of-range"),
    "slice_ends_longer": (_slice([0], [2, 3]), "shape.dim-mismatch"),
    "slice_starts_longer": (_slice([0, 1], [2]), "shape.dim-mismatch"),
    "slice_axes_longer": (_slice([0], [2], [0, 1]), "shape.dim-mismatch"),
    "where_zero_against_two_beside_a_third": (_where([2, 0]), "shape.broadcast-conflict"),
    "rms_normalization_axis_below_rank": (_rms(-5), "attr.axis-out-of-range"),
    "nll_targets_two_ranks_below": (_loss("NegativeLogLikelihoodLoss", [2, 3, 4, 5], [2, 4]), "shape.rank-mismatch"),
    "nll_targets_of_the_scores_rank": (_loss("NegativeLogLikelihoodLoss", [2, 3], [2, 1]), "shape.rank-mismatch"),
    "nll_weight_2d": (_loss("NegativeLogLikelihoodLoss", [2, 3], [2], [3, 1]), "shape.rank-mismatch"),
    "sce_targets_two_ranks_below": (_loss("SoftmaxCrossEntropyLoss", [2, 3, 4, 5], [2, 4]), "shape.rank-mismatch"),
    "dft_axis_last": (_dft(3), "attr.axis-out-of-range"),
    "dft_axis_minus_one": (_dft(-1), "attr.axis-out-of-range"),
    "dft_axis_below_rank": (_dft(-5), "attr.axis-out-of-range"),
    "dft_20_axis_input_minus_one": (_dft(-1, opset=20), "attr.axis-out-of-range"),
    "resize_sizes_longer_than_rank": (_resize(5), "shape.dim-mismatch"),
    "resize_sizes_longer_than_axes": (_resize(1000, axes=[2, 3]), "shape.dim-mismatch"),
    "causal_conv_bias_3d": (_causal_conv([1, 4, 1]), "shape.rank-mismatch"),
    "split_to_sequence_axis_past_rank": (_split_to_sequence(3), "attr.axis-out-of-range"),
    "split_to_sequence_axis_below_rank": (_split_to_sequence(-100), "attr.axis-out-of-range"),
}
# Loaded by onnxruntime, refused by onnx full_check (name -> (model, code, feeds: onnxruntime's run
# fails on them; None where onnxruntime does not know the operator)).
REFUSED_BY_ONNX = {
    "flex_attention_key_rank_3": (_flex([1, 2, 5]), "shape.rank-mismatch", None),
    "flex_attention_key_rank_5": (_flex([1, 2, 5, 4, 1]), "shape.rank-mismatch", None),
    "concat_from_sequence_axis_past_rank": (_concat_from_sequence(3), "attr.axis-out-of-range", "seq"),
    "concat_from_sequence_axis_below_rank": (_concat_from_sequence(-4), "attr.axis-out-of-range", "seq"),
    "concat_from_sequence_new_axis_past_rank": (_concat_from_sequence(4, new_axis=1), "attr.axis-out-of-range",
                                                "seq"),
    "concat_from_sequence_new_axis_below_rank": (_concat_from_sequence(-5, new_axis=1), "attr.axis-out-of-range",
                                                 "seq"),
    "flex_attention_key_and_value_lengths": (_flex_lengths(1000, 5), "shape.dim-mismatch", None),
}
# Accepted by onnx and loaded by onnxruntime, whose run fails (name -> (model, code, feeds)).
REFUSED_AT_RUN = {
    "slice_ends_input_longer": (_slice([0], [2, 3], as_inputs=True), "shape.dim-mismatch",
                                {"starts": [0], "ends": [2, 3]}),
    "slice_axes_input_longer": (_slice([0], [2], [0, 1], as_inputs=True), "shape.dim-mismatch",
                                {"starts": [0], "ends": [2], "axes": [0, 1]}),
}
ACCEPTED = {
    "attention_4d": _attention(Q4, K4, K4),
    "attention_3d": _attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=2, kv_num_heads=2),
    "attention_3d_query_4d_value_zero_heads": _attention(Q3, K4, K4, q_num_heads=0, kv_num_heads=2),
    "attention_23_4d_with_heads": _attention(Q4, K4, K4, q_num_heads=-1),
    "attention_25_4d": _attention(Q4, K4, K4, opset=25),
    "attention_25_3d": _attention(Q3, [1, 5, 8], [1, 5, 8], opset=25, q_num_heads=2, kv_num_heads=2),
    "attention_past": _attention(Q4, K4, K4, past=([1, 2, 6, 4], [1, 2, 6, 4])),
    "flex_attention": _flex([1, 2, 5, 4]),
    "image_decoder": _image_decoder([10]),
    "tfidf_1d": _tfidf([5]),
    "tfidf_2d": _tfidf([2, 5]),
    "expand": _expand([2]),
    "grid_sample_2d": _grid_sample([1, 1, 4, 4], [1, 2, 2, 2]),
    "grid_sample_3d": _grid_sample([1, 1, 1, 4, 4], [1, 2, 2, 2, 3]),
    "grid_sample_symbolic_last": _grid_sample([1, 1, 4, 4], [1, 2, 2, "r"]),
    "one_hot_scalar_depth": _one_hot([]),
    "one_hot_one_depth": _one_hot([1]),
    "col2im": _col2im(),
    "col2im_all_lists": _col2im(dilations=[1, 1], strides=[1, 1], pads=[0, 0, 0, 0]),
    "col2im_3d": _col2im(image=(4, 4, 1), block=(2, 2, 1)),
    "bit_cast_64_bits": _bit_cast(I64, TensorProto.DOUBLE),
    "bit_cast_32_bits": _bit_cast(F, TensorProto.INT32),
    "concat_from_sequence": _concat_from_sequence(2),
    "concat_from_sequence_negative": _concat_from_sequence(-3),
    "concat_from_sequence_new_axis_last": _concat_from_sequence(3, new_axis=1),
    "concat_from_sequence_new_axis_first": _concat_from_sequence(-4, new_axis=1),
    "scan_axes": _scan(scan_input_axes=[-2], scan_output_axes=[-2]),
    "scan_output_axis_last": _scan(out_shape=(2, 3), scan_output_axes=[1]),
    "slice": _slice([0], [2]),
    "slice_two_axes": _slice([0, 1], [2, 3], [0, 1]),
    "where_broadcasting": _where([2, 1]),
    "rms_normalization_first_axis": _rms(-4),
    "rms_normalization_last_axis": _rms(3),
    "nll_2d": _loss("NegativeLogLikelihoodLoss", [2, 3], [2], [3]),
    "nll_4d": _loss("NegativeLogLikelihoodLoss", [2, 3, 4, 5], [2, 4, 5]),
    "sce_3d": _loss("SoftmaxCrossEntropyLoss", [2, 3, 4], [2, 4]),
    "dft_axis_first": _dft(0),
    "dft_axis_minus_two": _dft(-2),
    "dft_axis_below_the_parts": _dft(2),
    "dft_20_axis_input": _dft(-2, opset=20),
    "resize_sizes_per_axis": _resize(4),
    "resize_sizes_per_listed_axis": _resize(2, axes=[2, 3]),
    "causal_conv_bias": _causal_conv([4]),
    "split_to_sequence_last_axis": _split_to_sequence(-1),
    "flex_attention_lengths": _flex_lengths(5, 5),
}
# onnx accepts these but onnxruntime has no kernel for them (not a refusal of the model).
_NO_KERNEL = {"image_decoder", "flex_attention", "flex_attention_lengths"}


@pytest.mark.parametrize("name", sorted(REFUSED_AT_LOAD))
def test_refused_by_onnxruntime_and_by_us(name, tmp_path):
    model, code = REFUSED_AT_LOAD[name]
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found
    assert found[0].path.startswith("graph/node[0]") or found[0].path.startswith("graph/node[1]"), found


def test_rms_normalization_axis_past_rank_fails_to_run_and_is_ours(tmp_path):
    """Its page: axis in [-r, r). onnx and onnxruntime's load let axis = r
    pass; onnxruntime's run fails."""
    model = _rms(4)
    assert onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, {"x": np.ones((2, 3, 4, 5), np.float32), "scale": np.ones(5, np.float32)})
    assert [d.code for d in our_errors(model, tmp_path)] == ["attr.axis-out-of-range"]


def test_softmax_cross_entropy_ranks_are_refused_by_onnxruntime_though_onnx_accepts_them():
    """onnx's checker passes SoftmaxCrossEntropyLoss's ranks to its function
    body without judging them; onnxruntime expands the body and refuses."""
    model = REFUSED_AT_LOAD["sce_targets_two_ranks_below"][0]
    assert onnx_accepts(model) and not onnxruntime_loads(model)


@pytest.mark.parametrize("name", sorted(REFUSED_BY_ONNX))
def test_refused_by_onnx_and_by_us(name, tmp_path):
    model, code, feeds = REFUSED_BY_ONNX[name]
    assert not onnx_accepts(model)
    if feeds == "seq":
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        ones = np.ones((2, 2, 2), np.float32)
        with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
            session.run(None, {"a": ones, "b": ones})
    assert [d.code for d in our_errors(model, tmp_path)] == [code]


@pytest.mark.parametrize("name", sorted(REFUSED_AT_RUN))
def test_refused_by_onnxruntime_at_run_and_by_us(name, tmp_path):
    model, code, feeds = REFUSED_AT_RUN[name]
    assert onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    arrays = {k: np.array(v, np.int64) for k, v in feeds.items()}
    arrays["x"] = np.ones((4, 5), np.float32)
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, arrays)
    assert [d.code for d in our_errors(model, tmp_path)] == [code]


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_valid_forms_are_clean(name, tmp_path):
    model = ACCEPTED[name]
    assert onnx_accepts(model)
    if name not in _NO_KERNEL:
        assert onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_messages_name_the_input_and_say_what_is_expected(tmp_path):
    found = our_errors(_one_hot([2]), tmp_path)
    assert "input 1 'depth'" in found[0].message and "one number" in found[0].message
    found = our_errors(_attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=2), tmp_path)
    assert "give kv_num_heads" in found[0].message
    found = our_errors(_slice([0], [2, 3]), tmp_path)
    assert "input 1 'starts' has 1 entry but input 2 'ends' has 2 entries" in found[0].message


def test_heads_given_by_reference_are_not_called_missing(tmp_path):
    """kv_num_heads given as a reference outside a function is the checker's
    attr.ref-outside-function (onnx reads the value beside it), not a missing
    attribute: one finding, not two."""
    model = _attention(Q3, [1, 5, 8], [1, 5, 8], q_num_heads=2, kv_num_heads=2)
    ref = next(a for a in model.graph.node[0].attribute if a.name == "kv_num_heads")
    ref.ref_attr_name = "nope"
    assert [d.code for d in our_errors(model, tmp_path)] == ["attr.ref-outside-function"]


def _attention_past_key_alone():
    inputs = [_vi("q", F, Q4), _vi("k", F, K4), _vi("v", F, K4), _vi("past_k", F, [1, 2, 6, 4])]
    node = helper.make_node("Attention", ["q", "k", "v", "", "past_k"], ["y", "present_k", "present_v"], name="att")
    outputs = [_vi("y", F, _dims(4))] + [_vi(o, F, _dims(4, o)) for o in ("present_k", "present_v")]
    return _model([node], inputs, outputs)


def test_past_key_without_past_value_fails_to_run_and_is_ours(tmp_path):
    """Attention's page: past_key 'must be used together with past_value';
    onnxruntime loads the model and fails to run it."""
    model = _attention_past_key_alone()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {"q": np.ones(Q4, np.float32), "k": np.ones(K4, np.float32), "v": np.ones(K4, np.float32),
             "past_k": np.ones([1, 2, 6, 4], np.float32)}
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, feeds)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == ["node.required-input-empty"], found
    assert found[0].message.startswith("past_key (input 4 'past_k') is given but past_value (input 5) is not")


def test_a_loss_reduction_of_damaged_bytes_still_reduces(tmp_path):
    """A reduction that is not UTF-8 (a damaged file) is read as onnx and
    onnxruntime read it, as a reduction: the output is a scalar, so a
    declared per-element output contradicts it (onnx refuses the model;
    onnxruntime runs it and returns a scalar). Before, the rule failed on
    the bytes and the declaration went unjudged."""
    node = helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["loss"], name="nll")
    node.attribute.append(helper.make_attribute("reduction", b"\xff\xfe"))
    model = _model([node], [_vi("x", F, [3, 5, 6]), _vi("t", I64, [3, 6])], [_vi("loss", F, [3, 6])], opset=13)
    assert not onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = session.run(None, {"x": np.ones((3, 5, 6), np.float32), "t": np.zeros((3, 6), np.int64)})[0]
    assert got.shape == ()
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("graph.declared-type-contradicts", 'graph/output[0] "loss"')]
    model.graph.node[0].attribute[0].s = b"none"
    assert onnx_accepts(model) and our_errors(model, tmp_path) == []


def _loop(cond_shape):
    steps = [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
             helper.make_node("Add", ["acc_in", "one"], ["acc_out"])]
    body = helper.make_graph(
        steps, "body", [_vi("i", I64, []), _vi("cond_in", TensorProto.BOOL, []), _vi("acc_in", F, [2])],
        [_vi("cond_out", TensorProto.BOOL, []), _vi("acc_out", F, [2])])
    node = helper.make_node("Loop", ["trip", "cond", "acc"], ["acc_final"], name="loop", body=body)
    inits = [numpy_helper.from_array(np.array(3, np.int64), "trip"),
             numpy_helper.from_array(np.ones(2, np.float32), "one")]
    inputs = [_vi("cond", TensorProto.BOOL, cond_shape), _vi("acc", F, [2])]
    return _model([node], inputs, [_vi("acc_final", F, [2])], inits, opset=17)


def test_a_loop_body_is_given_the_node_s_condition_as_it_is(tmp_path):
    """onnx's inference hands the body the node's condition type: a [1, 1]
    condition against a body declaring a scalar is refused by onnxruntime
    (and onnx); before, the body always got a scalar and we called it clean."""
    model = _loop([1, 1])
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert found and {d.code for d in found} == {"graph.declared-type-contradicts"}
    assert found[0].path == 'graph/node[0] Loop "loop"/attribute "body"/input[1] "cond_in"', found
    fine = _loop([])
    assert onnxruntime_loads(fine) and onnx_accepts(fine)
    assert our_errors(fine, tmp_path) == []


def test_a_reference_outside_functions_is_read_as_the_value_beside_it(tmp_path):
    """onnx and onnxruntime read keepdims = 0 from an attribute that also
    names a caller's attribute (the checker's attr.ref-outside-function);
    inference reads it so too, instead of taking the default (1), which gave
    the output a rank onnxruntime does not and a declaration contradiction
    on top (a Loop's condition, in check_differential's seed 8)."""
    node = helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0)
    node.attribute[0].ref_attr_name = "nope"
    model = _model([node], [_vi("x", F, [2, 3])], [_vi("s", F, [])], opset=13)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    assert session.run(None, {"x": np.ones((2, 3), np.float32)})[0].shape == ()
    assert [d.code for d in our_errors(model, tmp_path)] == ["attr.ref-outside-function"]


# --- seeds 10-12: SwiGLU, TensorScatter, Reshape, Tile ----------------------------------------------

def _swiglu(b_shape):
    return _one("SwiGLU", [_vi("a", F, [2, 4]), _vi("b", F, b_shape)], 2, opset=28)


def _tensor_scatter(axis, update=(2, 3, 1, 4)):
    inputs = [_vi("cache", F, [2, 3, 8, 4]), _vi("update", F, list(update))]
    node = helper.make_node("TensorScatter", ["cache", "update"], ["y"], name="scatter", axis=axis)
    return _model([node], inputs, [_vi("y", F, [2, 3, 8, 4])], opset=24)


def _reshape(shape_shape):
    return _one("Reshape", [_vi("x", F, [2, 3]), _vi("shape", I64, shape_shape)], 2, opset=14)


def _tile(repeats):
    inits = [numpy_helper.from_array(np.array(repeats, np.int64), "repeats")]
    return _one("Tile", [_vi("x", F, [2, 3])], 2, opset=13, inits=inits)


SEEDS_10_12_REFUSED_AT_LOAD = {
    "swiglu_value_of_lower_rank": (_swiglu([4]), "shape.rank-mismatch"),
    "swiglu_value_of_other_width": (_swiglu([2, 3]), "shape.dim-mismatch"),
    "swiglu_value_broadcasting": (_swiglu([1, 4]), "shape.dim-mismatch"),
    "tensor_scatter_batch_axis": (_tensor_scatter(0), "attr.axis-out-of-range"),
    "tensor_scatter_batch_axis_negative": (_tensor_scatter(-4), "attr.axis-out-of-range"),
    "tensor_scatter_axis_past_rank": (_tensor_scatter(4), "attr.axis-out-of-range"),
    "tensor_scatter_update_off_the_axis": (_tensor_scatter(1), "shape.dim-mismatch"),
    "reshape_shape_matrix": (_reshape([1, 2]), "shape.rank-mismatch"),
    "reshape_shape_scalar": (_reshape([]), "shape.rank-mismatch"),
    "tile_three_repeats_for_rank_two": (_tile([1, 2, 3]), "shape.dim-mismatch"),
}
SEEDS_10_12_ACCEPTED = {
    "swiglu": _swiglu([2, 4]),
    "tensor_scatter": _tensor_scatter(-2),
    "tensor_scatter_axis_one": _tensor_scatter(1, update=(2, 1, 8, 4)),
    "reshape": _reshape([2]),
    "tile": _tile([1, 2]),
}


@pytest.mark.parametrize("name", sorted(SEEDS_10_12_REFUSED_AT_LOAD))
def test_seeds_10_12_refused_by_onnxruntime_and_by_us(name, tmp_path):
    model, code = SEEDS_10_12_REFUSED_AT_LOAD[name]
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found
    assert found[0].path.startswith("graph/node[0]"), found


@pytest.mark.parametrize("name", sorted(SEEDS_10_12_ACCEPTED))
def test_seeds_10_12_valid_forms_are_clean(name, tmp_path):
    model = SEEDS_10_12_ACCEPTED[name]
    assert onnx_accepts(model)
    if name != "swiglu":        # onnxruntime has no Swish kernel for its function body
        assert onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_tile_repeats_of_a_known_length_other_than_the_rank_fail_to_run(tmp_path):
    """Repeats that are no constant: onnx and onnxruntime's load pass them,
    onnxruntime's run fails; their declared length is enough for us."""
    model = _one("Tile", [_vi("x", F, [2, 3]), _vi("repeats", I64, [3])], 2, opset=13)
    assert onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        session.run(None, {"x": np.ones((2, 3), np.float32), "repeats": np.array([1, 2, 3], np.int64)})
    assert [d.code for d in our_errors(model, tmp_path)] == ["shape.dim-mismatch"]


# --- seeds 13-15: LinearAttention's inputs, OneHot's values, TensorScatter's write_indices ---------------

def _linear_attention(update_rule=None, decay=False, beta=False):
    inputs = [_vi("q", F, [1, 3, 8]), _vi("k", F, [1, 3, 8]), _vi("v", F, [1, 3, 8])]
    names = ["q", "k", "v", "", "decay" if decay else "", "beta" if beta else ""]
    inputs += [_vi("decay", F, [1, 3, 8])] if decay else []
    inputs += [_vi("beta", F, [1, 3, 2])] if beta else []
    while not names[-1]:
        names.pop()
    attrs = dict(q_num_heads=2, kv_num_heads=2)
    if update_rule is not None:
        attrs["update_rule"] = update_rule
    node = helper.make_node("LinearAttention", names, ["y", "state"], name="lin", **attrs)
    return _model([node], inputs, [_vi("y", F, [1, 3, 8]), _vi("state", F, [1, 2, 4, 4])], opset=27)


def _one_hot_values(shape):
    return _one("OneHot", [_vi("i", I64, [3]), _vi("depth", I64, []), _vi("values", F, shape)], 2, opset=11)


def _tensor_scatter_positions(shape):
    inputs = [_vi("cache", F, [2, 3, 8, 4]), _vi("update", F, [2, 3, 1, 4]), _vi("positions", I64, shape)]
    node = helper.make_node("TensorScatter", ["cache", "update", "positions"], ["y"], name="scatter")
    return _model([node], inputs, [_vi("y", F, [2, 3, 8, 4])], opset=24)


SEEDS_13_15_REFUSED_AT_LOAD = {
    "linear_attention_default_rule_without_beta": (_linear_attention(decay=True), "node.required-input-empty"),
    "linear_attention_default_rule_without_decay": (_linear_attention(beta=True), "node.required-input-empty"),
    "linear_attention_gated_without_decay": (_linear_attention("gated"), "node.required-input-empty"),
    "linear_attention_delta_without_beta": (_linear_attention("delta"), "node.required-input-empty"),
    "one_hot_values_matrix": (_one_hot_values([2, 1]), "shape.rank-mismatch"),
    "one_hot_values_scalar": (_one_hot_values([]), "shape.rank-mismatch"),
    "tensor_scatter_positions_for_another_batch": (_tensor_scatter_positions([5]), "shape.dim-mismatch"),
    "tensor_scatter_positions_matrix": (_tensor_scatter_positions([2, 1]), "shape.rank-mismatch"),
}
SEEDS_13_15_ACCEPTED = {
    "linear_attention_default_rule": _linear_attention(decay=True, beta=True),
    "linear_attention_linear": _linear_attention("linear"),
    "linear_attention_gated": _linear_attention("gated", decay=True),
    "linear_attention_delta": _linear_attention("delta", beta=True),
    "one_hot_values": _one_hot_values([2]),
    "tensor_scatter_positions": _tensor_scatter_positions([2]),
}


@pytest.mark.parametrize("name", sorted(SEEDS_13_15_REFUSED_AT_LOAD))
def test_seeds_13_15_refused_by_onnxruntime_and_by_us(name, tmp_path):
    model, code = SEEDS_13_15_REFUSED_AT_LOAD[name]
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found
    assert found[0].path.startswith("graph/node[0]"), found


@pytest.mark.parametrize("name", sorted(SEEDS_13_15_ACCEPTED))
def test_seeds_13_15_valid_forms_are_clean(name, tmp_path):
    model = SEEDS_13_15_ACCEPTED[name]
    assert onnx_accepts(model) and onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


# --- seeds 16-18: MaxUnpool, Slice-1, LinearAttention's ranks, FlexAttention's heads -------------------

def _max_unpool(kernel_shape):
    node = helper.make_node("MaxUnpool", ["x", "i"], ["y"], name="unpool", kernel_shape=kernel_shape,
                            strides=[2] * len(kernel_shape))
    return _model([node], [_vi("x", F, [1, 1, 2, 2]), _vi("i", I64, [1, 1, 2, 2])], [_vi("y", F, _dims(4))],
                  opset=11)


def _slice_1(starts, ends):
    node = helper.make_node("Slice", ["x"], ["y"], name="slice", starts=starts, ends=ends)
    return _model([node], [_vi("x", F, [4, 5])], [_vi("y", F, _dims(2))], opset=9)


def _linear_attention_query(shape):
    inputs = [_vi("q", F, shape), _vi("k", F, [1, 3, 8]), _vi("v", F, [1, 3, 8])]
    node = helper.make_node("LinearAttention", ["q", "k", "v"], ["y", "state"], name="lin", q_num_heads=2,
                            kv_num_heads=2, update_rule="linear")
    return _model([node], inputs, [_vi("y", F, [1, 3, 8]), _vi("state", F, [1, 2, 4, 4])], opset=27)


def _flex_heads(v_heads):
    node = helper.make_node("FlexAttention", ["q", "k", "v"], ["y"], name="flex", domain="ai.onnx.preview")
    inputs = [_vi("q", F, [1, 2, 3, 4]), _vi("k", F, [1, 2, 5, 4]), _vi("v", F, [1, v_heads, 5, 4])]
    return _model([node], inputs, [_vi("y", F, _dims(4))], preview=True)


SEEDS_16_18_REFUSED_AT_LOAD = {
    "max_unpool_one_kernel_dim_for_two": (_max_unpool([2]), "attr.length-mismatch"),
    "slice_1_starts_longer": (_slice_1([0, 0], [2]), "attr.length-mismatch"),
    "linear_attention_query_2d": (_linear_attention_query([1, 3]), "shape.rank-mismatch"),
}


@pytest.mark.parametrize("name", sorted(SEEDS_16_18_REFUSED_AT_LOAD))
def test_seeds_16_18_refused_by_onnxruntime_and_by_us(name, tmp_path):
    model, code = SEEDS_16_18_REFUSED_AT_LOAD[name]
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found


def test_seeds_16_18_valid_forms_are_clean(tmp_path):
    for model in (_max_unpool([2, 2]), _slice_1([0, 1], [2, 3]), _linear_attention_query([1, 3, 8])):
        assert onnx_accepts(model) and onnxruntime_loads(model)
        assert our_errors(model, tmp_path) == []
    assert onnx_accepts(_flex_heads(2)) and our_errors(_flex_heads(2), tmp_path) == []


def test_flex_attention_keys_and_values_of_other_head_counts_are_refused_by_onnx_and_us(tmp_path):
    model = _flex_heads(5)
    assert not onnx_accepts(model)
    assert [d.code for d in our_errors(model, tmp_path)] == ["shape.dim-mismatch"]
