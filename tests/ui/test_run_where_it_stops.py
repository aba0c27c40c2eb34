"""Where the app shows a run stopping: a NaN/Inf made two If bodies deep,
a NaN input, and a node failing inside a nested body (pytest-qt, offscreen)."""
import numpy as np

from nested_models import write_failing_inside, write_nan_inside
from viewer_helpers import open_model, wait_idle
from onnxstudio.ui.run.overlay import NodeMark, ValueTag

FEEDS = {"x": np.array([1.0, 2.0], np.float32), "cond": np.array(True)}


def finish(qtbot, win):
    assert win.run_ui.controller.wait(120_000)
    wait_idle(qtbot, win)


def marks(win, **flags):
    return [i for i in win.run_ui.overlay.items if isinstance(i, NodeMark)
            and all(getattr(i, k) == v for k, v in flags.items())]


def node_named(model, name):
    return next(n for g in model.graph.walk() for n in g.nodes if n.name == name)


def open_with_feeds(qtbot, window, path, feeds):
    open_model(qtbot, window, path)
    r = window.run_ui
    r.controller.feeds_source = lambda: dict(feeds)
    return r


def test_nan_stop_shows_the_body_node_that_made_it(qtbot, window, tmp_path):
    r = open_with_feeds(qtbot, window, write_nan_inside(tmp_path / "nan.onnx"), FEEDS)
    r.dock_widget.nan_box.setChecked(True)
    r.continue_action.trigger()                                   # F5
    finish(qtbot, window)
    made = node_named(r.controller.model, "make_nan")
    assert r.controller.last_event.node is made
    assert window.graph.level.graph is made.graph                 # the canvas entered both Ifs
    item = window.graph.scene.item_for_node(made)
    assert item.isSelected()
    flagged = marks(window, nonfinite=True)
    assert [m.rect for m in flagged] == [item.scene_rect()]
    assert marks(window, current=True)                            # the next node, in the same body
    assert 'produced NaN/Inf in logged' in r.dock_widget.status.text()


def test_a_nan_input_is_named_before_the_first_node(qtbot, window, tmp_path):
    feeds = {"x": np.array([np.nan, 1.0], np.float32), "cond": np.array(True)}
    r = open_with_feeds(qtbot, window, write_nan_inside(tmp_path / "nan.onnx"), feeds)
    r.dock_widget.nan_box.setChecked(True)
    r.continue_action.trigger()
    finish(qtbot, window)
    assert "Input x holds NaN/Inf" in r.dock_widget.status.text()
    assert not r.controller.debug.nodes_run
    assert any(t.bad for t in r.overlay.items if isinstance(t, ValueTag))


def test_a_failed_run_marks_the_failing_node_inside_its_body(qtbot, window, tmp_path):
    r = open_with_feeds(qtbot, window, write_failing_inside(tmp_path / "fail.onnx"), FEEDS)
    r.run_all()
    finish(qtbot, window)
    bad = node_named(r.controller.model, "bad_matmul")
    assert window.graph.level.graph is bad.graph                  # the canvas jumped into the body
    failed = marks(window, failed=True)
    assert [m.rect for m in failed] == [window.graph.scene.item_for_node(bad).scene_rect()]
    status = r.dock_widget.status.text()
    assert 'MatMul "bad_matmul"' in status and "matrix product with mismatched inner dimensions" in status
    assert "pre_out: float[2]" in status and "gufunc" not in status
    assert "gufunc" in r.dock_widget.status.toolTip()
