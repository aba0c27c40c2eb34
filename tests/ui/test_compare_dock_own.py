"""The Compare dock after a comparison with an edited node (issue 23): the
canvas coloured by total or own error, the table sorted by either, and
Extract failing subgraph… writing a small model that still disagrees."""
from __future__ import annotations

import shutil

import pytest
from PySide6.QtCore import Qt

from holding import held
from viewer_helpers import open_model, slowed, wait_idle
from onnxstudio.core import load
from onnxstudio.core.edits import SetAttribute
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.compare_view import CompareView
from onnxstudio.ui.run.extract_failing import ExtractJob
from onnxstudio.ui.run.overlay import NodeMark, error_colour


def finish(qtbot, win):
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def coloured(win) -> list[str]:
    """The node boxes whose band says 'differs' (first tooltip line: the node)."""
    agrees = error_colour(0, True)
    return [m.toolTip().split("\n")[0] for m in win.run_ui.overlay.items
            if isinstance(m, NodeMark) and m.band is not None and m.band != agrees]


def _demo_run(qtbot, window, tmp_path):
    """A copy of the bundled demo model opened and run once; the run UI."""
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    r = window.run_ui
    r.run_all()
    finish(qtbot, window)
    return r


def _compared_with_an_edit(qtbot, window, tmp_path):
    pytest.importorskip("onnxruntime")
    r = _demo_run(qtbot, window, tmp_path)
    gemm = list(r.controller.model.graph.nodes)[8]
    # Unsaved: onnxruntime runs the file as saved.
    assert window.qdoc.apply(SetAttribute(gemm.name, "alpha", AttrType.FLOAT, 2.0))
    r.compare_onnxruntime()
    finish(qtbot, window)
    return r, gemm


def test_colour_by_own_error_lights_only_the_edited_node(qtbot, window, tmp_path):
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    report = r.controller.report
    assert report.worst_own.node is gemm and report.first_divergence.node is gemm
    total = coloured(window)
    assert gemm.display_name in total and len(total) > 1           # what comes after inherits the error
    view: CompareView = r.compare
    view.colour_by.setCurrentIndex(view.colour_by.findData("own"))
    assert r.overlay.colour_by == "own"
    assert coloured(window) == [gemm.display_name]
    assert view.node_at(0).node is gemm                             # sorted by own error
    assert "Largest own error" in view.summary.text()
    view.table.sortItems(2)                                         # by max abs, ascending
    firsts = [view.node_at(i).max_abs for i in range(view.table.rowCount())]
    assert firsts == sorted(firsts)
    view.colour_by.setCurrentIndex(view.colour_by.findData("total"))
    assert sorted(coloured(window)) == sorted(total)


def test_extract_failing_subgraph_writes_a_small_model(qtbot, window, tmp_path):
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    assert r.compare.extract_button.isEnabled()
    actions = r.compare_actions
    out = tmp_path / "out"
    out.mkdir()
    assert actions.start(out / "small.onnx")
    qtbot.waitUntil(lambda: actions.job is None, timeout=120_000)
    assert sorted(p.name for p in out.iterdir()) == ["small.expected.npz", "small.inputs.npz", "small.onnx",
                                                     "small.reference.onnx"]
    small = load(out / "small.onnx")
    assert [n.name for n in small.graph.nodes if n.op_type != "Constant"] == [gemm.name]
    assert "Wrote the failing subgraph" in r.dock_widget.status.text()


def test_a_cancelled_extract_writes_nothing(qtbot, tmp_path):
    written = []

    def work(progress):
        progress(1, 64)             # the search's first attempt: Cancel stops it here
        written.append(1)
    job = ExtractJob(work)
    job.cancel()
    with qtbot.waitSignal(job.cancelled, timeout=1000):
        job.run()
    assert written == []


def _item_of(window, node):
    return next(i for i in window.graph.scene.node_items.values()
                if i.ref is not None and i.ref.node is node)


def test_the_canvas_menu_extracts_from_the_node_clicked(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui.canvas import actions
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    later = next(nd.node for nd in r.controller.report.nodes
                 if not nd.agrees and nd.node is not gemm and not nd.constant)   # inherits gemm's error
    asked = []
    monkeypatch.setattr(r.compare_actions, "ask", lambda start=None: asked.append(start))
    menu = actions.context_menu(window.graph, _item_of(window, later))
    entry = next(a for a in menu.actions() if a.text().startswith("Extract failing subgraph from"))
    assert later.display_name in entry.text() and "Ctrl+Shift+X" in entry.text()
    entry.trigger()
    assert asked == [later]
    # The keyboard way: Ctrl+Shift+X on the selected node.
    window.graph.scene.clearSelection()
    _item_of(window, gemm).setSelected(True)
    window.graph.view.setFocus()
    qtbot.keyClick(window.graph.view, "X", modifier=Qt.ControlModifier | Qt.ShiftModifier)
    assert asked == [later, gemm]


def test_the_extract_starts_at_the_node_asked_for(qtbot, window, tmp_path):
    r, gemm = _compared_with_an_edit(qtbot, window, tmp_path)
    later = next(nd.node for nd in r.controller.report.nodes
                 if not nd.agrees and nd.node is not gemm and not nd.constant)
    out = tmp_path / "out"
    out.mkdir()
    assert r.compare_actions.start(out / "small.onnx", later)
    qtbot.waitUntil(lambda: r.compare_actions.job is None, timeout=120_000)
    assert f"from {later.name}" in r.dock_widget.status.text()
    # From a node that only inherits (the If after the Gemm), the search grows back to the edited Gemm.
    small = load(out / "small.onnx")
    assert [n.name for n in small.graph.nodes if n.op_type != "Constant"] == [gemm.name, later.name]


def test_menu_offers_no_extract_before_a_comparison(qtbot, window, tmp_path):
    from onnxstudio.ui.canvas import actions
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    node = list(window.run_ui.controller.model.graph.nodes)[8]
    menu = actions.context_menu(window.graph, _item_of(window, node))
    assert not [a for a in menu.actions() if a.text().startswith("Extract failing subgraph from")]


def test_cancel_stops_the_own_error_pass_between_nodes(qtbot, window, tmp_path, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import own_error
    r = _demo_run(qtbot, window, tmp_path)
    real = own_error.own_error
    # The first node long enough for the status to count the second (a count every 0.1 s at
    # most); the second held until Cancel is pressed, so the pass surely cannot end before it.
    slowed(monkeypatch, own_error, "own_error", 0.3)
    with held(monkeypatch, own_error, "own_error", from_call=2) as second:
        r.compare_onnxruntime()
        status = r.dock_widget.status
        qtbot.waitUntil(lambda: second.waiting.is_set() and "own error: 2/" in status.text(), timeout=120_000)
        assert r.dock_widget.progress.value() >= 1
        qtbot.mouseClick(r.dock_widget.cancel_button, Qt.LeftButton)
    finish(qtbot, window)
    report = r.controller.report
    measured, total = report.own_cancelled
    assert 2 <= measured < total
    unmeasured = [nd for nd in report.nodes if nd.own_note == own_error.CANCELLED_NOTE]
    assert len(unmeasured) >= total - measured - 1 and all(nd.own is None for nd in unmeasured)
    summary = r.compare.summary.text()
    assert "Own errors incomplete" in summary and f"after {measured} of {total} nodes" in summary
    assert report.to_json()["own_cancelled"] == {"measured": measured, "nodes": total}
    # A comparison run through again measures every node.
    monkeypatch.setattr(own_error, "own_error", real)
    r.compare_onnxruntime()
    finish(qtbot, window)
    assert r.controller.report.own_cancelled is None
    assert "Own errors incomplete" not in r.compare.summary.text()


def test_the_own_error_counts_say_which_nodes_compute_in_the_status_and_the_summary(qtbot, window, tmp_path):
    """The status counted "own error: i/n nodes" while the summary said
    "m of m nodes agree" (m > n) with nothing tying the two together."""
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Constant", [], ["k"], value=helper.make_tensor("kv", TensorProto.FLOAT, [3], [2, 2, 2])),
             helper.make_node("Mul", ["k", "w"], ["kw"], name="scale_weight"),      # constants only: no own error
             helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Add", ["r", "kw"], ["y"], name="add")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor("w", TensorProto.FLOAT, [3], [1, 2, 3])])
    path = tmp_path / "consts.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    said: list = []
    window.run_ui.controller.message.connect(lambda _level, text: said.append(text))
    open_model(qtbot, window, path)
    r = window.run_ui
    r.run_all()
    finish(qtbot, window)
    r.compare_onnxruntime()
    finish(qtbot, window)
    report = r.controller.report
    constants = sum(nd.constant for nd in report.nodes)
    computing = len(report.nodes) - constants
    assert (computing, constants) == (2, 2)
    own = [t for t in said if t.startswith("own error:")]
    assert own and own[-1] == (f"own error: {computing}/{computing} nodes that compute "
                               "(constants and shape-only nodes skipped)")
    assert (f"Own errors: {computing} nodes that compute ({constants} constants and shape-only nodes skipped)."
            in r.compare.summary.text())
    # a comparison with a reference run measures no own errors: no such sentence
    r.controller.keep_reference()
    r.controller.compare_with_reference()
    finish(qtbot, window)
    assert "Own errors:" not in r.compare.summary.text()


def test_the_onnxruntime_phase_is_said_with_a_busy_bar(qtbot, window, tmp_path):
    """onnxruntime's run reports no progress: its phase is named in the
    status line and the bar is busy (0 of 0) until the own-error pass counts."""
    events: list = []
    c = window.run_ui.controller
    c.message.connect(lambda _level, text: events.append(("say", text)))
    c.progressed.connect(lambda i, n, _name: events.append(("bar", (i, n))))
    _compared_with_an_edit(qtbot, window, tmp_path)
    phase = next(k for k, e in enumerate(events) if e[0] == "say" and e[1].startswith("onnxruntime: running"))
    own = next(k for k, e in enumerate(events) if e[0] == "say" and e[1].startswith("own error:"))
    busy = [k for k, e in enumerate(events) if e == ("bar", (0, 0))]
    assert busy and phase < own and busy[0] < own


def test_compare_table_rows_keep_one_line_and_room(qtbot, window):
    view = window.run_ui.compare
    table = view.table
    assert not table.wordWrap() and table.textElideMode() == Qt.ElideMiddle
    assert table.minimumHeight() >= 5 * table.verticalHeader().defaultSectionSize()


def test_compare_dock_is_a_tab_beside_problems(qtbot, window):
    """Side by side, the bottom docks left the Compare table two rows and cut
    the Profile dock's columns off: by default they are tabs of one dock."""
    problems = window.edit_actions.problems_dock
    for dock in (problems, window.run_ui.compare_dock, window.run_ui.profile.dock):
        dock.show()
    tabs = window.tabifiedDockWidgets(problems)
    assert window.run_ui.compare_dock in tabs and window.run_ui.profile.dock in tabs


def test_a_saved_dock_layout_wins_over_the_tabs(qtbot, window, tmp_path):
    """The window fixture's settings live in tmp_path/settings.ini: a second window reads them."""
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    compare = window.run_ui.compare_dock
    window.addDockWidget(Qt.RightDockWidgetArea, compare)          # the user moved it
    compare.show()
    window.settings.set_window_state(window.saveState())
    window.settings.sync()
    again = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(again)
    try:
        assert again.dockWidgetArea(again.run_ui.compare_dock) == Qt.RightDockWidgetArea
        assert again.run_ui.compare_dock not in again.tabifiedDockWidgets(again.edit_actions.problems_dock)
    finally:
        again.shutdown()
