"""Early ONNX's experimental operators (ImageScaler, Crop, Affine ...) were
dropped from the standard without a signature. onnx's checker lets them pass
unchecked at any opset, onnxruntime still runs six of them, and the model
zoo's older models hold them (Tiny YOLOv2 starts with an ImageScaler); we
called each one an unknown operator, an error. They are now a warning that
says what runs them. An operator whose early version merely has no
signature at the imported opset (ThresholdedRelu, MeanVarianceNormalization
before opset 9-10) stays an error, as onnx refuses it."""
from __future__ import annotations

import pytest
from onnx import TensorProto, helper

from oracle_verdicts import onnx_accepts
from onnxstudio.core import load_bytes, schemas
from onnxstudio.core.check import ERROR, WARNING, check


def _model(op: str, opset: int):
    g = helper.make_graph([helper.make_node(op, ["x"], ["y"], name="early")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None] * 4)])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=3 if opset < 9 else 8)


@pytest.mark.parametrize("op", sorted(schemas.EXPERIMENTAL_OPS))
@pytest.mark.parametrize("opset", [8, 21])
def test_an_experimental_operator_is_a_warning_as_onnx_lets_it_pass(op, opset):
    model = _model(op, opset)
    assert onnx_accepts(model)
    for found in (check(model), check(load_bytes(model.SerializeToString()))):
        assert not [d for d in found if d.severity == ERROR], found
        warned = [d for d in found if d.code == "node.experimental-op"]
        assert [(d.severity, d.path) for d in warned] == [(WARNING, 'graph/node[0] ' + op + ' "early"')]
        runs = op in ("Affine", "Crop", "DynamicSlice", "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh")
        assert ("onnxruntime and onnxstudio's executor still run it" in warned[0].message) == runs


@pytest.mark.parametrize("op", ["ThresholdedRelu", "MeanVarianceNormalization", "Foo"])
def test_other_operators_without_a_signature_stay_errors(op):
    model = _model(op, 8)
    assert not onnx_accepts(model)
    assert any(d.severity == ERROR and d.code in ("node.op-too-new", "node.unknown-op") for d in check(model))
