"""Back and Forward over the places visited on the canvas (Alt+Left /
Alt+Right, the mouse's back and forward buttons, Go ▸ Back / Forward),
as in a browser: each place comes back with its open groups, view and
selection; a new navigation drops the places Forward would have reached;
a place an edit has removed is passed over with a message, never a crash.
The visit history is not the undo history."""
from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QKeySequence

from onnxstudio.ui.navigation import Place, VisitHistory
from viewer_helpers import open_model, wait_idle


def _body(name):
    from onnx import TensorProto, helper
    return helper.make_graph(
        [helper.make_node("Add", ["acc_in", "acc_in"], ["acc_sum"], name=f"{name}_add"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name=f"{name}_keep_going")],
        f"{name}_body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_sum", TensorProto.FLOAT, [2])])


def _write_model(path):
    """Two Loops: /first feeds the output; /side's result is read by
    nothing, so an edit can remove it (and its body)."""
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("Loop", ["trips", "cond", "a"], ["looped"], name="/first", body=_body("first")),
             helper.make_node("Loop", ["trips", "cond", "a"], ["unused"], name="/side", body=_body("side")),
             helper.make_node("Neg", ["looped"], ["y"], name="neg")]
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


def _node(graph, name):
    return next(n for n in graph.nodes if n.name == name)


def _select(panel, node):
    panel.scene.clearSelection()
    panel.scene.item_for_node(node).setSelected(True)


def _selected_nodes(panel):
    return [item.ref.node for item in panel.scene.selectedItems() if getattr(item.ref, "node", None) is not None]


def _enter(qtbot, window, loop_name):
    panel = window.graph
    panel.enter_graph(_node(window.model.graph, loop_name).attributes["body"].value)
    wait_idle(qtbot, window)
    return panel.level.graph


def _view_action(window, shortcut):
    return next(a for a in window.go_menu.actions() if a.shortcut() == QKeySequence(shortcut))


def test_history_keeps_order_and_drops_forward_places():
    history = VisitHistory()
    a, b, c, d = (Place([object()]) for _ in range(4))
    history.reset(a)
    history.visit(b)
    history.visit(c)
    assert history.go(-1, lambda p: True) == (b, [])
    history.visit(d)                     # a new navigation: c can no longer be reached
    assert history.places == [a, b, d] and not history.can_go(1)
    place, dropped = history.go(-1, lambda p: p is not b)      # b was removed by an edit
    assert place is a and dropped == [b] and history.places == [a, d]
    assert history.go(1, lambda p: True) == (d, [])
    assert history.go(1, lambda p: True) == (None, []) and history.current is d


def test_back_and_forward_bring_back_a_body_with_its_selection(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    back, forward = _view_action(window, "Alt+Left"), _view_action(window, "Alt+Right")
    assert back.text().replace("&", "") == "Back" and forward.text().replace("&", "") == "Forward"
    assert not back.isEnabled() and not forward.isEnabled()
    _select(panel, _node(main, "neg"))

    body = _enter(qtbot, window, "/first")
    _select(panel, _node(body, "first_add"))
    panel.view.zoom_by(1.7)
    body_view = panel.view_state()
    assert back.isEnabled() and not forward.isEnabled()

    back.trigger()
    wait_idle(qtbot, window)
    assert panel.level.graph is main and len(panel.levels) == 1
    assert _selected_nodes(panel) == [_node(main, "neg")]      # as the user left the main graph
    assert forward.isEnabled()

    forward.trigger()
    wait_idle(qtbot, window)
    assert panel.level.graph is body and len(panel.levels) == 2
    assert _selected_nodes(panel) == [_node(body, "first_add")]
    assert window.properties.browser.toPlainText().count("first_add") >= 1     # Properties follows
    scale, x, y = panel.view_state()
    assert abs(scale - body_view[0]) < 1e-6 and abs(x - body_view[1]) < 1 and abs(y - body_view[2]) < 1
    assert not forward.isEnabled()


def test_esc_is_a_place_too_and_a_new_visit_drops_forward(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    first = _enter(qtbot, window, "/first")
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key_Escape)           # up to the main graph: a new place
    wait_idle(qtbot, window)
    panel.history_back()                                 # back into the body Esc left
    wait_idle(qtbot, window)
    assert panel.level.graph is first
    panel.history_back()
    wait_idle(qtbot, window)
    assert panel.level.graph is main and panel.can_go_in_history(1)

    side = _enter(qtbot, window, "/side")                # a new navigation from the main graph
    assert not panel.can_go_in_history(1)
    panel.history_back()
    wait_idle(qtbot, window)
    panel.history_forward()
    wait_idle(qtbot, window)
    assert panel.level.graph is side                     # not /first's body


def test_keys_and_mouse_buttons_on_the_canvas(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    body = _enter(qtbot, window, "/first")
    window.activateWindow()
    panel.view.setFocus()
    qtbot.keyClick(panel.view, Qt.Key_Left, Qt.AltModifier)
    wait_idle(qtbot, window)
    assert panel.level.graph is main
    qtbot.keyClick(panel.view, Qt.Key_Right, Qt.AltModifier)
    wait_idle(qtbot, window)
    assert panel.level.graph is body
    middle = panel.view.viewport().rect().center()
    # A click (press and release): a press left alone stays held in QTest's
    # mouse state and spoils the clicks of the tests after this one.
    qtbot.mouseClick(panel.view.viewport(), Qt.BackButton, pos=QPoint(middle))
    wait_idle(qtbot, window)
    assert panel.level.graph is main
    qtbot.mouseClick(panel.view.viewport(), Qt.ForwardButton, pos=QPoint(middle))
    wait_idle(qtbot, window)
    assert panel.level.graph is body


def test_a_place_an_edit_removed_is_skipped_with_a_message(qtbot, window, tmp_path):
    from onnxstudio.core.edits import RemoveNode
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    _enter(qtbot, window, "/side")
    panel.history_back()
    wait_idle(qtbot, window)
    window.qdoc.apply(RemoveNode("/side"))               # its body goes with it
    wait_idle(qtbot, window)
    messages = []
    panel.warning.connect(messages.append)
    panel.history_forward()
    wait_idle(qtbot, window)
    assert panel.level.graph is main and len(panel.levels) == 1
    assert len(messages) == 1 and "removed" in messages[0] and "/side" in messages[0]
    assert not panel.can_go_in_history(1)

    window.qdoc.undo()                                   # the Loop is back: a new visit works
    wait_idle(qtbot, window)
    body = _enter(qtbot, window, "/side")
    panel.history_back()
    wait_idle(qtbot, window)
    panel.history_forward()
    wait_idle(qtbot, window)
    assert panel.level.graph is body

    panel.history_back()
    wait_idle(qtbot, window)
    window.qdoc.redo()                                   # removed again, by the history of edits
    wait_idle(qtbot, window)
    assert panel.can_go_in_history(1)                    # found out only when asked: Forward
    panel.history_forward()
    wait_idle(qtbot, window)
    assert panel.level.graph is main and len(messages) == 2 and not panel.can_go_in_history(1)


def test_the_window_shortcuts_work_away_from_the_canvas(qtbot, window, tmp_path):
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    body = _enter(qtbot, window, "/first")
    window.show_search()                                  # the search box has the focus
    qtbot.waitUntil(lambda: window.search.edit.hasFocus() or window.focusWidget() is not None)
    target = window.focusWidget() or window
    assert target is not panel.view
    qtbot.keyClick(target, Qt.Key_Left, Qt.AltModifier)
    wait_idle(qtbot, window)
    assert panel.level.graph is main
    qtbot.keyClick(target, Qt.Key_Right, Qt.AltModifier)
    wait_idle(qtbot, window)
    assert panel.level.graph is body


def test_back_out_of_a_body_an_edit_removed_while_shown(qtbot, window, tmp_path):
    from onnxstudio.core.edits import RemoveNode
    open_model(qtbot, window, _write_model(tmp_path / "loops.onnx"))
    panel, main = window.graph, window.model.graph
    _enter(qtbot, window, "/first")
    _enter(qtbot, window, "/side")                       # /first's body, then /side's
    window.qdoc.apply(RemoveNode("/side"))               # the body shown goes
    wait_idle(qtbot, window)
    panel.history_back()                                 # /first's body is still there
    wait_idle(qtbot, window)
    assert panel.level.graph is _node(main, "/first").attributes["body"].value
    panel.history_forward()                              # refused: gone
    wait_idle(qtbot, window)
    assert panel.level.graph is _node(main, "/first").attributes["body"].value
    assert not panel.can_go_in_history(1)
