"""Valid models the mutation suite breaks: hand-built ones that exercise
subgraphs, functions, sparse initializers and training info, plus small
models of the ONNX backend test data. Built with the `onnx` helper (oracle
and test tool only) and verified with onnx.checker before use."""
from __future__ import annotations

import functools

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F = TensorProto.FLOAT


def _vi(name, dtype=F, shape=(2, 3)):
    return helper.make_tensor_value_info(name, dtype, list(shape))


def convnet():
    w = numpy_helper.from_array(np.ones((4, 1, 3, 3), np.float32), "w")
    b = numpy_helper.from_array(np.zeros((4,), np.float32), "b")
    shape = numpy_helper.from_array(np.array([1, -1], np.int64), "shape")
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv1", pads=[1, 1, 1, 1], kernel_shape=[3, 3]),
        helper.make_node("Relu", ["c"], ["r"], name="relu1"),
        helper.make_node("MaxPool", ["r"], ["p"], name="pool", kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Reshape", ["p", "shape"], ["flat"], name="flatten"),
        helper.make_node("Softmax", ["flat"], ["y"], name="softmax", axis=1),
    ]
    g = helper.make_graph(nodes, "convnet", [_vi("x", F, (1, 1, 8, 8))], [_vi("y", F, (1, 64))],
                          initializer=[w, b, shape],
                          value_info=[_vi("c", F, (1, 4, 8, 8)), _vi("r", F, (1, 4, 8, 8))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], producer_name="tests")
    m.metadata_props.add(key="author", value="tests")
    return m


def branchy():
    """If with two branches that read an outer name, a Loop, a Cast and Add."""
    then_g = helper.make_graph([helper.make_node("Add", ["a", "k"], ["t_out"], name="then_add")],
                               "then_body", [], [_vi("t_out")])
    else_g = helper.make_graph([helper.make_node("Sub", ["a", "k"], ["e_out"], name="else_sub")],
                               "else_body", [], [_vi("e_out")])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"], name="loop_cond"),
         helper.make_node("Add", ["acc_in", "k"], ["acc_out"], name="loop_add")],
        "loop_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []), _vi("acc_in")],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), _vi("acc_out")])
    k = numpy_helper.from_array(np.ones((2, 3), np.float32), "k")
    trip = numpy_helper.from_array(np.array(3, np.int64), "trip")
    nodes = [
        helper.make_node("Add", ["x", "k"], ["a"], name="add0"),
        helper.make_node("ReduceSum", ["a"], ["s"], name="sum", keepdims=0),
        helper.make_node("Cast", ["s"], ["flag"], name="to_bool", to=TensorProto.BOOL),
        helper.make_node("If", ["flag"], ["picked"], name="choose", then_branch=then_g, else_branch=else_g),
        helper.make_node("Loop", ["trip", "flag", "picked"], ["looped"], name="repeat", body=body),
        helper.make_node("Mul", ["looped", "x"], ["y"], name="mul"),
    ]
    g = helper.make_graph(nodes, "branchy", [_vi("x")], [_vi("y")], initializer=[k, trip])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def with_function():
    """A model-local function with an attribute reference, called twice."""
    fn = helper.make_function(
        "local.fns", "ScaledRelu", ["X"], ["Y"],
        [helper.make_node("Constant", [], ["s"], name="scale",
                          value_float=1.0),
         helper.make_node("Mul", ["X", "s"], ["m"], name="mul"),
         helper.make_node("LeakyRelu", ["m"], ["Y"], name="act")],
        opset_imports=[helper.make_opsetid("", 17)], attributes=["alpha"])
    fn.node[2].attribute.append(helper.make_attribute_ref("alpha", onnx.AttributeProto.FLOAT))
    nodes = [helper.make_node("ScaledRelu", ["x"], ["h"], domain="local.fns", name="f1", alpha=0.1),
             helper.make_node("ScaledRelu", ["h"], ["y"], domain="local.fns", name="f2", alpha=0.2)]
    g = helper.make_graph(nodes, "calls", [_vi("x")], [_vi("y")])
    return helper.make_model(g, functions=[fn], opset_imports=[helper.make_opsetid("", 17),
                                                                  helper.make_opsetid("local.fns", 1)])


def with_sparse_and_training():
    values = numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "sp")
    indices = numpy_helper.from_array(np.array([1, 4, 5], np.int64), "sp_idx")
    sparse = helper.make_sparse_tensor(values, indices, [2, 3])
    w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    # The sparse initializer is only stored (operators do not take sparse
    # inputs); the Constant carries a second sparse tensor as an attribute.
    const_sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0, 6.0], np.float32), "cs"),
        numpy_helper.from_array(np.array([[0, 1], [1, 2]], np.int64), "cs_idx"), [2, 3])
    nodes = [helper.make_node("Constant", [], ["c"], name="dense", sparse_value=const_sparse),
             helper.make_node("Add", ["x", "c"], ["s"], name="add_sparse"),
             helper.make_node("Mul", ["s", "w"], ["y"], name="scale")]
    g = helper.make_graph(nodes, "sparse_model", [_vi("x")], [_vi("y")], initializer=[w])
    g.sparse_initializer.append(sparse)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    algo = helper.make_graph([helper.make_node("Add", ["w", "w"], ["w_new"], name="update")],
                             "algorithm", [], [_vi("w_new")])
    init = helper.make_graph([helper.make_node("Identity", ["w"], ["w_init"], name="init")],
                             "initialization", [], [_vi("w_init")])
    ti = m.training_info.add()
    ti.algorithm.CopyFrom(algo)
    ti.initialization.CopyFrom(init)
    ti.update_binding.add(key="w", value="w_new")
    ti.initialization_binding.add(key="w", value="w_init")
    return m


BUILT = {"convnet": convnet, "branchy": branchy, "with_function": with_function,
         "sparse_training": with_sparse_and_training}

# Backend cases that give the generic mutations varied operators, attribute
# kinds, optional inputs, variadics and subgraphs.
BACKEND_PICKS = (
    "test_conv_with_strides_padding", "test_averagepool_2d_pads", "test_batchnorm_epsilon",
    "test_gemm_all_attributes", "test_concat_3d_axis_0", "test_slice", "test_resize_downsample_scales_linear",
    "test_lstm_defaults", "test_if", "test_loop11", "test_scan9_sum", "test_cast_FLOAT_to_DOUBLE",
    "test_transpose_default", "test_gather_0", "test_clip", "test_einsum_batch_matmul", "test_topk",
    "test_dequantizelinear", "test_layer_normalization_2d_axis0", "test_split_variable_parts_1d_opset13",
    "test_range_float_type_positive_delta_expanded", "test_softmax_axis_0_expanded", "test_where_example",
    "test_sequence_map_identity_1_sequence", "test_ai_onnx_ml_label_encoder_string_int",
    "test_optional_get_element_sequence", "test_reduce_sum_keepdims_example", "test_constantofshape_int_zeros",
    "test_convtranspose_pads", "test_nonmaxsuppression_center_point_box_format",
)


@functools.lru_cache(maxsize=None)
def base_bytes(name: str) -> bytes:
    if name in BUILT:
        m = BUILT[name]()
    else:
        from backend_data import node_dir  # noqa: PLC0415
        m = onnx.load(str(node_dir() / name / "model.onnx"))
    onnx.checker.check_model(m, full_check=True)   # only valid models are bases
    return m.SerializeToString()


def base_names() -> list:
    from backend_data import node_dir  # noqa: PLC0415
    picks = [n for n in BACKEND_PICKS if (node_dir() / n / "model.onnx").exists()]
    assert len(picks) >= len(BACKEND_PICKS) - 3, "backend picks missing from the cache"
    return list(BUILT) + picks


def load_base(name: str) -> onnx.ModelProto:
    m = onnx.ModelProto()
    m.ParseFromString(base_bytes(name))
    return m
