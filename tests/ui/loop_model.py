"""A small model with a Loop whose body holds a uniquely named node, built
with the onnx package (a test-only dependency) so search can be tested
inside a subgraph."""
from __future__ import annotations

import pathlib

BODY_NODE = "accumulate_in_body"


def write_loop_model(path: pathlib.Path) -> pathlib.Path:
    import onnx
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "step"], ["acc_sum"], name=BODY_NODE),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Identity", ["acc_sum"], ["acc_out"], name="pass_on")],
        "loop_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "cond", "start"], ["result"], name="the_loop", body=body),
         helper.make_node("Relu", ["result"], ["out"], name="after_loop")],
        "main",
        [helper.make_tensor_value_info("trips", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
         helper.make_tensor_value_info("start", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2])],
        initializer=[helper.make_tensor("step", TensorProto.FLOAT, [2], [1.0, 2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path
