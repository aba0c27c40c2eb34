"""A run's worker gives way to the UI thread (issue 22, responsiveness):
between two nodes it waits while the UI thread's event loop handles events
(ui/run/worker_yields.py UIFirst, core/exec/pause_points.py), never for
long; the UI thread asks Linux for short time slices (ui/run/ui_thread_slice.py).
The run's result is the same. pytest-qt, offscreen."""
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtCore import QEventLoop, QTimer

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, run_short_sequence, wait_idle
from onnxstudio.core.exec import pause_points
from onnxstudio.ui.run import ui_thread_slice, worker_yields


def _in_event_loop(qtbot, work, linger_ms=60):
    """Call work() from inside a running event loop (exec, as in the app),
    which ends linger_ms after it."""
    loop = QEventLoop()

    def start():
        work()
        QTimer.singleShot(linger_ms, loop.quit)
    QTimer.singleShot(0, start)
    loop.exec()


class _Asleep:
    """worker_yields' "the loop sleeps" event, with each wait noted:
    (timeout asked, whether the loop's sleep ended it)."""

    def __init__(self, real: threading.Event):
        self.real = real
        self.waits = []
        self.waiting = threading.Event()       # a worker waits now

    def is_set(self) -> bool:
        return self.real.is_set()

    def set(self) -> None:
        self.real.set()

    def clear(self) -> None:
        self.real.clear()

    def wait(self, timeout=None) -> bool:
        self.waiting.set()
        ended = self.real.wait(timeout)
        self.waits.append((timeout, ended))
        return ended


def test_the_worker_waits_while_the_ui_thread_handles_an_event(qtbot, monkeypatch):
    """Told by the order of events, not by clocks: the handler keeps the UI
    thread until the worker waits for it, and the worker's limits are far
    beyond any machine's delays, so only the loop's sleep ends its wait."""
    asleep = _Asleep(worker_yields._asleep)
    monkeypatch.setattr(worker_yields, "_asleep", asleep)
    monkeypatch.setattr(worker_yields, "MAX_WAIT_S", 300.0)
    monkeypatch.setattr(worker_yields, "GRACE_S", 300.0)
    times = {}

    def worker(ui_first):
        time.sleep(2 * worker_yields.AWAKE_S)       # the loop awake longer than a short turn
        ui_first.give_way()
        times["went_on"] = time.monotonic()

    def busy_handler():
        worker_yields.watch_the_ui_thread()
        times["thread"] = threading.Thread(target=worker, args=(worker_yields.UIFirst(),))
        times["thread"].start()
        assert asleep.waiting.wait(300)              # the UI thread at work (its handler) ...
        times["handled"] = time.monotonic()          # ... until the worker gave way
    try:
        _in_event_loop(qtbot, busy_handler)
    finally:
        worker_yields.stop_watching()
    times["thread"].join(300)
    assert times["went_on"] >= times["handled"]                      # not before the handler ended
    assert asleep.waits == [(300.0, True)]                            # ended by the loop's sleep
    # The loop asleep (or nobody watching): no wait at all.
    worker_yields.UIFirst().give_way()
    assert asleep.waits == [(300.0, True)]


class _Clock:
    """time.monotonic for worker_yields, moved on by hand and by the waits."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_ui_thread_that_never_sleeps_only_slows_the_worker_down(monkeypatch):
    """On a clock of the test's own (a loaded machine's late wake-ups change
    nothing): each wait is at most MAX_WAIT_S, and beyond the first GRACE_S
    the worker waits at most a quarter of the job's time so far."""
    clock = _Clock()
    monkeypatch.setattr(worker_yields, "time", SimpleNamespace(monotonic=clock))

    class NeverAsleep:                 # the loop never sleeps: every wait runs out
        def __init__(self):
            self.waits = []

        def is_set(self):
            return False

        def clear(self):
            pass

        def wait(self, timeout):
            self.waits.append(timeout)
            clock.now += timeout
            return False
    asleep = NeverAsleep()
    monkeypatch.setattr(worker_yields, "_asleep", asleep)
    ui_first = worker_yields.UIFirst()
    worker_yields._awake()             # as when the loop wakes, and it stays awake
    clock.now += worker_yields.AWAKE_S
    for _ in range(400):               # 400 nodes of 5 ms
        clock.now += 0.005
        ui_first.give_way()
        spent = clock.now - ui_first.started
        assert ui_first.waited <= worker_yields.GRACE_S + spent / 4 + 1e-9
    assert asleep.waits and max(asleep.waits) <= worker_yields.MAX_WAIT_S
    assert ui_first.waited >= worker_yields.GRACE_S                   # it did give way
    assert ui_first.waited < spent / 2                                # never stopped: the nodes ran on


def test_pause_points_call_only_the_hook_of_their_own_thread():
    calls = []
    pause_points.hook_this_thread(lambda: calls.append(threading.get_ident()))
    try:
        pause_points.pause_point()
        other = threading.Thread(target=pause_points.pause_point)
        other.start()
        other.join()
    finally:
        pause_points.hook_this_thread(None)
    pause_points.pause_point()
    assert calls == [threading.get_ident()]


def _slice_ns() -> int | None:
    try:
        with open("/proc/thread-self/sched") as f:
            for line in f:
                if line.startswith("se.slice"):
                    return int(line.split()[-1])
    except OSError:
        return None
    return None


def test_the_ui_thread_asks_for_short_slices_once_and_its_worker_inherits_them(monkeypatch):
    if _slice_ns() is None:
        pytest.skip("no scheduler slice to read on this system")
    seen = {}

    def ui_thread():              # a thread of its own: the test's thread keeps its slice
        monkeypatch.setattr(ui_thread_slice, "_asked", False)
        if not ui_thread_slice.ask_short_slices():
            return
        seen["ui"] = _slice_ns()
        assert not ui_thread_slice.ask_short_slices()       # once

        def worker():
            seen["inherited"] = _slice_ns()
        thread = threading.Thread(target=worker)
        thread.start()
        thread.join()
    thread = threading.Thread(target=ui_thread)
    thread.start()
    thread.join()
    if not seen:
        pytest.skip("the kernel does not take a requested slice (before Linux 6.12, or refused)")
    assert seen["ui"] == ui_thread_slice.SHORT_SLICE_NS == seen["inherited"]


def test_a_run_from_inside_the_event_loop_gives_the_same_values(qtbot, window):
    """Ctrl+R as in the app (from a handler of the running event loop, so the
    worker gives way) computes what a run started from outside computes."""
    open_model(qtbot, window, SHARED_MODELS / "bert_12layer_narrow" / "model.onnx")
    r = run_short_sequence(qtbot, window)
    plain = dict(r.controller.debug.values)
    assert len(plain) > 100
    waited = []
    real = worker_yields.UIFirst.give_way

    def counting(self):
        real(self)
        waited.append(self.waited)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(worker_yields.UIFirst, "give_way", counting)
        r.controller.debug.values.clear()            # a whole run again

        def ctrl_r():
            r.run_all()
            assert worker_yields._dispatcher is not None      # watching: the loop runs
        loop = QEventLoop()
        r.controller.idle.connect(loop.quit)
        QTimer.singleShot(0, ctrl_r)
        QTimer.singleShot(300_000, loop.quit)
        loop.exec()
        r.controller.idle.disconnect(loop.quit)
    wait_idle(qtbot, window)
    assert worker_yields._dispatcher is None and worker_yields._asleep.is_set()   # no job: nobody waits
    assert waited                                   # it asked between nodes
    again = r.controller.debug.values
    assert not r.controller.last_error and again.keys() == plain.keys()
    for name, value in plain.items():
        np.testing.assert_array_equal(np.asarray(again[name]), np.asarray(value), err_msg=name)


def test_a_run_job_leaves_a_core_to_the_ui_and_gives_blas_its_threads_back(qtbot, monkeypatch):
    from onnxstudio.core.exec.threads import blas_threads, set_blas_threads
    before = blas_threads()
    if before is None:
        pytest.skip("no OpenBLAS here")
    # On this 2-core machine and on a 4-core one: a core fewer than usable.
    for cores, during in ((2, 1), (4, 3)):
        monkeypatch.setattr(worker_yields.os, "sched_getaffinity", lambda _pid, n=cores: set(range(n)))
        set_blas_threads(cores)
        worker_yields.job_started()
        try:
            assert blas_threads() == during
        finally:
            worker_yields.job_ended()
        assert blas_threads() == cores
    set_blas_threads(before)
