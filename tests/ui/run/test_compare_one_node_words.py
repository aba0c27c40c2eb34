"""An extracted failing subgraph is often one node and the constants it
reads: compared with onnxruntime, the Compare dock said "Own errors: 1
nodes that compute" (seen on a BERT LayerNormalization extracted in the app)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load_bytes
from onnxstudio.core.exec.compare import compare_with_onnxruntime
from onnxstudio.ui.run.compare_view import CompareView


def _report(nodes_computing: int):
    nodes = [helper.make_node("Identity", ["w"], ["w_copy"], name="copy")]
    last = "x"
    for i in range(nodes_computing):
        nodes.append(helper.make_node("Add", [last, "w_copy"], [f"y{i}"], name=f"add{i}"))
        last = f"y{i}"
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info(last, TensorProto.FLOAT, [3])],
                              [numpy_helper.from_array(np.arange(3, dtype=np.float32), "w")])
    model = load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    return compare_with_onnxruntime(model, {"x": np.ones(3, np.float32)})


def test_one_node_that_computes_is_said_in_the_singular(qtbot):
    pytest.importorskip("onnxruntime")
    view = CompareView()
    qtbot.addWidget(view)
    view.set_report(_report(1))
    assert "Own errors: 1 node that computes (1 constants and shape-only nodes skipped)." in view.summary.text()
    view.set_report(_report(2))
    assert "Own errors: 2 nodes that compute (1 constants and shape-only nodes skipped)." in view.summary.text()
