"""Build resources/samples/demo.onnx, the model the app opens with --demo.

A small image classifier that shows what the viewer does: name scopes to
group (/backbone/stage1/...), a symbolic batch dim, initializers, a
model-local function (Swish, called twice) and an If with two bodies.
Development tool: run `python tools/make_demo.py` after changing it and
commit the result.
"""
import pathlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = pathlib.Path(__file__).resolve().parent.parent / "resources" / "samples" / "demo.onnx"


def main() -> None:
    rng = np.random.default_rng(7)
    inits = []
    nodes = []

    def weight(name, shape):
        inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.2).astype(np.float32), name))
        return name

    x = "pixels"
    channels = 3
    for stage, width in enumerate((8, 16), start=1):
        scope = f"/backbone/stage{stage}"
        w = weight(f"backbone.stage{stage}.conv.weight", (width, channels, 3, 3))
        b = weight(f"backbone.stage{stage}.conv.bias", (width,))
        nodes.append(helper.make_node("Conv", [x, w, b], [f"{scope}/conv_out"], name=f"{scope}/conv/Conv",
                                      pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
        nodes.append(helper.make_node("Swish", [f"{scope}/conv_out"], [f"{scope}/act_out"],
                                      name=f"{scope}/act/Swish", domain="onnxstudio.demo"))
        nodes.append(helper.make_node("MaxPool", [f"{scope}/act_out"], [f"{scope}/pool_out"],
                                      name=f"{scope}/pool/MaxPool", kernel_shape=[2, 2], strides=[2, 2]))
        x = f"{scope}/pool_out"
        channels = width
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["/head/gap_out"], name="/head/GlobalAveragePool"))
    nodes.append(helper.make_node("Flatten", ["/head/gap_out"], ["/head/flat"], name="/head/Flatten"))
    w = weight("head.fc.weight", (10, channels))
    b = weight("head.fc.bias", (10,))
    nodes.append(helper.make_node("Gemm", ["/head/flat", w, b], ["logits"], name="/head/fc/Gemm", transB=1))

    # probabilities: softmax when asked for calibrated output, else sigmoid scores
    then_body = helper.make_graph(
        [helper.make_node("Softmax", ["logits"], ["then_probs"], name="softmax", axis=1)], "softmax_branch", [],
        [helper.make_tensor_value_info("then_probs", TensorProto.FLOAT, None)])
    else_body = helper.make_graph(
        [helper.make_node("Sigmoid", ["logits"], ["else_probs"], name="sigmoid")], "sigmoid_branch", [],
        [helper.make_tensor_value_info("else_probs", TensorProto.FLOAT, None)])
    nodes.append(helper.make_node("If", ["use_softmax"], ["probs"], name="/head/choose_activation",
                                  then_branch=then_body, else_branch=else_body))

    swish = helper.make_function(
        "onnxstudio.demo", "Swish", ["X"], ["Y"],
        [helper.make_node("Sigmoid", ["X"], ["s"]), helper.make_node("Mul", ["X", "s"], ["Y"])],
        [helper.make_opsetid("", 18)])
    graph = helper.make_graph(
        nodes, "demo_classifier",
        [helper.make_tensor_value_info("pixels", TensorProto.FLOAT, ["batch", 3, 32, 32]),
         helper.make_tensor_value_info("use_softmax", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 10]),
         helper.make_tensor_value_info("probs", TensorProto.FLOAT, ["batch", 10])],
        inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18),
                                                     helper.make_opsetid("onnxstudio.demo", 1)],
                              functions=[swish], producer_name="onnxstudio tools/make_demo.py",
                              ir_version=10)
    model.doc_string = "Demo classifier bundled with onnxstudio (random weights)."
    helper.set_model_props(model, {"purpose": "demo", "license": "MIT"})
    onnx.checker.check_model(model, full_check=True)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    onnx.save(model, OUT)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
