"""Three shape facts onnx's inference and onnxruntime refuse, found by ours
(so by the app and `onnxstudio check`; tools/check_differential.py listed
them as mutants everyone but us rejected):

- BatchNormalization (opset 14 on) gives one output without training_mode
  and three with training_mode=1 (node.output-count; a count of two is the
  checker's arity rule, reported once);
- Dropout's ratio and training_mode inputs (opset 12 on) are scalars;
- ConstantOfShape's input is a 1-D list of dims (shape.rank-mismatch).

Each case is first proved on onnxruntime, which runs onnx's inference when
it loads a model: a refusal there is the same on every machine (no kernel
runs). Valid forms are clean for both."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracle_verdicts import onnxruntime_loads, our_errors

F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _model(nodes, inputs, outputs, inits=(), opset=15):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", opset)])


def _batch_norm(outputs, **attrs):
    stats = [numpy_helper.from_array(np.ones(3, np.float32), n) for n in ("s", "b", "mean", "var")]
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"], outputs, name="bn", **attrs)
    given = [o for o in outputs if o]
    return _model([node], [helper.make_tensor_value_info("x", F, [2, 3, 4])],
                  [helper.make_tensor_value_info(o, F, [2, 3, 4] if o == "y" else [3]) for o in given], stats)


def _dropout(ratio_shape, mode_shape=None):
    inputs = [helper.make_tensor_value_info("x", F, [2, 3]), helper.make_tensor_value_info("r", F, ratio_shape)]
    if mode_shape is not None:
        inputs.append(helper.make_tensor_value_info("t", BOOL, mode_shape))
    node = helper.make_node("Dropout", [i.name for i in inputs], ["y"], name="drop")
    return _model([node], inputs, [helper.make_tensor_value_info("y", F, [2, 3])], opset=13)


def _constant_of_shape(shape):
    node = helper.make_node("ConstantOfShape", ["dims"], ["y"], name="fill")
    return _model([node], [helper.make_tensor_value_info("dims", I64, shape)],
                  [helper.make_tensor_value_info("y", F, ["a", "b"])], opset=13)


REFUSED = {
    "batch_norm_training_one_output": (_batch_norm(["y"], training_mode=1), "node.output-count"),
    "batch_norm_inference_three_outputs": (_batch_norm(["y", "m", "v"]), "node.output-count"),
    "dropout_ratio_not_scalar": (_dropout([1]), "shape.rank-mismatch"),
    "dropout_training_mode_not_scalar": (_dropout([], [1]), "shape.rank-mismatch"),
    "constant_of_shape_matrix": (_constant_of_shape([2, 1]), "shape.rank-mismatch"),
    "constant_of_shape_scalar": (_constant_of_shape([]), "shape.rank-mismatch"),
}
ACCEPTED = {
    "batch_norm_inference": _batch_norm(["y"]),
    "batch_norm_training": _batch_norm(["y", "m", "v"], training_mode=1),
    # Trailing empty outputs are not counted (onnx would count them: we stay on the safe side).
    "batch_norm_inference_empty_trailing": _batch_norm(["y", "", ""], training_mode=0),
    "dropout_scalars": _dropout([], []),
    "constant_of_shape_list": _constant_of_shape([2]),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_by_onnxruntime_and_by_us(name, tmp_path):
    model, code = REFUSED[name]
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == [code], found
    assert found[0].path.startswith("graph/node[0]")


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_valid_forms_are_clean(name, tmp_path):
    model = ACCEPTED[name]
    if name != "batch_norm_inference_empty_trailing":
        assert onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_two_batch_norm_outputs_are_reported_once(tmp_path):
    found = our_errors(_batch_norm(["y", "m"], training_mode=1), tmp_path)
    assert [d.code for d in found] == ["node.output-count"], found


def test_before_opset_14_batch_norm_outputs_are_not_judged_by_mode(tmp_path):
    """Opset 9-13 BatchNormalization has no training_mode: five outputs are legal."""
    stats = [numpy_helper.from_array(np.ones(3, np.float32), n) for n in ("s", "b", "mean", "var")]
    outs = ["y", "m", "v", "sm", "sv"]
    node = helper.make_node("BatchNormalization", ["x", "s", "b", "mean", "var"], outs, name="bn")
    model = _model([node], [helper.make_tensor_value_info("x", F, [2, 3, 4])],
                   [helper.make_tensor_value_info(o, F, [2, 3, 4] if o == "y" else [3]) for o in outs], stats, opset=9)
    assert not [d for d in our_errors(model, tmp_path) if d.code == "node.output-count"]
