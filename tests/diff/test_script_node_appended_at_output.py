"""An edit script for a node appended at a graph output. A quantizer (and
any post-processing step) puts its node after the output and gives the
output's name to that node's result: resnet18 against its QDQ export left
7 differences 'not expressed' ('no value named 191_QuantizeLinear_Input').
The paired producer's output now takes B's new name first, so the appended
nodes can read it and the script replays to B."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import Document, load_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import replay


def _model(nodes, inits=()):
    f = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "g", [f[0]], [f[1]], list(inits))
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _replays(a, b) -> list:
    derived = derive_script(diff_models(a, b))
    assert derived.complete, derived.not_expressed
    doc = Document(a.clone())
    replay(doc, derived.script)
    assert diff_models(doc.model, b).equal
    return derived.script


def test_a_node_appended_at_the_output():
    a = _model([helper.make_node("Relu", ["x"], ["y"], name="relu")])
    b = _model([helper.make_node("Relu", ["x"], ["y_in"], name="relu"),
                helper.make_node("Neg", ["y_in"], ["y"], name="neg")])
    script = _replays(a, b)
    assert script[0] == {"kind": "rename_value", "old": "y", "new": "y_in", "graph": []}


def test_a_quantize_dequantize_pair_appended_at_the_output():
    scale = numpy_helper.from_array(np.array(0.1, np.float32), "s")
    zero = numpy_helper.from_array(np.array(0, np.int8), "z")
    a = _model([helper.make_node("Relu", ["x"], ["y"], name="relu")])
    b = _model([helper.make_node("Relu", ["x"], ["y_QuantizeLinear_Input"], name="relu"),
                helper.make_node("QuantizeLinear", ["y_QuantizeLinear_Input", "s", "z"], ["y_q"], name="q"),
                helper.make_node("DequantizeLinear", ["y_q", "s", "z"], ["y"], name="dq")], [scale, zero])
    _replays(a, b)
