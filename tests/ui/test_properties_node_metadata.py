"""The Properties summary shows a node's metadata_props: torch's dynamo
exporter writes there the module path, the FX node and the Python stack
trace that made the node, which say where in the model's code it came
from. Before, only the model's metadata was shown."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from viewer_helpers import open_model

TRACE = ('File "model.py", line 12, in forward\n    x = self.norm(x)\n'
         '  File "torch/nn/modules/normalization.py", line 228, in forward\n    return F.layer_norm(x)')


def _model(path) -> None:
    relu = helper.make_node("Relu", ["x"], ["r"], name="node_relu")
    for key, value in (("pkg.torch.onnx.stack_trace", TRACE), ("namespace", "m.block.act: torch.nn.ReLU")):
        entry = relu.metadata_props.add()
        entry.key, entry.value = key, value
    neg = helper.make_node("Neg", ["r"], ["y"], name="node_neg")
    graph = helper.make_graph([relu, neg], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.save(model, path)


def test_a_nodes_metadata_is_in_its_summary_with_the_trace_last(qtbot, window, tmp_path):
    path = tmp_path / "traced.onnx"
    _model(path)
    open_model(qtbot, window, path)
    relu, neg = window.model.graph.nodes
    assert window.graph.select_object(relu)
    text = window.properties.browser.toPlainText()
    assert "Metadata" in text and "m.block.act: torch.nn.ReLU" in text
    # The stack trace keeps its lines and comes after the one-line entries.
    assert 'File "model.py", line 12, in forward\n    x = self.norm(x)' in text
    assert text.index("namespace") < text.index("pkg.torch.onnx.stack_trace")

    assert window.graph.select_object(neg)
    assert "Metadata" not in window.properties.browser.toPlainText()
