"""BLAS thread control and the per-session choice between one thread and all."""
import threading

import numpy as np

from onnxstudio.core.exec import threads


class _FakeMachine:
    """A BLAS thread setting and a clock: a run costs `cost[threads]` seconds."""

    def __init__(self, monkeypatch, cost):
        self.threads, self.now, self.cost, self.log = 2, 0.0, cost, []
        monkeypatch.setattr(threads, "blas_threads", lambda: self.threads)
        monkeypatch.setattr(threads, "set_blas_threads", self._set)
        monkeypatch.setattr(threads.time, "perf_counter", lambda: self.now)

    def _set(self, n):
        before, self.threads = self.threads, n
        return before

    def run(self):
        self.log.append(self.threads)
        self.now += self.cost[self.threads]


def test_the_tuner_keeps_the_faster_setting_and_follows_a_change(monkeypatch):
    m = _FakeMachine(monkeypatch, {1: 0.01, 2: 0.1})      # busy cores: two threads are slow
    tuner = threads.ThreadTuner()
    for _ in range(300):
        tuner.run(m.run)
    assert m.threads == 2                                  # the caller's setting is restored
    assert m.log.count(2) <= 8                             # 2 to learn, then rarer and rarer retries
    m.cost = {1: 0.01, 2: 0.004}                           # the cores are free again
    m.log.clear()
    for _ in range(300):
        tuner.run(m.run)
    assert m.log[-50:].count(2) >= 45                     # switched (one thread is retried now and then)


def test_short_runs_and_a_single_thread_are_left_alone(monkeypatch):
    m = _FakeMachine(monkeypatch, {1: 1e-4, 2: 1e-4})
    tuner = threads.ThreadTuner()
    for _ in range(50):
        tuner.run(m.run)
    assert m.log.count(1) == 0
    m.threads = 1
    m.cost = {1: 1.0}
    tuner = threads.ThreadTuner()
    for _ in range(5):
        tuner.run(m.run)
    assert m.log[-5:] == [1] * 5


def test_blas_thread_count_can_be_set_and_restored():
    before = threads.blas_threads()
    if before is None:      # not OpenBLAS on Linux: the functions say so and change nothing
        assert threads.set_blas_threads(1) is None
        return
    with threads.limited_blas_threads(1):
        assert threads.blas_threads() == 1
        a = np.ones((64, 64), np.float32)
        assert (a @ a)[0, 0] == 64
    assert threads.blas_threads() == before


def test_runs_on_other_threads_leave_the_setting_alone(monkeypatch):
    m = _FakeMachine(monkeypatch, {1: 0.01, 2: 0.1})
    tuner = threads.ThreadTuner()

    def work():
        for _ in range(20):
            tuner.run(m.run)
    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert m.log == [2] * 20
