"""A small bool tensor attribute (a Constant's value) reads true/false in
the Properties summary, as on its box and in the tensor editor; it read
Python's [True, False]."""
from __future__ import annotations

from viewer_helpers import open_model


def test_constant_bool_value_reads_lowercase(qtbot, window, tmp_path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["flags"], name="const",
                          value=helper.make_tensor("v", TensorProto.BOOL, [2], [True, False])),
         helper.make_node("And", ["x", "flags"], ["y"], name="and")], "g",
        [helper.make_tensor_value_info("x", TensorProto.BOOL, [2])],
        [helper.make_tensor_value_info("y", TensorProto.BOOL, [2])])
    path = tmp_path / "const.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    open_model(qtbot, window, path)
    const = window.model.graph.nodes[0]
    window.properties.show_node(const)
    text = window.properties.browser.toPlainText()
    assert "= [true, false]" in text and "True" not in text
