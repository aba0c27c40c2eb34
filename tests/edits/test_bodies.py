"""Edits inside a Loop body and a function body, addressed by path."""
import numpy as np
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import (AddGraphInput, AddGraphOutput, AddNode, RemoveGraphOutput, RenameValue,
                                   SetNodeInput, SetValueType, insert_on_edge)

from .models import chain, check_roundtrip, onnx_model, run_ort

BODY = (("node", "loop", "body"),)
FN = (("function", "local", "Twice", ""),)


def _loop_model():
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "step"], ["acc_out"], name="acc_add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep")],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])])
    g = helper.make_graph([helper.make_node("Loop", ["n", "", "x"], ["y"], name="loop", body=body)], "g",
                          [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                           helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("step", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)],
                                             ir_version=10).SerializeToString())


FEEDS = {"n": np.array(3, np.int64), "x": np.zeros(2, np.float32), "step": np.array([1, 2], np.float32)}


def test_loop_body_edits():
    m = _loop_model()

    def look(model, ch):
        np.testing.assert_allclose(run_ort(core.to_bytes(model), FEEDS)[0], [-3, -6])
    # The body reads `step` from outside; negate it on the way in.
    check_roundtrip(m, insert_on_edge(m, "step", "Neg", graph=BODY), look=look)
    check_roundtrip(m, RenameValue("acc_in", "carried", BODY),
                    look=lambda mm, ch: np.testing.assert_allclose(run_ort(core.to_bytes(mm), FEEDS)[0], [-3, -6]))
    check_roundtrip(m, SetValueType("acc_out", None, ["k"], BODY))
    check_roundtrip(m, AddNode("Mul", ["carried", "carried"], ["sq"], graph=BODY))
    check_roundtrip(m, SetNodeInput("acc_add", 1, "x", BODY))      # another outer value


def test_function_body_inputs_and_outputs():
    m = chain()

    def look(model, ch):
        f = onnx_model(model).functions[0]
        assert list(f.input) == ["u", "bias"] and ch.functions == {("local", "Twice", "")}
    check_roundtrip(m, AddGraphInput("bias", graph=FN), look=look)
    check_roundtrip(m, AddGraphOutput("u", graph=FN),
                    look=lambda mm, ch: list(onnx_model(mm).functions[0].output) == ["v", "u"] or None)
    check_roundtrip(m, RemoveGraphOutput("u", FN))
    check_roundtrip(m, RenameValue("u", "inp", FN),
                    look=lambda mm, ch: onnx_model(mm).functions[0].node[0].input[0] == "inp" or None)
