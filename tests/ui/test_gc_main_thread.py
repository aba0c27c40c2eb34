"""No cyclic garbage collection runs inside a worker job's thread; the UI
thread collects in its place, and afterwards the collector is as before."""
import gc
import threading
import weakref

import pytest
from PySide6.QtCore import QThread

from onnxstudio.ui import gc_main_thread
from onnxstudio.core import gc_policy
from onnxstudio.ui.workers import JobRunner


@pytest.fixture
def runner(qtbot):
    """A JobRunner deleted, with its jobs, while the application still exists."""
    # another test's job (the executor's preload thread ...) may still hold the collector
    qtbot.waitUntil(lambda: not gc_policy.held(), timeout=30_000)
    r = JobRunner()
    yield r
    r.shutdown()
    r.deleteLater()
    qtbot.wait(20)


class _Cycle:
    def __init__(self):
        self.me = self


class _Waiting(QThread):
    """Runs until told to end."""
    def __init__(self):
        super().__init__()
        self.release = threading.Event()

    def run(self):
        self.release.wait(300)


class _Allocating(QThread):
    """Makes cyclic garbage, crossing the thresholds many times: 30 rounds
    (~0.6 s), and on until the UI thread has collected while it runs (at most
    ~60 s more). Its timer looks every 200 ms: a loaded machine could leave
    the UI thread no turn within a fixed 0.6 s."""
    def __init__(self):
        super().__init__()
        self.ui_collected = threading.Event()

    def run(self):
        rounds = 0
        while rounds < 30 or (not self.ui_collected.is_set() and rounds < 3_000):
            for _ in range(5_000):
                _Cycle()
            self.msleep(20)
            rounds += 1


def test_collections_happen_on_the_ui_thread_only_while_jobs_run(qtbot, runner):
    threads = []       # per collection: (on the UI thread, during the job)
    job = _Allocating()

    def seen(phase, info):
        if phase == "start":
            threads.append((threading.current_thread() is threading.main_thread(), bool(runner.jobs)))
            if threads[-1] == (True, True):
                job.ui_collected.set()
    assert gc.isenabled()
    gc.callbacks.append(seen)
    try:
        runner.start(job)
        assert not gc.isenabled()               # held off while the job runs
        qtbot.waitUntil(lambda: not runner.jobs, timeout=120_000)
        assert gc.isenabled()                   # and back once it has ended
    finally:
        gc.callbacks.remove(seen)
    assert all(ui for ui, _ in threads)         # no collection in the worker
    assert any(during for _, during in threads)  # the UI thread collected meanwhile


def test_the_ui_thread_collects_garbage_made_during_a_job(qtbot, runner):
    gone = []
    job = _Waiting()
    runner.start(job)
    try:
        cycle = _Cycle()
        weakref.finalize(cycle, gone.append, True)
        del cycle
        for _ in range(20_000):                 # garbage enough for a due collection
            _Cycle()
        assert not gone and gc_policy.ui_thread_collects()
        qtbot.waitUntil(lambda: bool(gone), timeout=10_000)   # the timer collected it
    finally:
        job.release.set()
        qtbot.waitUntil(lambda: not runner.jobs, timeout=30_000)
    assert gc.isenabled() and not gc_policy.ui_thread_collects()


def test_a_pause_holds_the_ui_thread_collector_too(qtbot, runner):
    job = _Waiting()
    runner.start(job)
    try:
        with gc_policy.paused():
            for _ in range(20_000):
                _Cycle()
            assert gc_main_thread.collect_due() == 0
        assert gc_main_thread.collect_due() >= 1
    finally:
        job.release.set()
        qtbot.waitUntil(lambda: not runner.jobs, timeout=30_000)
    assert gc.isenabled()
