"""Small models the editing tests change through the UI (built with the onnx
package, which the tests may use as an oracle and a builder)."""
from __future__ import annotations

import numpy as np


def write_conv_model(path) -> str:
    """x[1,3,8,8] -> Conv "conv1" (W, B) -> Relu "relu1" -> Cast "cast1" -> y,
    with a second output branch Sigmoid "sig1" reading the Relu."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "W")
    b = numpy_helper.from_array(np.arange(4, dtype=np.float32), "B")
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["c"], name="conv1", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu1"),
        helper.make_node("Cast", ["r"], ["y"], name="cast1", to=TensorProto.FLOAT),
        helper.make_node("Sigmoid", ["r"], ["s"], name="sig1"),
    ]
    graph = helper.make_graph(
        nodes, "convnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 4, 8, 8])],
        [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="edit-tests")
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)
