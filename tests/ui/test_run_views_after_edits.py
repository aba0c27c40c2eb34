"""What the run views show after a comparison or an edit (a QA pass: "when
a figure, a check or a view might be wrong, say so on screen rather than
guess"): the Tensor Inspector's Compare tab follows a comparison made while
it shows a value and goes with it after an edit; the Compare dock says its
table was made before the last edit; the Run dock's status does not keep
saying where a stepping run that an edit ended would go next; the inputs
panel follows edits of the graph's inputs."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.core import edits as E
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path


def _demo(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    return window.run_ui, window.model.graph


def _finish(qtbot, window):
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)


def _node(graph, name):
    return next(n for n in graph.nodes if n.name == name)


def test_inspector_shows_a_comparison_made_while_it_shows_the_value_and_drops_it_after_an_edit(
        qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    r.run_all()
    _finish(qtbot, window)
    flat = _node(graph, "/head/Flatten").outputs[0]
    assert r.inspect(flat)
    assert r.inspector.other is None and not r.inspector.tabs.isTabEnabled(3)
    assert c.keep_reference()
    assert c.compare_with_reference()
    _finish(qtbot, window)
    # The same array (nothing changed since), now with the run it was compared with.
    assert r.inspector.other is not None and r.inspector.tabs.isTabEnabled(3)
    assert "agrees" in r.inspector.compare_text.text()
    # An edit after the value (the Gemm reads it) keeps the value but ends the comparison.
    window.qdoc.apply(E.SetAttribute(E.node_ref(_node(graph, "/head/fc/Gemm")), "alpha", AttrType.FLOAT, 2.0))
    wait_idle(qtbot, window)
    assert c.debug.value_of(flat) is not None and r.inspector.array is not None
    assert r.inspector.other is None and not r.inspector.tabs.isTabEnabled(3)


def _compared(qtbot, window, tmp_path):
    """The demo run, kept as the reference and compared with itself."""
    r, graph = _demo(qtbot, window, tmp_path)
    r.run_all()
    _finish(qtbot, window)
    assert r.controller.keep_reference() and r.controller.compare_with_reference()
    _finish(qtbot, window)
    return r, graph


def test_compare_dock_says_its_table_is_of_the_model_before_an_edit(qtbot, window, tmp_path):
    r, graph = _compared(qtbot, window, tmp_path)
    c = r.controller
    view = r.compare
    assert view.report is not None and not view.stale
    assert "before your last edit" not in view.summary.text()
    rows = view.table.rowCount()
    window.qdoc.apply(E.SetAttribute(E.node_ref(_node(graph, "/head/fc/Gemm")), "alpha", AttrType.FLOAT, 2.0))
    wait_idle(qtbot, window)
    # The table stays (what was compared), said to be of the model before the edit.
    assert view.stale and view.table.rowCount() == rows
    assert "Made before your last edit" in view.summary.text()
    assert not view.extract_button.isEnabled()
    assert "comparison is of the model before your edit" in r.dock_widget.status.text()
    # Colouring by own error redraws the same report: still stale.
    view.colour_by.setCurrentIndex(1)
    assert view.stale and "Made before your last edit" in view.summary.text()
    # Nothing is extracted from it: its nodes and values may be gone.
    assert not r.compare_actions.start(tmp_path / "failing.onnx")
    assert "edited since the comparison" in r.dock_widget.status.text()
    assert not (tmp_path / "failing.onnx").exists()
    # A new comparison is of the model as it is.
    assert c.compare_with_reference()
    _finish(qtbot, window)
    assert not view.stale and "before your last edit" not in view.summary.text()


def test_run_dock_says_an_edit_ended_the_stepping_run(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    assert c.restart()
    _finish(qtbot, window)
    for _ in range(2):
        assert c.step("over")
        _finish(qtbot, window)
    assert "next:" in r.dock_widget.status.text() and "next:" in window.statusBar().currentMessage()
    window.qdoc.apply(E.SetNodeField(E.node_ref(_node(graph, "/head/Flatten")), "doc_string", "edited"))
    wait_idle(qtbot, window)
    assert not c.debug.started
    status = r.dock_widget.status.text()
    assert "next:" not in status and "ended the stepping run" in status
    # The window's status bar no longer says where the run goes next either ...
    assert "ended the stepping run" in window.statusBar().currentMessage()
    assert c.step("over")                       # as the status says: from the first node again
    _finish(qtbot, window)
    assert c.debug.nodes_run[0] is list(graph.nodes)[0]
    # An edit's own message in the status bar stays.
    window.statusBar().showMessage("the edit's own message")
    window.qdoc.apply(E.SetNodeField(E.node_ref(_node(graph, "/head/Flatten")), "doc_string", "again"))
    wait_idle(qtbot, window)
    assert "ended the stepping run" in r.dock_widget.status.text()
    assert window.statusBar().currentMessage() == "the edit's own message"


def _rows(panel):
    return [(panel.table.item(i, 0).text(), panel.table.item(i, 1).text()) for i in range(panel.table.rowCount())]


def test_inputs_panel_follows_a_new_shape_of_an_input_and_its_undo(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    panel = r.inputs
    assert _rows(panel)[0] == ("pixels", "float[batch,3,32,32]") and list(panel.dim_spins) == ["batch"]
    r.run_all()
    _finish(qtbot, window)
    assert r.inspect(_node(graph, "/head/Flatten").outputs[0]) and not r.inspector.note.isVisible()
    window.qdoc.apply(E.set_input_shape(window.model, "pixels", ["batch", 3, "h", "w"]))
    wait_idle(qtbot, window)
    # The value shown was computed from inputs made for the shape before (the next run's differ): said.
    assert r.inspector.note.isVisible() and "inputs before your last change" in r.inspector.note.text()
    # The Type column and the size boxes are the model's now: h and w can be given.
    assert _rows(panel)[0] == ("pixels", "float[batch,3,h,w]")
    assert sorted(panel.dim_spins) == ["batch", "h", "w"]
    panel.set_dim("h", 16)
    panel.set_dim("w", 16)
    r.run_all()
    _finish(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    assert r.controller.ran_feeds["pixels"].shape == (1, 3, 16, 16)
    window.qdoc.undo()
    wait_idle(qtbot, window)
    assert _rows(panel)[0] == ("pixels", "float[batch,3,32,32]") and list(panel.dim_spins) == ["batch"]


def test_inputs_panel_follows_a_renamed_input_with_its_settings_and_a_new_one(qtbot, window, tmp_path):
    import numpy as np
    r, graph = _demo(qtbot, window, tmp_path)
    panel = r.inputs
    panel.set_source("pixels", "constant", value=0.5)
    window.qdoc.apply(E.RenameValue("pixels", "image"))
    wait_idle(qtbot, window)
    assert _rows(panel)[0] == ("image", "float[batch,3,32,32]")
    assert panel.table.item(0, 3).text() == "all 0.5"
    window.qdoc.apply(E.AddGraphInput("extra", elem_type=1, shape=[2]))
    wait_idle(qtbot, window)
    assert [name for name, _type in _rows(panel)] == ["image", "use_softmax", "extra"]
    r.run_all()
    _finish(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    feeds = r.controller.ran_feeds
    assert sorted(feeds) == ["extra", "image", "use_softmax"]
    assert np.all(feeds["image"] == 0.5)          # the settings chosen before the rename, not random values


def test_inspector_shows_an_edited_initializer_before_any_run(qtbot, window, tmp_path):
    import numpy as np
    r, graph = _demo(qtbot, window, tmp_path)
    weight = graph.get_value("head.fc.weight")
    assert r.inspect(weight)
    before = np.array(r.inspector.array)
    window.qdoc.apply(E.SetInitializer("head.fc.weight", array=np.full(before.shape, 7.0, np.float32)))
    wait_idle(qtbot, window)
    assert np.all(r.inspector.array == 7.0) and "7" in r.inspector.stats.text()
    window.qdoc.undo()
    wait_idle(qtbot, window)
    np.testing.assert_array_equal(r.inspector.array, before)


def test_run_selection_says_which_boundary_values_were_made_up(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    r.run_all()
    _finish(qtbot, window)
    gemm = _node(graph, "/head/fc/Gemm")
    assert c.run_selection([gemm])                 # every boundary value from the run: nothing to say
    _finish(qtbot, window)
    assert c.debug.randomised == [] and "random" not in r.dock_widget.status.text()
    # An edit upstream drops the Gemm's input: the next selection run makes it up.
    window.qdoc.apply(E.SetAttribute(E.node_ref(_node(graph, "/backbone/stage1/conv/Conv")), "pads",
                                     AttrType.INTS, [0, 0, 0, 0]))
    wait_idle(qtbot, window)
    assert c.run_selection([gemm])
    _finish(qtbot, window)
    assert c.debug.randomised == ["/head/flat"]
    assert "on random values of /head/flat" in r.dock_widget.status.text()
    flat = _node(graph, "/head/Flatten").outputs[0]
    assert r.inspect(flat)
    assert "random values fed to the selection run" in r.inspector.title.text()
    assert "output of" not in r.inspector.title.text()
    tag = next(t for t in r.overlay.items if getattr(t, "name", None) == "/head/flat")
    assert "random values fed to the selection run" in tag.detail()
    assert r.save_values(selected=False, path=tmp_path / "values.npz")     # saved with the others, said
    assert "random values fed to the selection run, not computed: /head/flat" in r.dock_widget.status.text()
    r.run_all()                                    # a whole run computes it: no longer said
    _finish(qtbot, window)
    assert c.debug.randomised == [] and "output of" in r.inspector.title.text()


def test_progress_bar_shows_no_count_until_the_job_reports_one(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    bar = r.dock_widget.progress
    r.dock_widget.set_running(True)             # a job starts (a step reports no count at all)
    assert bar.text() == ""                     # not "node 0 of 1"
    r.dock_widget.show_count(4, 10)
    assert bar.text() == "node 5 of 10"
    r.dock_widget.set_running(False)
    assert bar.text() == ""
    assert r.controller.step("over")            # a real step: no count while it runs, none after
    assert "of 1" not in bar.text()
    _finish(qtbot, window)
    assert bar.text() == ""


def test_a_new_body_budget_applies_to_the_next_run(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    r.run_all()
    _finish(qtbot, window)
    assert "4 values inside bodies kept" in r.dock_widget.status.text()
    branch = _node(graph, "/head/choose_activation").subgraphs()[0][1]
    window.graph.enter_graph(branch)
    qtbot.waitUntil(lambda: window.graph.level.graph is branch and bool(window.graph.scene.edge_items), timeout=60_000)
    wait_idle(qtbot, window)
    inside = next(v for n in branch.nodes for v in n.outputs if c.debug.value_of(v) is not None)
    assert r.inspect(inside) and r.inspector.array is not None
    r.dock_widget.budget_box.setValue(0)
    wait_idle(qtbot, window)
    # Kept under the old budget: no longer shown as the run's (the next run keeps anew).
    assert r.inspector.array is None and "no value in this run" in r.inspector.title.text()
    window.graph.enter_graph(graph)
    wait_idle(qtbot, window)
    r.run_all()
    _finish(qtbot, window)
    # Not the 4 values kept under 512 MiB: the If's body values are run again, past the new budget.
    status = r.dock_widget.status.text()
    assert "past the 0 MiB budget, not kept" in status and "4 values inside bodies kept" not in status
    assert c.debug.kept.budget == 0


def test_saving_one_value_says_one_value(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    assert r.save_values(selected=False, path=tmp_path / "none.npz") is False      # no run yet: said, nothing written
    r.run_all()
    _finish(qtbot, window)
    r.window.graph.scene.clearSelection()
    r.window.graph.scene.item_for_node(_node(graph, "/head/Flatten")).setSelected(True)
    assert r.save_values(selected=True, path=tmp_path / "one.npz")
    assert r.dock_widget.status.text().startswith("Saved 1 value to ")
    assert r.save_inputs(path=tmp_path / "inputs.npz")
    assert r.dock_widget.status.text().startswith("Saved 2 inputs to ")


def test_a_divergence_without_an_error_number_says_what_differs(qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    r.run_all()
    _finish(qtbot, window)
    assert c.keep_reference()
    # The same model on a 16x16 image: every value has another shape than the reference's.
    window.qdoc.apply(E.set_input_shape(window.model, "pixels", ["batch", 3, "h", "w"]))
    wait_idle(qtbot, window)
    r.inputs.set_dim("h", 16)
    r.inputs.set_dim("w", 16)
    assert c.compare_with_reference()
    _finish(qtbot, window)
    conv = _node(graph, "/backbone/stage1/conv/Conv")
    assert c.report.first_divergence.node is conv and c.report.first_divergence.rel == 0
    summary = r.compare.summary.text()
    assert "First divergence" in summary and "shape [1, 8, 16, 16] vs [1, 8, 32, 32]" in summary
    assert "rel. error 0)" not in summary
    assert "shape [1, 8, 16, 16] vs [1, 8, 32, 32]" in r.dock_widget.status.text()
    row = next(i for i in range(r.compare.table.rowCount()) if r.compare.node_at(i).node is conv)
    assert r.compare.table.item(row, 2).text() == "–"
    assert "shape" in r.compare.table.item(row, 3).text()
    # Coloured as far off as the scale goes, not as a tiny error.
    from onnxstudio.ui.run.compare_work import shown_error
    assert shown_error(c.report.first_divergence) == (float("inf"), False)


def test_compare_dock_says_its_table_is_of_the_inputs_before_a_change(qtbot, window, tmp_path):
    """A change of the Run dock's inputs leaves the comparison true of the
    inputs it was made with: the dock says so (QA: only the Tensor Inspector
    did), keeps Extract, and a new comparison drops the note."""
    r, _graph = _compared(qtbot, window, tmp_path)
    c = r.controller
    view = r.compare
    assert "inputs before your last change" not in view.summary.text()
    r.inputs.set_dim("batch", 2)
    assert view.other_inputs and not view.stale
    assert "Made with the inputs before your last change" in view.summary.text()
    r.run_all()
    _finish(qtbot, window)
    assert c.keep_reference() and c.compare_with_reference()
    _finish(qtbot, window)
    assert not view.other_inputs and "inputs before your last change" not in view.summary.text()
