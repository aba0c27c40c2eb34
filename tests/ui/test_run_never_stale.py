"""Journey: stepping with the keys (F10, F11, Shift+F11, F9, F5) while the
inputs and the model change under the run. After each change and each
step, every value the canvas tags and the Tensor Inspector show as current
must be the one a fresh run of the model as it is now, on the inputs as
they are now, gives (a plain keeping Session is the oracle: the same
executor at the app's BLAS thread count, so bit for bit)."""
from __future__ import annotations

import os

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from onnxstudio.core.edits import SetAttribute, SetInitializer
from onnxstudio.core.exec.session import Session
from onnxstudio.core.exec.threads import limited_blas_threads
from onnxstudio.core.ir import AttrType
from onnxstudio.ui.run.worker_yields import blas_threads_for_a_job
from viewer_helpers import open_model, wait_idle

from shared_models import SHARED_MODELS

MODEL = SHARED_MODELS / "silero_vad" / "model.onnx"
SHOTS = os.environ.get("ONNXSTUDIO_TEST_SHOTS")     # a folder to save screenshots in (looked at by hand)


def _press(qtbot, win, key, modifiers=Qt.NoModifier):
    win.activateWindow()           # (a shortcut needs its window active: under Xvfb that comes later)
    qtbot.waitUntil(lambda: QApplication.activeWindow() is win, timeout=10_000)
    win.graph.view.setFocus()
    qtbot.keyClick(win.graph.view, key, modifiers)
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def _shot(win, name):
    if SHOTS:
        win.grab().save(os.path.join(SHOTS, name + ".png"))


def _oracle(win) -> dict:
    """Every value of a fresh run of the document's model on the inputs the
    Run dock makes now, with as many BLAS threads as the app's run jobs use:
    on some CPUs the count changes a product's last bits
    (core/exec/threads.py thread_count_keeps_bits)."""
    model = win.model
    session = Session(model, keep=True)
    feeds = win.run_ui.inputs.make_feeds()
    with limited_blas_threads(blas_threads_for_a_job()):
        outputs = session.run(feeds)
    return {**feeds, **session.values, **outputs}


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))


def _stale_on_canvas(win, truth: dict) -> list:
    """Names of the main graph whose canvas tag shows, not marked stale, an array other than the oracle's."""
    overlay = win.run_ui.overlay
    if win.graph.level.graph is not win.model.graph:
        return []
    wrong = []
    for tag in overlay.items:
        name = getattr(tag, "name", None)
        value = getattr(tag, "value", None)
        if name is None or value is None or name not in truth or getattr(tag, "stale", False):
            continue
        if not _same(value, truth[name]):
            wrong.append(name)
    return wrong


def _inspector_stale(win, truth: dict) -> bool:
    """True when the inspector shows, without saying it is stale, an array other than the oracle's."""
    inspector = win.run_ui.inspector
    if inspector.array is None or inspector.name not in truth:
        return False
    return not _same(inspector.array, truth[inspector.name]) and inspector.note.isHidden()


def _check(win, truth, where):
    c = win.run_ui.controller
    if not c.inputs_stale:       # (else they are held, and shown as what they are: see the tags and the inspector)
        wrong = [k for k, v in c.debug.values.items() if k in truth and not _same(v, truth[k])]
        assert not wrong, f"{where}: the run holds values of an earlier model or inputs: {wrong[:5]}"
    assert not _stale_on_canvas(win, truth), f"{where}: canvas tags show old values"
    assert not _inspector_stale(win, truth), f"{where}: the inspector shows an old value as current"


def _inspect_last(win):
    """Inspect the newest value of the main graph (what a user clicks after a step)."""
    debug = win.run_ui.controller.debug
    node = debug.nodes_run[-1]
    value = next(v for v in node.outputs if v is not None and v.name in debug.values)
    assert win.run_ui.inspect(value)
    return value


BERT = SHARED_MODELS / "bert_small" / "model.onnx"


def test_steps_after_new_inputs_and_edits_show_only_current_values(qtbot, window):
    open_model(qtbot, window, BERT)
    r = window.run_ui
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)     # restart
    for _ in range(6):
        _press(qtbot, window, Qt.Key_F10)
    truth = _oracle(window)
    _inspect_last(window)
    wait_idle(qtbot, window)
    _check(window, truth, "after six steps")
    _shot(window, "1_stepped")

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)          # new inputs mid-session
    wait_idle(qtbot, window)
    _shot(window, "2_new_seed")
    truth = _oracle(window)
    # What is on screen is of the inputs before: every tag and the inspector say so ...
    tags = [t for t in r.overlay.items if getattr(t, "name", None) in truth and not _same(t.value, truth[t.name])]
    assert tags and all(t.stale for t in tags)
    assert r.inspector.note.isVisible() and "inputs before your last change" in r.inspector.note.text()
    assert "ended the stepping run" in r.dock_widget.status.text()
    _check(window, truth, "after the inputs changed")
    _press(qtbot, window, Qt.Key_F10)
    _inspect_last(window)
    wait_idle(qtbot, window)
    _shot(window, "3_step_after_new_seed")
    _check(window, truth, "a step after the inputs changed")
    # ... and the step started again from the first node, on the new inputs: nothing is stale now.
    debug = r.controller.debug
    assert not r.controller.inputs_stale and not any(getattr(t, "stale", False) for t in r.overlay.items)
    assert debug.nodes_run[0] is list(window.model.graph.nodes)[0]

    debug = r.controller.debug
    ln = next(n for n in window.model.graph.nodes if n.op_type == "LayerNormalization" and debug.can_reach(n))
    r.show_node(ln, select=False)                              # its group opened
    wait_idle(qtbot, window)
    window.graph.scene.clearSelection()
    window.graph.scene.item_for_node(ln).setSelected(True)
    _press(qtbot, window, Qt.Key_F9)                             # breakpoint
    assert ln in debug.breakpoints
    _press(qtbot, window, Qt.Key_F5)                             # continue to it
    assert debug.current is ln
    _check(window, truth, "at the breakpoint")

    assert window.qdoc.apply(SetAttribute(ln.name, "epsilon", AttrType.FLOAT, 0.5))    # an attribute, mid-session
    wait_idle(qtbot, window)
    truth = _oracle(window)
    _check(window, truth, "after editing an attribute")
    _press(qtbot, window, Qt.Key_F5)
    _inspect_last(window)
    wait_idle(qtbot, window)
    _check(window, truth, "continued after editing an attribute")
    _shot(window, "4_after_attribute")

    weight = next(v for v in ln.inputs[1:] if v is not None and v.const is not None)
    scaled = weight.const.numpy() * 3
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    for _ in range(4):
        _press(qtbot, window, Qt.Key_F10)
    assert window.qdoc.apply(SetInitializer(weight.name, scaled))                      # an initializer
    wait_idle(qtbot, window)
    truth = _oracle(window)
    _check(window, truth, "after editing an initializer")
    for _ in range(3):
        _press(qtbot, window, Qt.Key_F10)
        _check(window, truth, "stepping after editing an initializer")
    r.run_all()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    _check(window, truth, "a run after the edits")
    _shot(window, "5_run_after_edits")


def _truth_at_level(win) -> dict:
    """The oracle's values of the graph the canvas shows (a body's from a run keeping them)."""
    from onnxstudio.core.exec.debug import DebugRun
    plain = DebugRun(win.model)
    plain.keep_body_values = True
    outputs = plain.run(win.run_ui.inputs.make_feeds())
    graph = win.graph.level.graph
    if graph is win.model.graph:
        return {**plain.values, **outputs}
    return plain.kept.of_graph(graph)


def _tags_wrong(win, truth: dict) -> list:
    """Tags of the level shown that show, not marked stale, an array other than the oracle's."""
    return [t.name for t in win.run_ui.overlay.items
            if getattr(t, "name", None) in truth and not getattr(t, "stale", False)
            and not _same(t.value, truth[t.name])]


def test_inside_a_body_new_inputs_and_an_edit_leave_no_old_value_shown_as_current(qtbot, window):
    open_model(qtbot, window, MODEL)
    r = window.run_ui
    graph = window.model.graph
    if0 = next(n for n in graph.nodes if n.op_type == "If")
    _press(qtbot, window, Qt.Key_F5, Qt.ControlModifier | Qt.ShiftModifier)
    _press(qtbot, window, Qt.Key_F10)
    assert r.controller.debug.current is if0
    _press(qtbot, window, Qt.Key_F11)                  # into the branch taken
    body = window.graph.level.graph
    assert body.parent_node is if0
    for _ in range(12):
        _press(qtbot, window, Qt.Key_F10)
    truth = _truth_at_level(window)
    tags = [t for t in r.overlay.items if getattr(t, "name", None) in truth]
    assert len(tags) > 3 and not _tags_wrong(window, truth)
    _shot(window, "6_in_body")

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)  # new inputs while walking the body
    wait_idle(qtbot, window)
    truth = _truth_at_level(window)
    assert all(t.stale for t in r.overlay.items if getattr(t, "name", None) in truth)
    assert not _tags_wrong(window, truth)
    _shot(window, "7_in_body_new_seed")
    _press(qtbot, window, Qt.Key_F10)                  # from the first node again, on the new inputs
    _press(qtbot, window, Qt.Key_F11)
    assert window.graph.level.graph is body
    for _ in range(12):
        _press(qtbot, window, Qt.Key_F10)
    truth = _truth_at_level(window)
    assert not r.controller.inputs_stale and not _tags_wrong(window, truth)

    # An edit inside the body: a float constant read by the walked nodes, scaled.
    constant = next(n for n in body.nodes if n.op_type == "Constant" and n.attributes["value"].value.numpy().dtype
                    == np.float32 and n.attributes["value"].value.numpy().size > 1)
    scaled = constant.attributes["value"].value.numpy() * 0.5
    from onnxstudio.core.edits.refs import graph_path, node_ref
    assert window.qdoc.apply(SetAttribute(node_ref(constant), "value", AttrType.TENSOR, scaled,
                                          graph=graph_path(body)))
    wait_idle(qtbot, window)
    truth = _truth_at_level(window) if window.graph.level.graph is not graph else _oracle(window)
    assert not _tags_wrong(window, truth)
    _shot(window, "8_after_body_edit")
    _press(qtbot, window, Qt.Key_F10)
    _press(qtbot, window, Qt.Key_F11)
    for _ in range(12):
        _press(qtbot, window, Qt.Key_F10)
    truth = _truth_at_level(window)
    assert not _tags_wrong(window, truth)
    _shot(window, "9_stepped_after_body_edit")


def test_the_inspector_compares_no_value_with_onnxruntime_of_the_inputs_before(qtbot, window, tmp_path):
    import shutil

    from onnxstudio.resources import sample_path
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    r = window.run_ui
    gemm = next(n for n in window.model.graph.nodes if n.op_type == "Gemm")
    out = gemm.outputs[0]
    r.compare_onnxruntime()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert r.inspect(out) and r.inspector.other is not None          # ours against onnxruntime's, same inputs
    np.testing.assert_allclose(r.inspector.array, r.inspector.other, rtol=1e-4, atol=1e-5)

    r.inputs.seed.setValue(r.inputs.seed.value() + 1)
    wait_idle(qtbot, window)
    _press(qtbot, window, Qt.Key_R, Qt.ControlModifier)               # a run on the new inputs
    truth = _oracle(window)
    assert r.inspect(out)
    assert _same(r.inspector.array, truth[out.name])
    # onnxruntime's value was of the inputs before: not compared with this one as if it were its.
    assert r.inspector.other is None and not r.inspector.tabs.isTabEnabled(3)
    _shot(window, "10_inspector_after_new_inputs")
