"""A value the file declares with unknown dims (torch's dynamo exports
write value_info such as int64[?,?,?,?]) shows on its edge and in the
Properties panel what inference knows about those dims (int64[batch,1,1,seq]),
as `onnxstudio info --shapes` says; the edge showed the bare declaration.
Dims the file names stay as written; a graph input's unknown dims stay
unknown (they are the caller's choice, not something inferred)."""
from __future__ import annotations

from viewer_helpers import open_model, wait_idle


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], name="relu"),
         helper.make_node("Neg", ["r"], ["n"], name="neg"),
         helper.make_node("Abs", ["n"], ["y"], name="abs")],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
        value_info=[helper.make_tensor_value_info("r", TensorProto.FLOAT, [None, None]),
                    helper.make_tensor_value_info("n", TensorProto.FLOAT, ["mine", None])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _edge_text(window, name):
    items = [e for e in window.graph.scene.edge_items.values()
             if e.ref.value is not None and e.ref.value.name == name]
    assert items
    return items[0].label_detail


def test_unknown_declared_dims_show_what_inference_knows(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "declared.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    graph = window.model.graph
    assert str(graph.get_value("r").own_type) == "float[?,?]"
    assert str(window.qdoc.document.type_of(graph.get_value("r"))) == "float[batch,3]"
    qtbot.waitUntil(lambda: _edge_text(window, "r") == "float[batch,3]", timeout=10_000)
    assert _edge_text(window, "n") == "float[mine,3]"          # the file's own name kept
    assert _edge_text(window, "x") == "float[batch,3]"
    window.properties.show_value(graph.get_value("r"))
    assert "float[batch,3]" in window.properties.browser.toPlainText()


def test_a_graph_inputs_unknown_dims_stay_unknown(qtbot, window, tmp_path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, 3])])
    path = tmp_path / "input.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    assert _edge_text(window, "x") == "float[?,3]"
