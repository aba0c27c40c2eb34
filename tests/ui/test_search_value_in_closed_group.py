"""A search hit on a value made inside a closed group: Enter opens the
group and selects the value's edge, as it does for a node. It did nothing
(no group opened, nothing selected) on bert_12layer_narrow's closed layers:
only nodes opened the groups hiding them."""
from __future__ import annotations

from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="/enc/Relu"),
             helper.make_node("Neg", ["a"], ["enc_out"], name="/enc/Neg"),
             helper.make_node("Relu", ["enc_out"], ["d"], name="/dec/Relu"),
             helper.make_node("Neg", ["d"], ["y"], name="/dec/Neg")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def _activate(window, qtbot, text, value_name):
    window.show_search()
    window.search.edit.setText(text)
    results = window.search.results
    row = next(i for i in range(results.count())
               if results.item(i).data(Qt.UserRole).obj.name == value_name
               and results.item(i).data(Qt.UserRole).kind == "value")
    results.setCurrentRow(row)
    window.search.activate_current()
    wait_idle(qtbot, window)


def test_value_hit_opens_the_group_of_its_producer(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "scopes.onnx"))
    graph = window.graph
    graph.collapse_group(("enc",))
    wait_idle(qtbot, window)
    graph.collapse_group(("dec",))
    wait_idle(qtbot, window)
    assert ("enc",) not in graph.scene.group_frames
    _activate(window, qtbot, "a", "a")          # made and read inside /enc
    assert ("enc",) in graph.scene.group_frames
    selected = graph.scene.selectedItems()
    assert selected and all(item.ref.value.name == "a" for item in selected)
    assert window.properties.current is not None
    assert "a" in window.properties.browser.toPlainText().split()


def test_graph_input_hit_opens_the_group_reading_it(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "scopes.onnx"))
    graph = window.graph
    graph.collapse_group(("enc",))
    wait_idle(qtbot, window)
    _activate(window, qtbot, "x", "x")          # a graph input read inside /enc
    assert ("enc",) in graph.scene.group_frames
    assert any(item.ref.value is not None and item.ref.value.name == "x"
               for item in graph.scene.selectedItems())
