"""Earlier iterations of a loop body on the canvas (issue 22): after Ctrl+R
with "every iteration", the Run dock's iteration choice shows any
iteration's values in the body's tags; without it only the last is kept,
and choosing another says so on screen and shows no tags for it.
pytest-qt, offscreen."""
from loop_model import write_loop_model
from viewer_helpers import open_model, wait_idle
from onnxstudio.core.exec.kept import BodyValues
from onnxstudio.ui.run.overlay import ValueTag


def _run_and_enter(qtbot, window, tmp_path, every_iteration):
    open_model(qtbot, window, write_loop_model(tmp_path / "loop.onnx"))
    r = window.run_ui
    r.inputs.set_source("trips", "constant", value=3)
    r.inputs.set_source("cond", "ones")
    r.inputs.set_source("start", "zeros")
    r.dock_widget.iterations_box.setChecked(every_iteration)
    r.run_action.trigger()
    assert r.controller.wait(60_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error
    loop = next(n for n in r.controller.model.graph.nodes if n.op_type == "Loop")
    body = loop.subgraphs()[0][1]
    window.graph.enter_graph(body)
    qtbot.waitUntil(lambda: window.graph.level.graph is body and bool(window.graph.scene.edge_items), timeout=60_000)
    wait_idle(qtbot, window)
    return r


def _tag(r, name):
    return next((t for t in r.overlay.items if isinstance(t, ValueTag) and t.name == name), None)


def test_every_iteration_of_a_loop_body_can_be_shown(qtbot, window, tmp_path):
    r = _run_and_enter(qtbot, window, tmp_path, every_iteration=True)
    choice = r.dock_widget.iteration_choice
    assert choice.isEnabled() and choice.runs == 3 and choice.iteration is None
    assert _tag(r, "acc_sum").value.tolist() == [3, 6]            # the last iteration (2)
    for i, expected in ((0, [1, 2]), (1, [2, 4]), (2, [3, 6])):
        choice.spin.setValue(i)
        tag = _tag(r, "acc_sum")
        assert tag.value.tolist() == expected, i
        assert f"from iteration {i} of the 3 runs of this body" in tag.detail()
        assert choice.note.text() == ""
    choice.spin.setValue(1)                   # a click on a tag inspects the iteration shown, and says which
    _tag(r, "acc_sum").on_click()
    assert r.inspector.array.tolist() == [2, 4] and "iteration 1" in r.inspector.title.text()
    choice.spin.setValue(-1)                                      # "last"
    assert _tag(r, "acc_sum").value.tolist() == [3, 6]


def test_an_iteration_not_kept_says_so(qtbot, window, tmp_path):
    r = _run_and_enter(qtbot, window, tmp_path, every_iteration=False)
    choice = r.dock_widget.iteration_choice
    choice.spin.setValue(0)
    assert "iteration 0 of 3 was not kept" in choice.note.text() and choice.note.isVisible()
    assert _tag(r, "acc_sum") is None                             # no tag with another iteration's value
    choice.spin.setValue(2)                                       # the last: kept
    assert choice.note.text() == "" and _tag(r, "acc_sum").value.tolist() == [3, 6]


def test_body_values_of_one_run():
    import numpy as np
    from onnxstudio.core.ir import Graph
    kept = BodyValues(every_iteration=True)
    body = Graph(name="body")
    for run in range(3):
        kept.keep(body, ["x"], {"x": np.array([run])})
    assert [kept.value_in_run(body.path, "x", i).tolist() for i in range(3)] == [[0], [1], [2]]
    assert kept.value_in_run(body.path, "x", 3) is None and kept.holds(body.path, "x")
    last_only = BodyValues()
    for run in range(3):
        last_only.keep(body, ["x"], {"x": np.array([run])})
    assert last_only.value_in_run(body.path, "x", 0) is None
    assert last_only.value_in_run(body.path, "x", 2).tolist() == [2]
