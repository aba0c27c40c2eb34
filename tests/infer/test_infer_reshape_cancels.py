"""A Reshape with -1 whose other dims share a sum with the input's
(the kv cache of a decoder: [batch, 4, past+seq, 16] to [-1, past+seq, 16])
gets 4*batch for the -1: the shared dim cancels before the division. It was
an unknown `?N`. The oracle is onnxruntime's float run at sizes where every
symbol differs."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.infer import infer
from onnxstudio.core.infer.dims import dim_add, dim_mul

F = TensorProto.FLOAT


def _kv_fold():
    consts = {"minus_one": np.array([-1], np.int64), "two": np.array([2], np.int64),
              "three": np.array([3], np.int64), "sixteen": np.array([16], np.int64)}
    nodes = [
        helper.make_node("Concat", ["past", "new"], ["cat"], axis=2),
        helper.make_node("Shape", ["cat"], ["shape"]),
        helper.make_node("Slice", ["shape", "two", "three"], ["length"]),
        helper.make_node("Concat", ["minus_one", "length", "sixteen"], ["target"], axis=0),
        helper.make_node("Reshape", ["cat", "target"], ["y"]),
    ]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("past", F, ["batch", 4, "past", 16]),
                                       helper.make_tensor_value_info("new", F, ["batch", 4, "seq", 16])],
                          [helper.make_tensor_value_info("y", F, None)],
                          [numpy_helper.from_array(v, k) for k, v in consts.items()])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


def test_reshape_minus_one_cancels_a_shared_sum():
    m = _kv_fold()
    inferred = infer(core.load_bytes(m.SerializeToString()))["y"]
    assert inferred.shape == (dim_mul(4, "batch"), dim_add("past", "seq"), 16)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    batch, past, seq = 2, 3, 5
    (real,) = sess.run(["y"], {"past": np.zeros((batch, 4, past, 16), np.float32),
                               "new": np.zeros((batch, 4, seq, 16), np.float32)})
    assert real.shape == (4 * batch, past + seq, 16)
