"""Values inside a function's body after Ctrl+R (issue 22), shown like an
If/Loop body's: entering the function from the canvas shows the last call's
values on its edges, a tag's tooltip says which call they are from.
pytest-qt, offscreen."""
import numpy as np

from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run.overlay import ValueTag


def write_function_model(path):
    """x -> AddTwice -> AddTwice -> Neg -> y, AddTwice a local function (a + 1 + 1)."""
    import onnx
    from onnx import TensorProto, helper
    one = helper.make_node("Constant", [], ["k"], name="fn_one",
                           value=helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]))
    fn = helper.make_function("local", "AddTwice", ["a"], ["c"],
                              [one, helper.make_node("Add", ["a", "k"], ["b"], name="fn_add"),
                               helper.make_node("Add", ["b", "k"], ["c"], name="fn_add_again")],
                              [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("AddTwice", ["x"], ["y0"], name="call", domain="local"),
                               helper.make_node("AddTwice", ["y0"], ["y1"], name="call_again", domain="local"),
                               helper.make_node("Neg", ["y1"], ["y"], name="post")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = helper.make_model(graph, functions=[fn], ir_version=8,
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    onnx.save(model, str(path))
    return path


def test_a_function_body_shows_the_values_of_its_last_call(qtbot, window, tmp_path):
    open_model(qtbot, window, write_function_model(tmp_path / "fn.onnx"))
    r = window.run_ui
    r.controller.feeds_source = lambda: {"x": np.array([1.0, 2.0], np.float32)}
    r.run_action.trigger()                                   # Ctrl+R
    assert r.controller.wait(60_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    body = r.controller.model.function("local", "AddTwice").graph
    window.graph.enter_graph(body)
    qtbot.waitUntil(lambda: window.graph.level.graph is body and bool(window.graph.scene.edge_items), timeout=60_000)
    wait_idle(qtbot, window)
    tags = {t.name: t for t in r.overlay.items if isinstance(t, ValueTag)}
    assert tags["b"].value.tolist() == [4, 5]               # the second call's, on [3, 4]
    assert "from the last of 2 runs of this body (iteration 1)" in tags["b"].detail()
    # every call is kept with "every iteration": the first one's values on request
    r.dock_widget.iterations_box.setChecked(True)
    r.controller.debug.values.clear()
    r.run_action.trigger()
    assert r.controller.wait(60_000)
    wait_idle(qtbot, window)
    r.dock_widget.iteration_choice.spin.setValue(0)
    tags = {t.name: t for t in r.overlay.items if isinstance(t, ValueTag)}
    assert tags["b"].value.tolist() == [2, 3]
