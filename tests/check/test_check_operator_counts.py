"""Rules of operators that read both an attribute and the node's actuals,
which the lean pass cannot key by attributes alone (operator_rules._COUNTED):
each case is rejected by onnx.checker (full_check), and its valid forms are
clean for both."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import ERROR, check

F = TensorProto.FLOAT


def _split(inputs, opset, **attrs):
    nodes = [helper.make_node("Split", inputs, ["a", "b"], name="split", axis=0, **attrs)]
    inits = [numpy_helper.from_array(np.array([1, 1], np.int64), "sizes")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [2])],
                          [helper.make_tensor_value_info("a", F, [1]), helper.make_tensor_value_info("b", F, [1])],
                          initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def _optional(with_input, with_type):
    attrs = {"type": helper.make_tensor_type_proto(F, [2])} if with_type else {}
    nodes = [helper.make_node("Optional", ["x"] if with_input else [], ["o"], name="opt", **attrs)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [2])],
                          [helper.make_value_info("o", helper.make_optional_type_proto(
                              helper.make_tensor_type_proto(F, [2])))])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])


CASES = [
    ("split18 neither", _split(["x"], 18), "node.inputs-exclusive", 'graph/node[0] Split "split"'),
    ("split18 both", _split(["x", "sizes"], 18, num_outputs=2), "node.inputs-exclusive",
     'graph/node[0] Split "split"/attribute "num_outputs"'),
    ("optional neither", _optional(False, False), "attr.required-missing", 'graph/node[0] Optional "opt"'),
]
VALID = [
    ("split18 sizes", _split(["x", "sizes"], 18)),
    ("split18 count", _split(["x"], 18, num_outputs=2)),
    ("split13 equal parts", _split(["x"], 13)),
    ("optional of input", _optional(True, False)),
    ("optional empty", _optional(False, True)),
]


def _errors(model, tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    found = {(d.code, d.path) for d in check(path) if d.severity == ERROR}
    assert found == {(d.code, d.path) for d in check(core.load(path), use_inference=False) if d.severity == ERROR}
    return found


@pytest.mark.parametrize("name,model,code,where", CASES, ids=[c[0] for c in CASES])
def test_onnx_and_we_reject(name, model, code, where, tmp_path):
    with pytest.raises((onnx.checker.ValidationError, onnx.shape_inference.InferenceError)):
        onnx.checker.check_model(model, full_check=True)
    assert (code, where) in _errors(model, tmp_path)


@pytest.mark.parametrize("name,model", VALID, ids=[c[0] for c in VALID])
def test_valid_forms_are_clean(name, model, tmp_path):
    onnx.checker.check_model(model, full_check=True)
    assert not _errors(model, tmp_path)


def test_two_splits_with_the_same_attributes_are_judged_apart(tmp_path):
    """The lean pass keys a node's verdict by its attributes: a clean Split
    must not clear a later one with other actuals."""
    m = _split(["x", "sizes"], 18)
    m.graph.node.append(helper.make_node("Split", ["x"], ["c", "d"], name="second", axis=0))
    assert ("node.inputs-exclusive", 'graph/node[1] Split "second"') in _errors(m, tmp_path)
