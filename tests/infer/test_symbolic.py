"""Symbolic dims, shape-tensor propagation, constant folding, diagnostics."""
from __future__ import annotations

import numpy as np

from onnxstudio.core.diagnostics import INFO, WARNING
from onnxstudio.core.infer import Inference, infer
from onnxstudio.core.infer.dims import broadcast_shapes, dim_add, dim_floordiv, dim_mul, dim_sub
from onnxstudio.core.ir.types import TensorType

from .helpers import B, F, I64, helper, make_model, node, out


def shape_of(result, name):
    return result[name].shape


def test_dim_arithmetic_builds_expressions():
    assert dim_add("N", "N") == "2*N"
    assert dim_mul(2, "seq") == "2*seq"
    assert dim_mul("seq", 2) == "2*seq"
    assert dim_sub("seq", 1) == "seq-1"
    assert dim_add(dim_sub("seq", 1), 1) == "seq"          # canonical: back to the symbol
    assert dim_add("seq", 0) == "seq"
    assert dim_mul("batch", "seq") == dim_mul("seq", "batch") == "batch*seq"
    assert dim_floordiv(dim_mul(12, "seq"), 4) == "3*seq"
    assert dim_floordiv("seq", 2) == "floor(seq/2)"         # rounds down, and says so
    assert dim_floordiv("seq", "heads") is None              # not exact for every value
    # A file's own name is never parsed, even with operator characters in it.
    assert dim_mul("a+b", 3) == "3*(a+b)"
    assert dim_sub(dim_add("batch-size", 2), 2) == "batch-size"
    assert dim_add(None, 1) is None
    assert dim_mul("x", 0) == 0


def test_broadcast_keeps_symbols_and_prefers_numbers():
    assert broadcast_shapes([("batch", 1, 64), (8, 64)]) == ("batch", 8, 64)
    assert broadcast_shapes([("N",), (5,)]) == (5,)
    assert broadcast_shapes([("N",), ("M",)]) == (None,)
    assert broadcast_shapes([(None,), (1,)]) == (None,)
    assert broadcast_shapes([("N", 3), None]) is None


def test_transformer_shape_chain_gives_symbolic_reshape():
    # x[batch, seq, 64] -> reshape to [batch, seq, 4, 16] through Shape/Gather/Concat.
    nodes = [
        node("Shape", ["x"], ["s"]),
        node("Gather", ["s", "i0"], ["b"], axis=0),
        node("Gather", ["s", "i1"], ["q"], axis=0),
        node("Unsqueeze", ["b", "ax"], ["b1"]),
        node("Unsqueeze", ["q", "ax"], ["q1"]),
        node("Concat", ["b1", "q1", "heads"], ["target"], axis=0),
        node("Reshape", ["x", "target"], ["y"]),
        node("Transpose", ["y"], ["t"], perm=[0, 2, 1, 3]),
        node("Reshape", ["t", "flat"], ["z"]),
    ]
    m = make_model(nodes, [("x", F, ["batch", "seq", 64])], [out("z")], initializers=[
        ("i0", np.array(0, np.int64)), ("i1", np.array(1, np.int64)),
        ("ax", np.array([0], np.int64)), ("heads", np.array([4, 16], np.int64)),
        ("flat", np.array([0, 0, -1], np.int64))])
    r = infer(m)
    assert shape_of(r, "s") == (3,)
    assert shape_of(r, "b") == ()
    assert shape_of(r, "y") == ("batch", "seq", 4, 16)
    assert shape_of(r, "t") == ("batch", 4, "seq", 16)
    assert shape_of(r, "z") == ("batch", 4, "16*seq")
    assert r["z"].elem_type == F
    assert not r.diagnostics


def test_reshape_minus_one_cancels_symbols():
    m = make_model([node("Reshape", ["x", "t"], ["y"])], [("x", F, ["batch", "seq", 768])], [out("y")],
                   initializers=[("t", np.array([0, -1, 64], np.int64))])
    assert infer(m)["y"].shape == ("batch", "12*seq", 64)


def test_constant_folding_through_kernels():
    # Range/Mul/Cast/ConstantOfShape on constants become concrete dims.
    nodes = [
        node("Constant", [], ["c"], value=helper.make_tensor("c", I64, [2], [3, 4])),
        node("Mul", ["c", "two"], ["d"]),
        node("ConstantOfShape", ["d"], ["z"]),
        node("Range", ["zero", "five", "one"], ["r"]),
        node("Expand", ["x", "d"], ["e"]),
    ]
    m = make_model(nodes, [("x", F, [1, 8])], [out("z"), out("r", I64), out("e")], initializers=[
        ("two", np.array(2, np.int64)), ("zero", np.array(0, np.int64)),
        ("five", np.array(5, np.int64)), ("one", np.array(1, np.int64))])
    r = infer(m)
    assert r["z"] == TensorType(F, (6, 8))
    assert r["r"] == TensorType(I64, (5,))
    assert r["e"].shape == (6, 8)


def test_concat_of_symbols_and_slice_of_symbolic_dim():
    nodes = [
        node("Concat", ["a", "a"], ["c"], axis=1),
        node("Slice", ["a", "st", "en", "axes"], ["s"]),
    ]
    m = make_model(nodes, [("a", F, ["N", "T"])], [out("c"), out("s")], initializers=[
        ("st", np.array([1], np.int64)), ("en", np.array([2 ** 63 - 1], np.int64)),
        ("axes", np.array([1], np.int64))])
    r = infer(m)
    assert r["c"].shape == ("N", "2*T")
    assert r["s"].shape == ("N", "T-1")


def test_conv_pool_gemm_shapes():
    nodes = [
        node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
        node("MaxPool", ["c"], ["p"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        node("GlobalAveragePool", ["p"], ["g"]),
        node("Flatten", ["g"], ["f"]),
        node("Gemm", ["f", "fc"], ["y"], transB=1),
    ]
    m = make_model(nodes, [("x", F, ["N", 3, 224, 224])], [out("y")], initializers=[
        ("w", np.zeros((16, 3, 3, 3), np.float32)), ("fc", np.zeros((10, 16), np.float32))])
    r = infer(m)
    assert r["c"].shape == ("N", 16, 112, 112)
    assert r["p"].shape == ("N", 16, 56, 56)
    assert r["f"].shape == ("N", 16)
    assert r["y"].shape == ("N", 10)


def test_unknown_op_gives_info_with_path_and_inference_continues():
    nodes = [node("Frobnicate", ["x"], ["y"], domain="com.example", name="mystery"),
             node("Relu", ["x"], ["z"])]
    m = make_model(nodes, [("x", F, [2])], [out("y"), out("z")], extra_opsets={"com.example": 1})
    r = infer(m)
    assert r["z"] == TensorType(F, (2,))
    assert r["y"] is None or r["y"].shape is None
    (d,) = r.diagnostics
    assert d.severity == INFO and "Frobnicate" in d.message and 'node[0] Frobnicate "mystery"' in d.path


def test_conflicting_value_info_is_a_warning_naming_both_types():
    m = make_model([node("Relu", ["x"], ["y"]), node("Neg", ["y"], ["z"])],
                   [("x", F, [2, 3])], [out("z")], value_info=[("y", F, [2, 4])])
    r = infer(m)
    (d,) = r.diagnostics
    assert d.severity == WARNING and "float[2,4]" in d.message and "float[2,3]" in d.message
    assert r["y"].shape == (2, 3)


def test_stored_value_info_refines_unknown_dims():
    m = make_model([node("NonZero", ["x"], ["y"]), node("Identity", ["y"], ["z"])],
                   [("x", F, [2, 3])], [out("z", I64)], value_info=[("y", I64, [2, "nnz"])])
    r = infer(m)
    assert r["y"].shape == (2, "nnz")
    assert r["z"].shape == (2, "nnz")


def test_bad_model_never_raises():
    # A Reshape whose target does not fit, a Gather with an out-of-range axis,
    # a Concat of different ranks, a Transpose with a wrong perm.
    nodes = [node("Reshape", ["x", "t"], ["a"]), node("Gather", ["x", "t"], ["b"], axis=7),
             node("Concat", ["x", "t"], ["c"], axis=0), node("Transpose", ["x"], ["d"], perm=[5, 0])]
    m = make_model(nodes, [("x", F, [2, 3])], [out("a"), out("b"), out("c"), out("d")],
                   initializers=[("t", np.array([7, -1], np.int64))])
    r = infer(m)
    assert set(r) >= {"a", "b", "c", "d"}


def test_written_copy_stores_value_info_and_leaves_the_model_alone():
    m = make_model([node("Relu", ["x"], ["y"]), node("Neg", ["y"], ["z"])], [("x", F, ["N"])], [out("z")])
    infer(m)
    assert m.graph.get_value("y").type is None
    inf = Inference(m)
    inf.run()
    copy, stored = inf.written_copy()
    assert m.graph.get_value("y").type is None and not m.graph.value_info
    assert copy.graph.get_value("y").type == TensorType(F, ("N",)) and stored >= 1
    assert any(v.name == "y" for v in copy.graph.value_info)
    assert copy.graph.get_value("z").type.shape == ("N",)


def test_if_branches_join_and_outer_scope_is_visible():
    then_g = helper.make_graph([node("Relu", ["x"], ["t"])], "then", [], [helper.make_tensor_value_info("t", F, None)])
    else_g = helper.make_graph([node("Concat", ["x", "x"], ["e"], axis=0)], "else", [],
                               [helper.make_tensor_value_info("e", F, None)])
    m = make_model([node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)],
                   [("c", B, []), ("x", F, [2, "K"])], [out("y")])
    # The branches disagree (2 or 4 rows): a fresh name, not a number.
    assert infer(m)["y"].shape == ("?1", "K")


def test_loop_and_scan_outputs():
    body = helper.make_graph(
        [node("Identity", ["cin"], ["cout"]), node("Add", ["acc", "x"], ["acc2"]),
         node("Relu", ["acc2"], ["scan_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cin", B, []),
         helper.make_tensor_value_info("acc", F, None)],
        [helper.make_tensor_value_info(n, t, None) for n, t in [("cout", B), ("acc2", F), ("scan_out", F)]])
    m = make_model([node("Loop", ["M", "", "a0"], ["a", "stack"], body=body)],
                   [("M", I64, []), ("a0", F, [3]), ("x", F, [3])], [out("a"), out("stack")])
    r = infer(m)
    assert r["a"].shape == (3,)
    assert r["stack"].shape == ("?1", 3)              # the trip count is an input: named


def test_model_local_function_is_inferred_with_call_types():
    fn = helper.make_function("local", "Twice", ["u"], ["v"],
                              [node("Concat", ["u", "u"], ["v"], axis=-1)],
                              [helper.make_opsetid("", 21)])
    m = make_model([node("Twice", ["x"], ["y"], domain="local")], [("x", F, ["B", 5])], [out("y")],
                   functions=[fn], extra_opsets={"local": 1})
    r = infer(m)
    assert r["y"] == TensorType(F, ("B", 10))
    assert not r.diagnostics


def test_equal_where_expand_pattern_of_exporters():
    # target = Where(Equal(shape, -1), ones, shape) with shape = [batch, -1, seq]:
    # the -1 entry becomes 1 and Expand keeps the symbols.
    nodes = [
        node("Shape", ["x"], ["s"]),
        node("Gather", ["s", "i0"], ["b"], axis=0),
        node("Gather", ["s", "i1"], ["q"], axis=0),
        node("Unsqueeze", ["b", "ax"], ["b1"]),
        node("Unsqueeze", ["q", "ax"], ["q1"]),
        node("Concat", ["b1", "minus1", "q1"], ["shape"], axis=0),
        node("Equal", ["shape", "minus1"], ["eq"]),
        node("Where", ["eq", "ones", "shape"], ["target"]),
        node("Expand", ["m", "target"], ["y"]),
        node("Slice", ["pos", "zero", "q1", "ax1"], ["p"]),
    ]
    m = make_model(nodes, [("x", F, ["batch", "seq"]), ("m", B, [1, 1, 1])], [out("y", B), out("p", I64)],
                   initializers=[("i0", np.array(0, np.int64)), ("i1", np.array(1, np.int64)),
                                 ("ax", np.array([0], np.int64)), ("minus1", np.array([-1], np.int64)),
                                 ("ones", np.array([1, 1, 1], np.int64)), ("zero", np.array([0], np.int64)),
                                 ("ax1", np.array([1], np.int64)), ("pos", np.zeros((1, 512), np.int64))])
    r = infer(m)
    assert r["y"].shape == ("batch", 1, "seq")
    assert r["p"].shape == (1, "seq")


def test_function_attribute_references_and_nested_calls():
    concat = helper.make_node("Concat", ["u", "u"], ["v"])
    ref = helper.AttributeProto()
    ref.name, ref.ref_attr_name, ref.type = "axis", "which", helper.AttributeProto.INT
    concat.attribute.append(ref)
    inner = helper.make_function("local", "Join", ["u"], ["v"], [concat], [helper.make_opsetid("", 21)],
                                 attributes=["which"])
    outer = helper.make_function("local", "JoinTwice", ["a"], ["b"],
                                 [node("Join", ["a"], ["t"], domain="local", which=1),
                                  node("Join", ["t"], ["b"], domain="local", which=0)],
                                 [helper.make_opsetid("", 21), helper.make_opsetid("local", 1)])
    m = make_model([node("JoinTwice", ["x"], ["y"], domain="local")], [("x", F, ["B", 3])], [out("y")],
                   functions=[inner, outer], extra_opsets={"local": 1})
    r = infer(m)
    assert r["y"].shape == ("2*B", 6)
    assert not r.diagnostics


def test_loop_with_constant_trip_count_knows_scan_length():
    body = helper.make_graph(
        [node("Identity", ["cin"], ["cout"]), node("Relu", ["x"], ["s"])], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("cin", B, [])],
        [helper.make_tensor_value_info("cout", B, []), helper.make_tensor_value_info("s", F, None)])
    m = make_model([node("Loop", ["M", ""], ["stack"], body=body)], [("x", F, [2, "K"])], [out("stack")],
                   initializers=[("M", np.array(5, np.int64))])
    assert infer(m)["stack"].shape == (5, 2, "K")


def test_split_of_a_doubled_symbolic_dim_gives_the_symbol_back():
    nodes = [node("Concat", ["x", "x"], ["c"], axis=1), node("Split", ["c"], ["a", "b"], axis=1, num_outputs=2)]
    m = make_model(nodes, [("x", F, [1, "H"])], [out("a"), out("b")], opset=18)
    r = infer(m)
    assert r["c"].shape == (1, "2*H")
    assert r["a"].shape == r["b"].shape == (1, "H")


def test_a_recursive_function_is_reported_not_followed_forever():
    fn = helper.make_function("local", "Self", ["u"], ["v"],
                              [node("Self", ["u"], ["w"], domain="local"), node("Self", ["w"], ["v"], domain="local")],
                              [helper.make_opsetid("", 21), helper.make_opsetid("local", 1)])
    m = make_model([node("Self", ["x"], ["y"], domain="local")], [("x", F, [2])], [out("y")],
                   functions=[fn], extra_opsets={"local": 1})
    r = infer(m)
    assert "y" in r
    assert any(d.code == "infer.failed" for d in r.diagnostics)
