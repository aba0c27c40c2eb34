"""Journey: stepping silero_vad like a debugger with the keys a user presses
(F10 Step Over, F11 Step Into, Shift+F11 Step Out, Ctrl+Shift+F5 Restart):
the If is one step, or entered and left; Constants are passed by unless
asked for; Properties shows the current node unless the user selected
something else."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle

MODEL = SHARED_MODELS / "silero_vad" / "model.onnx"


def _press(qtbot, win, key, modifiers=Qt.NoModifier):
    win.activateWindow()
    win.graph.view.setFocus()
    qtbot.keyClick(win.graph.view, key, modifiers)
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def _open(qtbot, window):
    open_model(qtbot, window, MODEL)
    with np.load(MODEL.parent / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    window.run_ui.controller.feeds_source = lambda: feeds
    graph = window.model.graph
    top = list(graph.nodes)
    if0 = next(n for n in top if n.op_type == "If")
    return window.run_ui.controller.debug, graph, if0, top[top.index(if0) + 1]


def _shown(window):
    """The node the Properties dock shows."""
    current = window.properties.current
    return getattr(current, "node", current)


def test_f10_steps_over_the_if_f11_enters_it_shift_f11_leaves_it(qtbot, window):
    debug, graph, if0, after = _open(qtbot, window)
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    assert debug.current.op_type == "Equal"            # the leading Constant is passed by ...
    constant = list(graph.nodes)[0]
    assert constant.op_type == "Constant" and debug.value_of(constant.outputs[0]) is not None   # ... and ran
    _press(qtbot, window, Qt.Key_F10)
    assert debug.current is if0 and _shown(window) is if0
    _press(qtbot, window, Qt.Key_F10)                  # the If, whole: the canvas stays at the top level
    assert debug.current is after and window.graph.level.graph is graph
    assert all(v.name in debug.values for v in if0.outputs if v is not None)
    assert _shown(window) is after

    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    _press(qtbot, window, Qt.Key_F10)
    _press(qtbot, window, Qt.Key_F11)                  # into the If: the canvas shows its branch
    inside = debug.current
    assert inside.graph.parent_node is if0 and inside.op_type != "Constant"
    assert window.graph.level.graph is inside.graph
    assert _shown(window) is inside
    assert "Entered" in window.run_ui.dock_widget.status.text()
    _press(qtbot, window, Qt.Key_F11)
    assert debug.nodes_run[-1] is if0 and debug.current is not inside
    _press(qtbot, window, Qt.Key_F11, Qt.ShiftModifier)   # out: after the If, at the top level
    assert debug.current is after and window.graph.level.graph is graph
    assert _shown(window) is after
    assert "Finished" in window.run_ui.dock_widget.status.text()


def test_constants_are_steps_when_the_run_menu_says_so(qtbot, window):
    debug, graph, if0, after = _open(qtbot, window)
    r = window.run_ui
    assert not r.constants_action.isChecked() and not r.shapes_action.isChecked()
    r.constants_action.trigger()
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    assert debug.current.op_type == "Constant"
    _press(qtbot, window, Qt.Key_F10)
    _press(qtbot, window, Qt.Key_F10)
    _press(qtbot, window, Qt.Key_F11)
    assert debug.current.graph.parent_node is if0 and debug.current.op_type == "Constant"


def test_properties_keeps_what_the_user_selected(qtbot, window):
    debug, graph, if0, after = _open(qtbot, window)
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    scene = window.graph.scene
    scene.clearSelection()
    scene.item_for_node(after).setSelected(True)       # the user looks at another node
    _press(qtbot, window, Qt.Key_F10)
    assert debug.current is if0 and _shown(window) is after
    scene.clearSelection()                             # cleared: Properties follows again
    _press(qtbot, window, Qt.Key_F10)
    assert debug.current is after and _shown(window) is after
    assert [i.ref.node for i in scene.selectedItems()] == [after]


def test_the_three_steps_are_in_the_menus_with_their_keys(qtbot, window):
    debug, graph, if0, after = _open(qtbot, window)
    r = window.run_ui
    keys = {a.shortcut().toString() for a in (r.step_action, r.step_into_action, r.step_out_action)}
    assert keys == {"F10", "F11", "Shift+F11"}
    toolbar = r.toolbar.actions()
    assert r.step_into_action in toolbar and r.step_out_action in toolbar
    shortcuts = [a.shortcut().toString() for a in window.findChildren(type(r.step_action))
                 if not a.shortcut().isEmpty()]
    for key in ("F10", "F11", "Shift+F11", "Ctrl+F10", "F5", "F9"):
        assert shortcuts.count(key) == 1, key
    from PySide6.QtWidgets import QMenu
    menu = QMenu()
    r._extend_menu(window.graph.scene.item_for_node(after), menu)
    assert {r.step_action, r.step_into_action, r.step_out_action} <= set(menu.actions())
