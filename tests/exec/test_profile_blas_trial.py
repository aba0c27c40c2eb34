"""The profile's trial of one BLAS thread against all of them is bounded:
the run on all threads stops once it has taken as long as the run on one
(it has lost by then), and the note says what was chosen and why. The
thread setting and a slow run on two threads are simulated, so the test
means the same on any machine, with or without OpenBLAS."""
from contextlib import contextmanager
from types import SimpleNamespace

import numpy as np
from onnx import helper

from onnxstudio.core.exec import profile as profile_module
from onnxstudio.core.exec import session as session_module
from onnxstudio.core.exec.profile import Profiler

from one_graph import load_graph, tensor

NODES = 30


def _relu_chain(tmp_path):
    names = ["x"] + [f"r{i}" for i in range(NODES - 1)] + ["y"]
    nodes = [helper.make_node("Relu", [a], [b], name=f"relu{i}") for i, (a, b) in enumerate(zip(names, names[1:]))]
    model = load_graph(tmp_path, nodes, [tensor("x", [4, 8])], [tensor("y", [4, 8])], [])
    return model, {"x": np.ones((4, 8), np.float32)}


class SimulatedThreads:
    """Two BLAS threads to choose from; under a setting of n threads every
    piece of a run takes delay_by_threads[n] seconds more (none if absent).
    The profiler and the session read a clock of the simulation's own, moved
    on a microsecond a reading and by each delay: the machine's speed and
    load change nothing (a real sleep of 2 ms a piece let a loaded machine's
    stall decide which thread count won)."""

    TICK = 1e-6

    def __init__(self, monkeypatch, profiler, delay_by_threads):
        self.profiler = profiler
        self.delay = delay_by_threads
        self.settings = []          # thread counts set, in order
        self.pieces_run = {1: 0, 2: 0}
        self.current = 2
        self.now = 0.0
        monkeypatch.setattr(profile_module, "blas_threads", lambda: 2)
        monkeypatch.setattr(profile_module, "limited_blas_threads", self.limited)
        for module in (profile_module, session_module):
            monkeypatch.setattr(module, "time", SimpleNamespace(perf_counter=self.clock))

    def clock(self) -> float:
        self.now += self.TICK
        return self.now

    @contextmanager
    def limited(self, n):
        self.settings.append(n)
        before, self.current = self.current, n
        runners = self.profiler.session.plan.runners
        saved = list(runners)
        runners[:] = [self._slowed(r) for r in saved]
        try:
            yield
        finally:
            runners[:] = saved
            self.current = before

    def _slowed(self, runner):
        def piece(values, frame):
            self.pieces_run[self.current] += 1
            self.now += self.delay.get(self.current, 0.0)
            return runner(values, frame)
        return piece


def test_a_trial_on_all_threads_stops_once_it_is_slower_than_on_one(tmp_path, monkeypatch):
    model, feeds = _relu_chain(tmp_path)
    profiler = Profiler(model, runs=2)
    sim = SimulatedThreads(monkeypatch, profiler, {2: 0.05})
    profile = profiler.run(feeds)
    assert len(profiler.session.plan.runners) == NODES
    # the trial on one thread, the trial on two, then the measured runs on the winner: one
    assert sim.settings == [1, 2, 1]
    # one thread: the trial run and the two measured runs, every piece; two threads: stopped early
    assert sim.pieces_run[1] == 3 * NODES
    assert 1 <= sim.pieces_run[2] <= 3, sim.pieces_run
    note = next(n for n in profile.notes if n.startswith("BLAS on 1 thread"))
    assert f"on 2 threads the trial run was stopped, slower already, after {sim.pieces_run[2]} of its {NODES} steps" \
        in note, note
    assert profile.wall < 0.05            # the measured runs were on one thread, not slowed
    assert all(n.seconds > 0 for n in profile.nodes)


def test_all_threads_win_when_their_run_is_faster(tmp_path, monkeypatch):
    model, feeds = _relu_chain(tmp_path)
    profiler = Profiler(model, runs=2)
    sim = SimulatedThreads(monkeypatch, profiler, {1: 0.002})
    profile = profiler.run(feeds)
    assert sim.settings == [1, 2, 2]
    assert sim.pieces_run[2] == 3 * NODES            # the trial ran to the end: it was not slower
    note = next(n for n in profile.notes if n.startswith("BLAS on 2 threads, the faster: a run took "))
    assert " ms on 1 thread and " in note and note.endswith(" ms on 2 threads"), note
