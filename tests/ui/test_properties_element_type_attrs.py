"""An INT attribute that holds an element type (Cast's "to") is shown by
the type's name in the Properties summary, as the box on the canvas shows
it ("to = bool"); the summary said "9 int", a number the user must look up."""
from __future__ import annotations


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["y"], name="to_bool", to=TensorProto.BOOL),
         helper.make_node("Flatten", ["y"], ["z"], name="flat", axis=1)],
        "g", [helper.make_tensor_value_info("x", TensorProto.INT64, [2, 3])],
        [helper.make_tensor_value_info("z", TensorProto.BOOL, [2, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_cast_to_is_named_in_the_summary(qtbot, window, tmp_path):
    from viewer_helpers import open_model
    open_model(qtbot, window, _write(tmp_path / "cast.onnx"))
    cast = next(n for n in window.model.graph.nodes if n.op_type == "Cast")
    box = window.graph.scene.item_for_node(cast)
    assert "to = bool" in box.lines
    window.properties.show_node(cast)
    text = window.properties.browser.toPlainText()
    assert "bool (9)" in text
    flat = next(n for n in window.model.graph.nodes if n.op_type == "Flatten")
    window.properties.show_node(flat)
    text = window.properties.browser.toPlainText()
    assert "1 int" in text and "(" not in text.split("axis")[1]       # other ints stay numbers
