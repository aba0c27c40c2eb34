"""A reduction's keepdims other than 0 and 1: onnx's shape inference and
onnxruntime keep the reduced axes only for 1, so keepdims=2 drops them.
Our executor and inference read it the same way (read as a truth value,
the run's shape and the inferred type differed from onnxruntime's, and
`tools/check_differential.py` found onnx refusing a declared output we
called clean). Shapes only: float reductions give the same shape on every
machine."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec import run
from onnxstudio.core.infer import Inference

ort = pytest.importorskip("onnxruntime")

CASES = [("ReduceSum", 13, TensorProto.FLOAT), ("ReduceMean", 13, TensorProto.FLOAT),
         ("ReduceMax", 18, TensorProto.FLOAT), ("ReduceProd", 18, TensorProto.FLOAT),
         ("ArgMax", 13, TensorProto.INT64), ("ArgMin", 13, TensorProto.INT64)]


def _model(op, opset, out_type, keepdims):
    node = helper.make_node(op, ["x"], ["y"], keepdims=keepdims)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_value_info("y", helper.make_tensor_type_proto(out_type, None))])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", opset)])


@pytest.mark.parametrize("keepdims", [0, 1, 2, 99])
@pytest.mark.parametrize("op,opset,out_type", CASES)
def test_run_and_inferred_shape_follow_onnxruntime(op, opset, out_type, keepdims, tmp_path):
    model = _model(op, opset, out_type, keepdims)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0].shape
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    ours = core.load(path)
    assert run(ours, {"x": x})["y"].shape == expected
    inferred = Inference(ours).run()["y"]
    assert tuple(inferred.shape) == expected
