"""Edge cases of the tensor, sequence, string and ai.onnx.ml kernels that the
ONNX backend node cases miss. onnxruntime and onnx.reference serve as
oracles only."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core.exec import kernels  # noqa: F401  (registers kernels)
from onnxstudio.core.exec.registry import KernelContext, find_kernel

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def run(op, *args, opset=28, domain="", n_out=1, run_subgraph=None, **attrs):
    k = find_kernel(domain, op, opset)
    assert k is not None, f"no kernel for {op} at {opset}"
    if k.context:
        ctx = KernelContext(opset=opset, num_outputs=n_out, rng=np.random.default_rng(0),
                            run_subgraph=run_subgraph)
        return k.fn(ctx, *args, **attrs)
    return k.fn(*args, **attrs)


def ort_run(op, inputs, n_out, domain="", opset=None, **attrs):
    """The same node through onnxruntime (skipped when it is not installed)."""
    ort = pytest.importorskip("onnxruntime")
    names = [f"i{j}" for j in range(len(inputs))]
    outs = [f"o{j}" for j in range(n_out)]
    node = helper.make_node(op, names, outs, domain=domain, **attrs)
    np_to = helper.np_dtype_to_tensor_dtype
    ins = [helper.make_tensor_value_info(n, np_to(v.dtype), v.shape) for n, v in zip(names, inputs)]
    graph = helper.make_graph([node], "g", ins, [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    imports = [helper.make_opsetid("", 18)]
    if domain:
        imports.append(helper.make_opsetid(domain, opset or 1))
    model = helper.make_model(graph, opset_imports=imports, ir_version=8)
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, dict(zip(names, inputs)))


# ---- shapes ---------------------------------------------------------------

def test_reshape_zero_copies_dim_unless_allowzero():
    x = np.zeros((2, 0, 3), np.float32)
    assert run("Reshape", x, np.array([0, 3, -1]), opset=13).shape == (2, 3, 0)
    assert run("Reshape", np.zeros((0, 3)), np.array([3, 0]), allowzero=1, opset=14).shape == (3, 0)
    assert run("Reshape", np.arange(6), opset=1, shape=[2, 0 + 3]).shape == (2, 3)


def test_concat_v1_defaults_to_axis_1_and_keeps_dtype():
    a, b = np.ones((2, 1), np.float16), np.zeros((2, 2), np.float16)
    out = run("Concat", a, b, opset=1)
    assert out.shape == (2, 3) and out.dtype == np.float16
    assert run("Concat", a, b, axis=-1, opset=13).shape == (2, 3)


@pytest.mark.parametrize("opset,args,attrs,sizes", [
    (1, [np.array([1, 3])], {}, [1, 3]),
    (2, [], {"split": [2, 2]}, [2, 2]),
    (13, [np.array([3, 1])], {}, [3, 1]),
    (18, [], {"num_outputs": 3}, [2, 2, 0]),      # ceil(4/3) = 2, then what is left
    (18, [], {}, [2, 2]),                          # node's output count
])
def test_split_versions(opset, args, attrs, sizes):
    x = np.arange(8).reshape(4, 2)
    parts = run("Split", x, *args, opset=opset, n_out=len(sizes), **attrs)
    assert [p.shape[0] for p in parts] == sizes
    np.testing.assert_array_equal(np.concatenate(parts), x)


def test_split_18_uneven_matches_onnxruntime():
    x = np.arange(7, dtype=np.float32)
    ours = run("Split", x, opset=18, n_out=3, num_outputs=3)
    theirs = ort_run("Split", [x], 3, num_outputs=3)
    for a, b in zip(ours, theirs):
        np.testing.assert_array_equal(a, b)


def test_squeeze_unsqueeze_negative_axes_both_forms():
    x = np.zeros((1, 3, 1))
    assert run("Squeeze", x, opset=1, axes=[-1]).shape == (1, 3)
    assert run("Squeeze", x, np.array([0, -1]), opset=13).shape == (3,)
    assert run("Squeeze", x, opset=13).shape == (3,)
    assert run("Unsqueeze", np.zeros((3, 4)), np.array([-1, 0]), opset=13).shape == (1, 3, 4, 1)
    assert run("Unsqueeze", np.zeros(()), opset=1, axes=[0]).shape == (1,)


def test_flatten_negative_and_zero_axis():
    x = np.zeros((2, 3, 4))
    assert run("Flatten", x, axis=-1).shape == (6, 4)
    assert run("Flatten", x, axis=0).shape == (1, 24)
    assert run("Flatten", x, axis=3).shape == (24, 1)


def test_shape_start_end_clamped():
    x = np.zeros((2, 3, 4, 5))
    np.testing.assert_array_equal(run("Shape", x, start=-10, end=100), [2, 3, 4, 5])
    np.testing.assert_array_equal(run("Shape", x, start=1, end=-1), [3, 4])
    assert run("Shape", x, start=3, end=1).shape == (0,)


def test_expand_broadcasts_both_ways_and_tile_v1():
    out = run("Expand", np.ones((3, 1), np.float32), np.array([2, 1, 4]))
    assert out.shape == (2, 3, 4) and out.dtype == np.float32
    np.testing.assert_array_equal(run("Tile", np.array([[1, 2]]), np.array(2), np.array(1), opset=1),
                                  [[1, 2, 1, 2]])


def test_space_to_depth_inverts_depth_to_space_in_both_modes():
    x = np.random.default_rng(0).random((2, 8, 3, 3)).astype(np.float32)
    for mode in ("DCR", "CRD"):
        y = run("DepthToSpace", x, blocksize=2, mode=mode)
        np.testing.assert_array_equal(run("SpaceToDepth", y, blocksize=2, mode=mode), x)


# ---- indexing -------------------------------------------------------------

def test_slice_negative_steps_and_huge_bounds():
    x = np.arange(10)
    big = np.iinfo(np.int64).max
    np.testing.assert_array_equal(run("Slice", x, np.array([-1]), np.array([-big]), np.array([0]),
                                      np.array([-3])), [9, 6, 3, 0])
    np.testing.assert_array_equal(run("Slice", x, np.array([20]), np.array([big])), [])
    np.testing.assert_array_equal(run("Slice", x, opset=1, starts=[2], ends=[-2]), x[2:-2])


def test_gather_family_negative_indices():
    x = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(run("Gather", x, np.array([-1, 0]), axis=1), x[:, [3, 0]])
    np.testing.assert_array_equal(run("GatherElements", x, np.array([[-1], [0], [1]]), axis=1),
                                  [[3], [4], [9]])
    np.testing.assert_array_equal(run("GatherND", x, np.array([[-1, -1], [0, 1]])), [11, 1])


def test_gather_nd_batch_dims_matches_reference():
    from onnx.reference import ReferenceEvaluator
    rng = np.random.default_rng(1)
    data = rng.random((2, 3, 4, 5)).astype(np.float32)
    idx = rng.integers(0, 3, (2, 3, 2, 2)).astype(np.int64)
    node = helper.make_node("GatherND", ["d", "i"], ["y"], batch_dims=2)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("d", TensorProto.FLOAT, None),
                                        helper.make_tensor_value_info("i", TensorProto.INT64, None)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    expected = ReferenceEvaluator(helper.make_model(g)).run(None, {"d": data, "i": idx})[0]
    np.testing.assert_array_equal(run("GatherND", data, idx, batch_dims=2), expected)


@pytest.mark.parametrize("reduction,expected", [("add", [1, 9, 3]), ("mul", [1, 24, 3]),
                                                ("max", [1, 4, 3]), ("min", [1, 2, 3])])
def test_scatter_reductions_apply_every_duplicate(reduction, expected):
    data = np.array([1, 2, 3])
    got = run("ScatterElements", data, np.array([1, -2]), np.array([3, 4]), reduction=reduction)
    np.testing.assert_array_equal(got, expected)
    nd = run("ScatterND", data, np.array([[1], [1]]), np.array([3, 4]), reduction=reduction)
    np.testing.assert_array_equal(nd, expected)
    assert data.tolist() == [1, 2, 3]          # inputs are never mutated


def test_onehot_negative_and_out_of_range_indices():
    out = run("OneHot", np.array([-1, 5, 0]), np.array(3.0), np.array([0, 7], np.int32), axis=0)
    assert out.dtype == np.int32 and out.shape == (3, 3)
    np.testing.assert_array_equal(out, [[0, 0, 7], [0, 0, 0], [7, 0, 0]])


def test_nonzero_scalar_and_compress_flattened():
    assert run("NonZero", np.array(5)).shape == (1, 1)
    np.testing.assert_array_equal(run("Compress", np.arange(6).reshape(2, 3), np.array([0, 1, 1])), [1, 2])


def test_reverse_sequence_matches_onnxruntime():
    x = np.arange(24, dtype=np.float32).reshape(4, 3, 2)
    lens = np.array([4, 1, 3], np.int64)
    np.testing.assert_array_equal(run("ReverseSequence", x, lens),
                                  ort_run("ReverseSequence", [x, lens], 1)[0])


# ---- generators, misc -----------------------------------------------------

def test_constant_value_forms():
    assert run("Constant", value_floats=[1.0, 2.0]).dtype == np.float32
    assert run("Constant", value_int=3).shape == () and run("Constant", value_int=3).dtype == np.int64
    s = run("Constant", value_strings=["a", "b"])
    assert s.dtype == object and s.tolist() == ["a", "b"]


def test_range_empty_negative_and_float16_stash():
    assert run("Range", np.array(5), np.array(1), np.array(1)).shape == (0,)
    np.testing.assert_array_equal(run("Range", np.array(10), np.array(4), np.array(-3)), [10, 7])
    out = run("Range", np.float16(2048), np.float16(2052), np.float16(1), opset=27)
    assert out.dtype == np.float16 and out.size == 4


def test_pad_modes_negative_pads_and_axes():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(run("Pad", x, np.array([0, -1, 0, 1]), np.array(9.0, np.float32)),
                                  [[1, 2, 9], [4, 5, 9]])
    for mode in ("reflect", "edge", "wrap"):
        ours = run("Pad", x, np.array([1, 2]), None, np.array([-1]), mode=mode)
        np.testing.assert_array_equal(ours, np.pad(x, ((0, 0), (1, 2)), mode=mode))
    np.testing.assert_array_equal(run("Pad", x, opset=2, pads=[1, 0, 0, 0], value=-1.0)[0], [-1, -1, -1])


def test_topk_ties_by_lower_index_and_unsigned():
    x = np.array([[3, 1, 3, 2, 3]], np.uint8)
    vals, idx = run("TopK", x, np.array([2]))
    np.testing.assert_array_equal(idx, [[0, 2]])
    vals, idx = run("TopK", x, np.array([2]), largest=0)
    np.testing.assert_array_equal(idx, [[1, 3]])
    vals, idx = run("TopK", np.array([1.0, 5.0]), opset=1, k=1)
    assert idx.tolist() == [1]


def test_unique_unsorted_with_axis_matches_reference():
    x = np.array([[2, 1], [1, 0], [2, 1], [0, 5]])
    y, first, inverse, counts = run("Unique", x, axis=0, sorted=0)
    np.testing.assert_array_equal(y, [[2, 1], [1, 0], [0, 5]])
    np.testing.assert_array_equal(first, [0, 1, 3])
    np.testing.assert_array_equal(inverse, [0, 1, 0, 2])
    np.testing.assert_array_equal(counts, [2, 1, 1])


def test_cumulative_exclusive_reverse_keeps_dtype():
    x = np.array([[1, 2, 3]], np.int32)
    out = run("CumSum", x, np.array(-1), exclusive=1, reverse=1)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out, [[5, 3, 0]])
    np.testing.assert_array_equal(run("CumProd", x, np.array(1), exclusive=1), [[1, 1, 2]])


def test_bitcast_keeps_shape():
    out = run("BitCast", np.array([1.0], np.float32), to=TensorProto.INT32)
    assert out.tolist() == [0x3F800000]


# ---- sequences, optionals, strings ----------------------------------------

def test_sequence_ops_do_not_mutate_inputs():
    seq = [np.zeros(1), np.ones(1)]
    longer = run("SequenceInsert", seq, np.full(1, 2.0), np.array(-1))
    assert len(seq) == 2 and [v[0] for v in longer] == [0, 2, 1]
    assert len(run("SequenceErase", longer)) == 2 and len(longer) == 3
    assert run("SequenceAt", longer, np.array(-1))[0] == 1
    with pytest.raises(IndexError):
        run("SequenceAt", longer, np.array(3))


def test_split_to_sequence_scalar_split_leaves_a_short_tail():
    parts = run("SplitToSequence", np.arange(5), np.array(2))
    assert [p.tolist() for p in parts] == [[0, 1], [2, 3], [4]]
    stacked = run("ConcatFromSequence", parts[:2], axis=-1, new_axis=1)
    assert stacked.shape == (2, 2)


def test_sequence_map_pairs_sequences_and_broadcasts_tensors():
    class Body:
        outputs = ["a", "b"]
    calls = []

    def run_subgraph(body, inputs):
        calls.append(len(inputs))
        return [inputs[0] + inputs[1], inputs[0].shape]
    seq = [np.ones(2), np.ones(3)]
    sums, shapes = run("SequenceMap", seq, np.array(1.0), body=Body(), n_out=2, run_subgraph=run_subgraph)
    assert [s.tolist() for s in sums] == [[2, 2], [2, 2, 2]] and calls == [2, 2]
    assert shapes == [(2,), (3,)]


def test_optional_ops():
    assert run("OptionalHasElement", None).item() is False
    assert run("OptionalHasElement", run("Optional", np.zeros(1))).item() is True
    with pytest.raises(ValueError):
        run("OptionalGetElement", None)


def test_string_ops():
    x = np.array(["a,b", "", "c"], dtype=object)
    y, n = run("StringSplit", x, delimiter=",")
    assert y.tolist() == [["a", "b"], ["", ""], ["c", ""]] and n.tolist() == [2, 1, 1]
    assert run("StringConcat", x, np.array("!", dtype=object)).tolist() == ["a,b!", "!", "c!"]
    assert run("RegexFullMatch", x, pattern=r"\w,\w").tolist() == [True, False, False]
    out = run("StringNormalizer", np.array([["Mon", "tue"]], dtype=object), case_change_action="UPPER",
              stopwords=["mon"])
    assert out.tolist() == [["TUE"]]


def test_tfidf_idf_mode_with_weights():
    out = run("TfIdfVectorizer", np.array([1, 2, 1, 2, 3]), max_gram_length=2, max_skip_count=0,
              min_gram_length=1, mode="TFIDF", ngram_counts=[0, 2], ngram_indexes=[0, 1, 2],
              pool_int64s=[1, 3, 1, 2], weights=[0.5, 2.0, 1.0])
    np.testing.assert_allclose(out, [1.0, 2.0, 2.0])


# ---- ai.onnx.ml against onnxruntime --------------------------------------

ML = "ai.onnx.ml"
RNG = np.random.default_rng(7)
X8 = RNG.normal(size=(8, 3)).astype(np.float32)


def check_ml(op, inputs, n_out, opset=1, **attrs):
    ours = run(op, *inputs, domain=ML, opset=opset, **attrs)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = ort_run(op, inputs, n_out, domain=ML, opset=opset, **attrs)
    for a, b in zip(ours, theirs):
        b = np.asarray(b)
        if b.dtype.kind == "f":
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
        else:
            np.testing.assert_array_equal(np.asarray(a).astype(b.dtype), b)


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX", "SOFTMAX_ZERO"])
def test_linear_classifier_binary_and_multiclass(post):
    check_ml("LinearClassifier", [X8], 2, coefficients=[0.5, -1.0, 2.0], intercepts=[0.1],
             classlabels_ints=[3, 7], post_transform=post)
    check_ml("LinearClassifier", [X8], 2, coefficients=list(RNG.normal(size=9)), intercepts=[0.1, 0, -1],
             classlabels_strings=["a", "b", "c"], post_transform=post)


SV = RNG.normal(size=(5, 3)).astype(np.float32)


@pytest.mark.parametrize("kernel_type", ["LINEAR", "POLY", "RBF", "SIGMOID"])
def test_svm_classifier_multiclass(kernel_type):
    check_ml("SVMClassifier", [X8], 2, classlabels_ints=[0, 1, 2], vectors_per_class=[2, 2, 1],
             support_vectors=SV.ravel().tolist(), coefficients=RNG.normal(size=10).tolist(),
             rho=[0.1, -0.2, 0.3], kernel_type=kernel_type, kernel_params=[0.3, 0.5, 2.0])


def test_svm_classifier_binary_and_probabilities():
    base = dict(support_vectors=SV[:4].ravel().tolist(), vectors_per_class=[2, 2], kernel_type="RBF",
                kernel_params=[0.4, 0.0, 3.0])
    check_ml("SVMClassifier", [X8], 2, classlabels_ints=[0, 1], coefficients=[1.0, -0.5, 0.7, -1.2],
             rho=[0.05], **base)
    check_ml("SVMClassifier", [X8], 2, classlabels_ints=[0, 1, 2], vectors_per_class=[2, 1, 1],
             support_vectors=SV[:4].ravel().tolist(), coefficients=RNG.normal(size=8).tolist(),
             rho=[0.1, 0.2, -0.3], prob_a=[-1.0, -2.0, -0.5], prob_b=[0.1, 0.0, -0.2],
             kernel_type="RBF", kernel_params=[0.4, 0.0, 3.0])


def test_svm_regressor():
    check_ml("SVMRegressor", [X8], 1, n_supports=5, support_vectors=SV.ravel().tolist(),
             coefficients=RNG.normal(size=5).tolist(), rho=[0.3], kernel_type="RBF", kernel_params=[0.2, 0, 3])
    check_ml("SVMRegressor", [X8], 1, coefficients=[1.0, 2.0, 3.0], rho=[0.3], one_class=1,
             kernel_params=[0.0, 0.0, 1.0], support_vectors=[0.0], n_supports=0)


TREE = dict(nodes_treeids=[0, 0, 0, 1, 1, 1], nodes_nodeids=[0, 1, 2, 0, 1, 2],
            nodes_featureids=[0, 0, 0, 2, 0, 0], nodes_values=[0.1, 0, 0, -0.3, 0, 0],
            nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"],
            nodes_truenodeids=[1, 0, 0, 1, 0, 0], nodes_falsenodeids=[2, 0, 0, 2, 0, 0])


@pytest.mark.parametrize("agg", ["SUM", "AVERAGE", "MIN", "MAX"])
def test_tree_regressor_aggregates(agg):
    check_ml("TreeEnsembleRegressor", [X8], 1, n_targets=2, aggregate_function=agg, base_values=[1.0, 2.0],
             target_treeids=[0, 0, 1, 1, 1], target_nodeids=[1, 2, 1, 2, 2], target_ids=[0, 0, 0, 1, 0],
             target_weights=[1.0, 2.0, 3.0, 4.0, 5.0], **TREE)


@pytest.mark.parametrize("post", ["NONE", "LOGISTIC", "SOFTMAX"])
def test_tree_classifier_binary_and_multiclass(post):
    check_ml("TreeEnsembleClassifier", [X8], 2, classlabels_int64s=[0, 1], post_transform=post,
             class_treeids=[0, 0, 1, 1], class_nodeids=[1, 2, 1, 2], class_ids=[1, 1, 1, 1],
             class_weights=[0.2, 0.7, 0.1, 0.4], **TREE)
    check_ml("TreeEnsembleClassifier", [X8], 2, classlabels_strings=["x", "y", "z"], post_transform=post,
             class_treeids=[0, 0, 1, 1], class_nodeids=[1, 2, 1, 2], class_ids=[0, 2, 1, 2],
             class_weights=[0.2, 0.7, 0.1, 0.4], base_values=[0.1, 0.2, 0.3], **TREE)


def test_tree_nan_follows_missing_value_flag():
    attrs = dict(TREE, nodes_missing_value_tracks_true=[1, 0, 0, 0, 0, 0])
    x = np.array([[np.nan, 0, 0], [1.0, 0, np.nan]], np.float32)
    check_ml("TreeEnsembleRegressor", [x], 1, n_targets=1, target_treeids=[0, 0, 1, 1], target_nodeids=[1, 2, 1, 2],
             target_ids=[0, 0, 0, 0], target_weights=[1.0, 2.0, 10.0, 20.0], **attrs)


def test_label_encoder_versions():
    x = np.array(["a", "q", "c"], dtype=object)
    check_ml("LabelEncoder", [x], 1, opset=2, keys_strings=["a", "c"], values_floats=[1.5, 2.5])
    check_ml("LabelEncoder", [np.array([3, 9], np.int64)], 1, opset=2, keys_int64s=[9], values_strings=["n"],
             default_string="?")
    got = run("LabelEncoder", x, domain=ML, opset=1, classes_strings=["c", "a"])
    assert got.tolist() == [1, -1, 0]


def test_category_mapper_onehot_encoder_imputer():
    s = np.array(["b", "zz"], dtype=object)
    check_ml("CategoryMapper", [s], 1, cats_strings=["a", "b"], cats_int64s=[5, 6])
    check_ml("CategoryMapper", [np.array([6, 1], np.int64)], 1, cats_strings=["a", "b"], cats_int64s=[5, 6])
    check_ml("OneHotEncoder", [np.array([[2, 7]], np.int64)], 1, cats_int64s=[7, 2, 4])
    x = np.array([[1.0, np.nan], [np.nan, 3.0]], np.float32)
    check_ml("Imputer", [x], 1, imputed_value_floats=[9.0, 8.0], replaced_value_float=float("nan"))


def test_normalizer_scaler_feature_extraction():
    for norm in ("MAX", "L1", "L2"):
        check_ml("Normalizer", [X8], 1, norm=norm)
    check_ml("Scaler", [X8], 1, offset=[1.0, 0.0, -1.0], scale=[2.0, 3.0, 0.5])
    check_ml("Scaler", [X8], 1, offset=[1.0], scale=[2.0])
    check_ml("ArrayFeatureExtractor", [X8, np.array([2, 0], np.int64)], 1)
    check_ml("FeatureVectorizer", [X8, np.ones((8, 1), np.float32)], 1, inputdimensions=[2, 3])


def test_map_kernels():
    m = {3: 1.5, 1: 2.5}
    np.testing.assert_array_equal(run("CastMap", m, domain=ML), [[2.5, 1.5]])
    np.testing.assert_array_equal(run("CastMap", m, domain=ML, map_form="SPARSE", max_map=4,
                                      cast_to="TO_INT64"), [[0, 2, 0, 1]])
    assert run("CastMap", m, domain=ML, cast_to="TO_STRING").tolist() == [["2.500000", "1.500000"]]
    np.testing.assert_array_equal(run("DictVectorizer", {"b": 2.0}, domain=ML, string_vocabulary=["a", "b"]),
                                  [[0.0, 2.0]])
    zipped = run("ZipMap", np.array([[0.25, 0.75]], np.float32), domain=ML, classlabels_strings=["n", "y"])
    assert zipped == [{"n": 0.25, "y": 0.75}]


def test_kernels_return_arrays_for_scalar_results():
    assert isinstance(run("Gather", np.arange(5), np.array(2)), np.ndarray)
    assert isinstance(run("GatherND", np.arange(4).reshape(2, 2), np.array([1, 1])), np.ndarray)


# ---- ImageDecoder -----------------------------------------------------------

def _png_bytes(img, filters):
    """A PNG of an RGB uint8 image with the given filter per row (the
    filters written out from the PNG specification's definitions)."""
    import struct
    import zlib

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    h, w, _ = img.shape
    raw, prev = b"", [0] * (w * 3)
    for y in range(h):
        row, out = img[y].reshape(-1).tolist(), []
        for i, v in enumerate(row):
            a = row[i - 3] if i >= 3 else 0
            b, c = prev[i], prev[i - 3] if i >= 3 else 0
            p = a + b - c
            paeth = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else (
                b if abs(p - b) <= abs(p - c) else c)
            pred = [0, a, b, (a + b) // 2, paeth][filters[y]]
            out.append((v - pred) % 256)
        raw += bytes([filters[y]] + out)
        prev = row
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def test_image_decoder_png_every_filter_and_formats():
    img = np.random.default_rng(5).integers(0, 256, (5, 4, 3)).astype(np.uint8)
    encoded = np.frombuffer(_png_bytes(img, [0, 1, 2, 3, 4]), np.uint8)
    np.testing.assert_array_equal(run("ImageDecoder", encoded), img)
    np.testing.assert_array_equal(run("ImageDecoder", encoded, pixel_format="BGR"), img[..., ::-1])
    gray = run("ImageDecoder", encoded, pixel_format="Grayscale")
    assert gray.shape == (5, 4, 1)
    luma = img.astype(float) @ [0.299, 0.587, 0.114]
    assert np.abs(gray[..., 0] - luma).max() <= 1


def test_image_decoder_pnm_and_unsupported():
    img = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    encoded = np.frombuffer(b"P6\n# c\n2 2\n255\n" + img.tobytes(), np.uint8)
    np.testing.assert_array_equal(run("ImageDecoder", encoded), img)
    with pytest.raises(ValueError, match="WebP"):
        run("ImageDecoder", np.frombuffer(b"RIFF\x20\x02\x00\x00WEBPVP8 " + bytes(20), np.uint8))


def _flat_block_jpeg(values, restart_every=0, sof=0xC0):
    """A one-component baseline JPEG whose 8x8 blocks are flat (DC only),
    written from the JPEG specification: quantisation 1, a DC Huffman table
    giving every size a 4-bit code, an AC table holding only end-of-block."""
    import struct
    rows, cols = values.shape

    def seg(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    dqt = seg(0xDB, b"\x00" + bytes([1] * 64))
    sof_body = struct.pack(">BHHB", 8, rows * 8, cols * 8, 1) + bytes([1, 0x11, 0])
    dht = seg(0xC4, b"\x00" + bytes([0, 0, 0, 12] + [0] * 12) + bytes(range(12))
              + b"\x10" + bytes([1] + [0] * 15) + b"\x00")
    dri = seg(0xDD, struct.pack(">H", restart_every)) if restart_every else b""
    sos = seg(0xDA, bytes([1, 1, 0x00, 0, 63, 0]))
    segments, bitstr, pred = [], "", 0
    for i, v in enumerate(values.reshape(-1)):
        if restart_every and i and i % restart_every == 0:
            segments.append(bitstr)
            bitstr, pred = "", 0
        diff = (int(v) - 128) * 8 - pred
        pred += diff
        size = abs(diff).bit_length()
        mag = diff if diff >= 0 else diff + (1 << size) - 1
        bitstr += format(size, "04b") + (format(mag, f"0{size}b") if size else "") + "0"
    segments.append(bitstr)
    data = b""
    for k, bits in enumerate(segments):
        bits += "1" * (-len(bits) % 8)
        raw = int(bits, 2).to_bytes(len(bits) // 8, "big") if bits else b""
        data += raw.replace(b"\xff", b"\xff\x00")
        if k < len(segments) - 1:
            data += bytes([0xFF, 0xD0 + k % 8])
    return b"\xff\xd8" + dqt + seg(sof, sof_body) + dht + dri + sos + data + b"\xff\xd9"


@pytest.mark.parametrize("restart", [0, 2])
def test_image_decoder_baseline_jpeg_flat_blocks(restart):
    values = np.array([[128, 255, 0], [17, 200, 128]])
    encoded = np.frombuffer(_flat_block_jpeg(values, restart), np.uint8)
    gray = run("ImageDecoder", encoded, pixel_format="Grayscale")[..., 0]
    np.testing.assert_array_equal(gray, np.kron(values, np.ones((8, 8), int)))
    # Progressive files go to Pillow (tests/exec/test_image_codecs.py); this
    # one only claims to be progressive, so the error names that variant.
    with pytest.raises(ValueError, match="cannot decode a progressive"):
        run("ImageDecoder", np.frombuffer(_flat_block_jpeg(values, sof=0xC2), np.uint8))


@pytest.mark.parametrize("agg", [0, 1, 2, 3])
def test_tree_ensemble_v5_aggregates_and_modes(agg):
    # Two trees over three features, mixing < and >= and == splits.
    attrs = dict(n_targets=2, aggregate_function=agg, post_transform=0, tree_roots=[0, 2],
                 nodes_featureids=[0, 1, 2], nodes_modes=helper.make_tensor("m", TensorProto.UINT8, [3], [1, 2, 4]),
                 nodes_splits=helper.make_tensor("s", TensorProto.FLOAT, [3], [0.0, 0.5, 1.0]),
                 nodes_truenodeids=[1, 0, 2], nodes_trueleafs=[0, 1, 1],
                 nodes_falsenodeids=[1, 1, 3], nodes_falseleafs=[1, 1, 1],
                 leaf_targetids=[0, 1, 0, 1], leaf_weights=helper.make_tensor("w", TensorProto.FLOAT, [4],
                                                                              [1.0, 2.0, 3.0, -4.0]))
    x = np.array([[-1.0, 0.7, 1.0], [1.0, 0.0, 0.0], [-1, 0.1, 5]], np.float32)
    theirs = ort_run("TreeEnsemble", [x], 1, domain=ML, opset=5, **attrs)[0]
    from onnx import numpy_helper
    ours_attrs = {k: numpy_helper.to_array(v) if isinstance(v, onnx.TensorProto) else v for k, v in attrs.items()}
    np.testing.assert_allclose(run("TreeEnsemble", x, domain=ML, opset=5, **ours_attrs), theirs, rtol=1e-6)


def test_tree_cache_is_keyed_by_attribute_identity():
    kw = dict(n_targets=1, target_treeids=[0, 0, 1, 1], target_nodeids=[1, 2, 1, 2], target_ids=[0] * 4, **TREE)
    first = run("TreeEnsembleRegressor", X8, domain=ML, target_weights=[1.0, 2.0, 3.0, 4.0], **kw)
    second = run("TreeEnsembleRegressor", X8, domain=ML, target_weights=[10.0, 20.0, 30.0, 40.0], **kw)
    np.testing.assert_allclose(second, first * 10, rtol=1e-6)


@pytest.mark.parametrize("largest", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int8, np.uint16])
def test_topk_small_k_partition_path_matches_full_sort(largest, dtype):
    # Few distinct values force many ties at the k-th place.
    x = np.random.default_rng(2).integers(0, 6, (3, 200, 4)).astype(dtype)
    vals, idx = run("TopK", x, np.array([7]), axis=1, largest=largest)
    key = np.where(largest, -x.astype(np.int64), x.astype(np.int64))
    expected = np.argsort(key, axis=1, kind="stable")[:, :7]
    np.testing.assert_array_equal(idx, expected)
    np.testing.assert_array_equal(vals, np.take_along_axis(x, expected, 1))
    ref_vals, ref_idx = ort_run("TopK", [x, np.array([7], np.int64)], 2, axis=1, largest=largest) \
        if dtype == np.float32 else (vals, idx)
    np.testing.assert_array_equal(idx, ref_idx)


# ---- coverage -------------------------------------------------------------

MY_OPS = """Identity Reshape Transpose Concat Split Slice Gather GatherElements GatherND Scatter
ScatterElements ScatterND Pad Tile Expand Squeeze Unsqueeze Flatten Shape Size Range ConstantOfShape
Constant OneHot TopK NonZero Unique CumSum CumProd Compress ReverseSequence DepthToSpace SpaceToDepth
Trilu EyeLike BitCast SequenceConstruct SequenceEmpty SequenceInsert SequenceAt SequenceErase
SequenceLength SplitToSequence ConcatFromSequence SequenceMap Optional OptionalHasElement
OptionalGetElement StringNormalizer StringConcat StringSplit RegexFullMatch TfIdfVectorizer
ImageDecoder""".split()


def test_every_version_of_these_operators_has_a_kernel():
    from onnx import defs
    missing = []
    for schema in defs.get_all_schemas_with_history():
        ours = schema.domain == "ai.onnx.ml" or (schema.domain in ("", "ai.onnx") and schema.name in MY_OPS)
        if ours and not schema.deprecated and find_kernel(schema.domain, schema.name, schema.since_version) is None:
            missing.append(f"{schema.domain or 'ai.onnx'}::{schema.name}-{schema.since_version}")
    assert not missing, missing


def test_old_opset_forms():
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    np.testing.assert_array_equal(run("Pad", x, opset=1, paddings=[0, 1, 0, 0], mode="edge"), [[0, 0, 1, 2, 3]])
    np.testing.assert_array_equal(run("Pad", x, opset=1, paddings=[0, 0, 0, 1], value=7.0), [[0, 1, 2, 3, 7]])
    d = np.arange(8, dtype=np.float32).reshape(1, 8, 1, 1)
    np.testing.assert_array_equal(run("DepthToSpace", d, opset=1, blocksize=2),
                                  run("DepthToSpace", d, opset=13, blocksize=2, mode="DCR"))
    assert run("TopK", x, np.array([2]), opset=10)[1].tolist() == [[3, 2]]
    assert run("Tile", x, np.array([0, 2])).shape == (0, 8)
    y, first, inverse, counts = run("Unique", np.array(["b", "a", "b"], dtype=object))
    assert y.tolist() == ["a", "b"] and inverse.tolist() == [1, 0, 1] and counts.tolist() == [1, 2]
    assert run("Concat", np.array(["a"], dtype=object), np.array(["b"], dtype=object), axis=0).tolist() == ["a", "b"]


@pytest.mark.parametrize("labels,coefs", [
    ({"classlabels_strings": ["a", "b"]}, [1.0, -2.0, 0.5, 0.3, 0.1, -0.2]),   # mixed signs: top > 0
    ({"classlabels_ints": [4, 9]}, [0.1, 0.2, 0.05, 0.3, 0.1, 0.2]),           # all positive: top >= 0.5
    ({"classlabels_ints": [0, 1, 2]}, list(np.arange(9, dtype=float) - 4)),
])
def test_svm_classifier_linear_mode_labels(labels, coefs):
    check_ml("SVMClassifier", [X8], 2, coefficients=coefs, rho=[0.1], kernel_type="LINEAR",
             kernel_params=[0.0, 0.0, 1.0], **labels)


def test_svm_classifier_binary_probabilities_and_logistic_strings():
    base = dict(support_vectors=SV[:4].ravel().tolist(), vectors_per_class=[2, 2],
                coefficients=[1.0, -0.5, 0.7, -1.2], rho=[0.05])
    check_ml("SVMClassifier", [X8], 2, classlabels_ints=[0, 1], prob_a=[-1.5], prob_b=[0.2],
             kernel_type="RBF", kernel_params=[0.4, 0.0, 3.0], **base)
    check_ml("SVMClassifier", [X8], 2, classlabels_strings=["n", "y"], post_transform="LOGISTIC",
             kernel_type="POLY", kernel_params=[0.4, 1.0, 2.0], **base)


def test_more_ml_kernels_against_onnxruntime():
    ints2x3 = np.arange(6).reshape(2, 3)
    check_ml("LinearClassifier", [X8], 2, coefficients=[0.5, -1, 2, 1, 1, -1], intercepts=[0.1, 0.2],
             classlabels_ints=[3, 7], post_transform="LOGISTIC")
    check_ml("LinearRegressor", [X8], 1, coefficients=[0.5, -1, 2, 1, 1, -1], intercepts=[0.1, 0.2], targets=2)
    check_ml("Binarizer", [X8], 1, threshold=0.2)
    check_ml("Normalizer", [ints2x3.astype(np.int32)], 1, norm="L1")
    check_ml("Scaler", [ints2x3.astype(np.int64)], 1, offset=[1.0], scale=[2.0])
    check_ml("ArrayFeatureExtractor", [np.arange(5, dtype=np.float32), np.array([1, 3], np.int64)], 1)
    check_ml("ArrayFeatureExtractor", [np.arange(24, dtype=np.float32).reshape(2, 3, 4),
                                       np.array([[1, 3]], np.int64)], 1)
    check_ml("Imputer", [np.array([[1, 0], [0, 3]], np.int64)], 1, imputed_value_int64s=[9], replaced_value_int64=0)
    check_ml("OneHotEncoder", [np.array([["a", "c"], ["b", "a"]], dtype=object)], 1, cats_strings=["a", "b"])
    check_ml("LabelEncoder", [np.array([1.5, 2.0, np.nan], np.float32)], 1, opset=2, keys_floats=[1.5, 2.0],
             values_strings=["x", "y"])
    check_ml("LabelEncoder", [np.array([[1, 4]], np.int64)], 1, opset=2, keys_int64s=[1], values_floats=[0.5])
