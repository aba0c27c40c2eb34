"""A search hit inside a Loop body takes the canvas into the body; Esc must
bring the user back to the main graph as they left it: the groups they
closed stay closed and the view stays where it was. The levels above the
body are the ones the user was on, not fresh ones laid out by default."""
from __future__ import annotations

from PySide6.QtCore import Qt

from viewer_helpers import open_model, wait_idle

BODY_NODE = "add_in_body"


def _write_model(path):
    import onnx
    from onnx import TensorProto, helper

    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "acc_in"], ["acc_sum"], name=BODY_NODE),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "loop_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_sum", TensorProto.FLOAT, [2])])
    # Two name scopes of two nodes each: groups the user can close.
    nodes = [helper.make_node("Relu", ["x"], ["a1"], name="/enc/Relu"),
             helper.make_node("Neg", ["a1"], ["a2"], name="/enc/Neg"),
             helper.make_node("Loop", ["trips", "cond", "a2"], ["looped"], name="/the_loop", body=body),
             helper.make_node("Relu", ["looped"], ["d1"], name="/dec/Relu"),
             helper.make_node("Neg", ["d1"], ["y"], name="/dec/Neg")]
    graph = helper.make_graph(
        nodes, "main",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("trips", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def test_esc_after_a_search_hit_in_a_body_restores_the_main_graph(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_model(tmp_path / "scoped_loop.onnx"))
    graph = window.graph
    assert ("enc",) in graph.scene.group_frames          # small: every group opens by default
    graph.collapse_group(("enc",))
    wait_idle(qtbot, window)
    assert ("enc",) not in graph.scene.group_frames
    graph.view.zoom_by(2.0)
    left_at = graph.view_state()

    window.show_search()
    window.search.edit.setText(BODY_NODE)
    window.search.activate_current()
    wait_idle(qtbot, window)
    assert graph.level.graph.parent_node.name == "/the_loop"
    body_node = graph.level.graph.nodes[0]
    assert graph.scene.item_for_node(body_node).isSelected()

    graph.view.setFocus()
    qtbot.keyClick(graph.view, Qt.Key_Escape)
    wait_idle(qtbot, window)
    assert len(graph.levels) == 1
    assert ("enc",) not in graph.scene.group_frames      # still closed, as the user left it
    assert ("dec",) in graph.scene.group_frames
    scale, x, y = graph.view_state()
    assert abs(scale - left_at[0]) < 1e-6 and abs(x - left_at[1]) < 1 and abs(y - left_at[2]) < 1


def test_a_second_hit_in_the_same_body_keeps_the_levels(qtbot, window, tmp_path):
    """From inside the body, a hit in the same body selects it there; the
    main graph below keeps its state too."""
    open_model(qtbot, window, _write_model(tmp_path / "scoped_loop.onnx"))
    graph = window.graph
    graph.collapse_group(("dec",))
    wait_idle(qtbot, window)
    main_level = graph.level
    window.search.edit.setText(BODY_NODE)
    window.search.activate_current()
    wait_idle(qtbot, window)
    window.search.edit.setText("keep_going")
    window.search.activate_current()
    wait_idle(qtbot, window)
    assert graph.levels[0] is main_level
    graph.go_back()
    wait_idle(qtbot, window)
    assert ("dec",) not in graph.scene.group_frames
