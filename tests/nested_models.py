"""Small models with a node two If levels deep, for the tests of where a
run stops (NaN/Inf) and where it fails: built with onnx.helper.

    x (float[2]) -> Relu "pre" -> If "outer" (cond) -> [then: If "inner" (cond) ->
        [then: <deep node> -> Identity "after_deep"] ; else: Identity] ; else: Identity
    -> Neg "post" -> y
"""
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core


def _branch(name, nodes, out, shape=None):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, shape)])


def write_nested(path, deep_nodes, deep_out, inits=(), extra_inputs=()):
    """A model whose inner then-branch runs `deep_nodes` (reading pre_out
    and `extra_inputs`) and returns `deep_out` through an Identity."""
    inner_then = _branch("inner_then", list(deep_nodes) + [
        helper.make_node("Identity", [deep_out], ["inner_then_out"], name="after_deep")], "inner_then_out")
    inner_else = _branch("inner_else", [helper.make_node("Identity", ["pre_out"], ["inner_else_out"],
                                                         name="inner_copy")], "inner_else_out")
    outer_then = _branch("outer_then", [
        helper.make_node("If", ["cond"], ["inner_out"], name="inner", then_branch=inner_then,
                         else_branch=inner_else),
        helper.make_node("Identity", ["inner_out"], ["outer_then_out"], name="outer_copy")], "outer_then_out")
    outer_else = _branch("outer_else", [helper.make_node("Identity", ["pre_out"], ["outer_else_out"],
                                                         name="else_copy")], "outer_else_out")
    nodes = [
        helper.make_node("Relu", ["x"], ["pre_out"], name="pre"),
        helper.make_node("If", ["cond"], ["outer_out"], name="outer", then_branch=outer_then,
                         else_branch=outer_else),
        helper.make_node("Neg", ["outer_out"], ["y"], name="post"),
    ]
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
              helper.make_tensor_value_info("cond", TensorProto.BOOL, [])]
    inputs += [helper.make_tensor_value_info(n, TensorProto.FLOAT, None) for n in extra_inputs]
    graph = helper.make_graph(nodes, "nested", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path.write_bytes(model.SerializeToString())
    return path


def write_nan_inside(path):
    """The deep node is Log "make_nan" of (pre_out - 5): NaN for x below 5."""
    import numpy as np
    return write_nested(path, [
        helper.make_node("Sub", ["pre_out", "five"], ["shifted"], name="shift"),
        helper.make_node("Log", ["shifted"], ["logged"], name="make_nan"),
    ], "logged", inits=[("five", np.array([5.0], np.float32))])


def write_failing_inside(path):
    """The deep node is MatMul "bad_matmul" of pre_out (2) by a 3×4 weight:
    its inner dimensions do not match."""
    import numpy as np
    return write_nested(path, [
        helper.make_node("MatMul", ["pre_out", "w"], ["product"], name="bad_matmul"),
    ], "product", inits=[("w", np.ones((3, 4), np.float32))])


def load_nan_inside(tmp_path):
    return core.load(write_nan_inside(tmp_path / "nan_inside.onnx"))


def load_failing_inside(tmp_path):
    return core.load(write_failing_inside(tmp_path / "failing_inside.onnx"))
