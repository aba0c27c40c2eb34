"""`onnxstudio MODEL` reads and lays out MODEL while the window is being built
(ui/early_open.py): the canvas shows that layout instead of making another,
and whatever does not match (another file, other open groups, a recovered
session, a file that does not load) goes the usual way."""
import shutil

import pytest

from viewer_helpers import wait_idle


@pytest.fixture
def demo(tmp_path):
    from onnxstudio.resources import sample_path
    path = tmp_path / "demo.onnx"
    shutil.copy(sample_path("demo.onnx"), path)
    return path


@pytest.fixture
def layout_calls(monkeypatch):
    """Every call of core.layout.layout (the early job's and the canvas's)."""
    from onnxstudio.core import layout as lay
    calls = []
    original = lay.layout

    def counted(request, **kwargs):
        calls.append(request)
        return original(request, **kwargs)
    monkeypatch.setattr(lay, "layout", counted)
    return calls


def test_the_command_lines_model_is_laid_out_once_while_the_window_is_built(qtbot, monkeypatch, demo,
                                                                             layout_calls):
    from PySide6.QtWidgets import QApplication
    from onnxstudio import app as gui
    from onnxstudio.ui import early_open
    from onnxstudio.ui.main_window import MainWindow
    started, built, seen = [], [], {}
    original_start = early_open.start_early_open
    monkeypatch.setattr(early_open, "start_early_open",
                        lambda path, settings: started.append(original_start(path, settings)) or started[-1])
    original_init = MainWindow.__init__

    def init(self, *args, **kwargs):
        built.append(len(started))      # the read and the layout began before the window was made
        original_init(self, *args, **kwargs)
    monkeypatch.setattr(MainWindow, "__init__", init)
    windows = []
    original_show = MainWindow.show
    monkeypatch.setattr(MainWindow, "show", lambda self: (windows.append(self), original_show(self)))

    def run_until_drawn():
        win = windows[-1]
        wait_idle(qtbot, win)
        qtbot.waitUntil(lambda: win.graph.scene.view_model is not None, timeout=60_000)
        seen["model"] = win.model
        seen["boxes"] = len(win.graph.scene.node_items)
        seen["title"] = win.windowTitle()
        win.close()
        return 0

    monkeypatch.setattr(QApplication.instance(), "exec", run_until_drawn)
    assert gui.main([str(demo)]) == 0
    assert built == [1]
    early = started[0]
    assert early is not None
    assert seen["title"].startswith("demo.onnx") and seen["boxes"] > 5
    assert seen["model"] is early.model             # the window adopted the early read
    assert len(layout_calls) == 1                   # ...and its layout: no second one
    assert early.laid_out.done()


def test_another_file_is_opened_the_usual_way_and_the_early_work_dropped(qtbot, window, demo, tmp_path,
                                                                         layout_calls):
    from onnxstudio.ui.early_open import start_early_open, take_layout
    other = tmp_path / "other.onnx"
    shutil.copy(demo, other)
    early = start_early_open(str(demo), window.settings)
    window.open_path(other, early=early)
    wait_idle(qtbot, window)
    assert early.cancelled
    qtbot.waitUntil(early.laid_out.done, timeout=30_000)
    assert window.path == other and window.model is not early.model
    assert window.graph.scene.view_model is not None
    assert take_layout(early.model.graph if early.model else None, None, lambda: False) is None


def test_other_open_groups_lay_the_graph_out_again(qtbot, window, demo, layout_calls):
    from onnxstudio.ui.canvas.scene import measure_label
    from onnxstudio.ui.early_open import EarlyOpen
    from onnxstudio.ui.workers import JobRunner
    # Laid out with a group open that the window (no saved state) will not ask for.
    early = EarlyOpen(str(demo), {("no such group",)}, measure_label)
    JobRunner(window).start(early)
    window.open_path(demo, early=early)
    wait_idle(qtbot, window)
    assert window.model is early.model
    assert len(layout_calls) == 2
    assert window.graph.scene.view_model is not None and len(window.graph.scene.node_items) > 5


def test_a_file_that_fails_early_is_reported_by_the_window(qtbot, window, tmp_path):
    from onnxstudio.ui.early_open import start_early_open
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07 not a model at all \xff\xff")
    early = start_early_open(str(bad), window.settings)
    qtbot.waitUntil(early.laid_out.done, timeout=30_000)       # failed before the window listened
    assert early.error and "bad.onnx" in early.error
    window.open_path(bad, early=early)
    qtbot.waitUntil(lambda: getattr(window, "last_error", None) is not None, timeout=30_000)
    assert window.last_error == early.error
    assert window.model is None and not window.busy


def test_a_recovered_session_drops_the_early_open(qtbot, window, demo, monkeypatch):
    import argparse

    from onnxstudio import app as gui
    from onnxstudio.ui.early_open import start_early_open
    window.early_open = start_early_open(str(demo), window.settings)
    early = window.early_open
    monkeypatch.setattr(window.recovery, "offer", lambda: True)    # a crashed session's model opens instead
    gui.open_requested(window, argparse.Namespace(file=str(demo), demo=False))
    assert early.cancelled and window.early_open is None
    qtbot.waitUntil(early.laid_out.done, timeout=30_000)
    assert not window.loading and window.model is None


def test_a_job_already_gone_still_hands_over_its_model_and_layout(qtbot, window, demo, layout_calls):
    """A question asked before the file opens (a recovery offer) runs an event
    loop: the finished job's QThread may be deleted before the window adopts it."""
    import shiboken6
    from onnxstudio.ui.early_open import start_early_open
    early = start_early_open(str(demo), window.settings)
    qtbot.waitUntil(early.laid_out.done, timeout=30_000)
    qtbot.waitUntil(lambda: not shiboken6.isValid(early), timeout=30_000)
    window.open_path(demo, early=early)
    wait_idle(qtbot, window)
    assert window.model is early.model and window.path == demo
    assert len(window.graph.scene.node_items) > 5 and len(layout_calls) == 1


def test_the_collector_is_held_off_until_the_first_picture(qtbot, monkeypatch, demo):
    """onnxstudio/app.py: the cyclic collector does not walk the objects the
    start makes (core/gc_policy.py's pause) until the model is painted; after
    that it runs again."""
    import gc

    from PySide6.QtWidgets import QApplication
    from onnxstudio import app as gui
    from onnxstudio.core import gc_policy
    from onnxstudio.ui.main_window import MainWindow
    seen = {}
    original_init = MainWindow.__init__

    def init(self, *args, **kwargs):
        # Held, and the UI thread does not stand in for it either (as it does while jobs run).
        seen["held while the window is built"] = gc_policy.held() and not gc_policy.ui_thread_collects()
        original_init(self, *args, **kwargs)
        self.graph.view.first_paint.connect(lambda _s: seen.setdefault(
            "held at the first paint", gc_policy.held() and not gc_policy.ui_thread_collects()))
    monkeypatch.setattr(MainWindow, "__init__", init)
    windows = []
    original_show = MainWindow.show
    monkeypatch.setattr(MainWindow, "show", lambda self: (windows.append(self), original_show(self)))
    was_enabled = gc.isenabled()

    def run_until_settled():
        win = windows[-1]
        wait_idle(qtbot, win)
        qtbot.waitUntil(lambda: not win.busy and not gc_policy.held(), timeout=60_000)
        seen["on again"] = gc.isenabled() == was_enabled
        win.close()
        return 0

    monkeypatch.setattr(QApplication.instance(), "exec", run_until_settled)
    assert gui.main([str(demo)]) == 0
    assert seen == {"held while the window is built": True, "held at the first paint": True, "on again": True}


def test_the_collector_runs_again_when_the_app_quits_before_its_first_picture(qtbot, monkeypatch, demo):
    """A window closed (or an app quit) before the model was drawn must not
    leave the start's pause on: the collector would stay off for the rest of
    the process (a script or test calling app.main more than once)."""
    from PySide6.QtWidgets import QApplication
    from onnxstudio import app as gui
    from onnxstudio.core import gc_policy
    from onnxstudio.ui.main_window import MainWindow
    windows = []
    original_show = MainWindow.show
    monkeypatch.setattr(MainWindow, "show", lambda self: (windows.append(self), original_show(self)))

    def quit_at_once():
        # The event loop ends before any turn of it: no paint, no idle tick.
        held_then = gc_policy.held()
        windows[-1].close()
        return 0 if held_then else 1

    monkeypatch.setattr(QApplication.instance(), "exec", quit_at_once)
    assert gui.main([str(demo)]) == 0          # the pause was still on as the loop began
    assert not gc_policy.held()
    wait_idle(qtbot, windows[-1])


def lay_out_both(demo, tmp_path, monkeypatch):
    """(EarlyOpen's laid_out, what LayoutJob signalled) for the demo's main graph,
    each run in this thread with a layout cache of its own."""
    from onnxstudio.ui.canvas.scene import measure_label
    from onnxstudio.ui.early_open import EarlyOpen
    from onnxstudio.ui.workers import LayoutJob
    monkeypatch.setenv("ONNXSTUDIO_LAYOUT_CACHE", str(tmp_path / "early-cache"))
    early = EarlyOpen(str(demo), None, measure_label)
    early.run()                     # read, then lay out
    monkeypatch.setenv("ONNXSTUDIO_LAYOUT_CACHE", str(tmp_path / "job-cache"))
    job = LayoutJob(early.model.graph, None, measure_label)
    signalled = []
    job.done.connect(lambda view, layout: signalled.append(("done", view, layout)))
    job.failed.connect(lambda message: signalled.append(("failed", message)))
    job.run()
    return early.laid_out.result(timeout=0), signalled


def test_the_early_layout_is_the_one_the_canvas_job_makes(qtbot, demo, tmp_path, monkeypatch):
    (early_view, early_layout), signalled = lay_out_both(demo, tmp_path, monkeypatch)
    ((kind, view, layout),) = signalled
    assert kind == "done" and not early_layout.from_cache and not layout.from_cache
    assert len(early_view.request.nodes) == len(view.request.nodes) > 5
    fields = ("nodes", "edges", "groups", "width", "height", "engine")
    assert [getattr(early_layout, f) for f in fields] == [getattr(layout, f) for f in fields]


def test_a_level_past_the_box_limit_is_left_to_the_canvas_which_says_so(qtbot, demo, tmp_path, monkeypatch):
    from onnxstudio.ui import workers
    monkeypatch.setattr(workers, "MAX_BOXES", 3)
    early, signalled = lay_out_both(demo, tmp_path, monkeypatch)
    assert early is None
    ((kind, message),) = signalled
    assert kind == "failed" and "at most 3" in message and "would need 14 boxes" in message
