"""A Resize whose sizes an export computes from the image's size through
Reciprocal (torchvision's detection transform: scale = min(800 / min(H, W),
...) as Reciprocal(H) * 800, Floor, Cast) gets the sizes onnxruntime's float
run produces once the input's shape is known. Reciprocal was not folded, so
every value after the transform of fasterrcnn_mbv3 was unknown (511 of its
1,480 values with the sample's concrete shape; 194 after, all behind NonZero,
TopK counts or an If on data)."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.infer import infer

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _scaled_resize(h: int, w: int):
    """image [1, 3, h, w] resized to floor(h * 160 / h_) x floor(w * 160 / h_)
    with the scale taken as Reciprocal(height) * 160, as the export writes it."""
    consts = {"hw_idx": np.array([2, 3], np.int64), "h_idx": np.array(2, np.int64),
              "target": np.array(160.0, np.float32), "zero": np.array([0], np.int64),
              "lead": np.array([1, 3], np.int64)}
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "h_idx"], ["h"], axis=0),
        helper.make_node("Cast", ["h"], ["hf"], to=F),
        helper.make_node("Reciprocal", ["hf"], ["inv_h"]),
        helper.make_node("Mul", ["inv_h", "target"], ["scale"]),
        helper.make_node("Gather", ["shape", "hw_idx"], ["hw"], axis=0),
        helper.make_node("Cast", ["hw"], ["hwf"], to=F),
        helper.make_node("Mul", ["hwf", "scale"], ["scaled"]),
        helper.make_node("Floor", ["scaled"], ["floored"]),
        helper.make_node("Cast", ["floored"], ["new_hw"], to=I64),
        helper.make_node("Concat", ["lead", "new_hw"], ["sizes"], axis=0),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="linear"),
    ]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [1, 3, h, w])],
                          [helper.make_tensor_value_info("y", F, None)],
                          [numpy_helper.from_array(v, k) for k, v in consts.items()])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("h, w", [(320, 320), (97, 250), (480, 641)])
def test_resize_sizes_computed_through_reciprocal_are_known(h, w):
    m = _scaled_resize(h, w)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    (real,) = sess.run(["y"], {"x": np.zeros((1, 3, h, w), np.float32)})
    inferred = infer(core.load_bytes(m.SerializeToString()))["y"]
    assert inferred.shape == real.shape
