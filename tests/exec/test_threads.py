"""BLAS thread control and the per-session choice between one thread and all."""
import threading

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.exec import Session, threads


class _FakeMachine:
    """A BLAS thread setting and a clock: a run costs `cost[threads]` seconds."""

    def __init__(self, monkeypatch, cost, keeps_bits=True):
        self.threads, self.now, self.cost, self.log = 2, 0.0, cost, []
        monkeypatch.setattr(threads, "thread_count_keeps_bits", lambda n: keeps_bits)
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


def test_where_the_thread_count_changes_the_bits_the_tuner_keeps_it(monkeypatch):
    m = _FakeMachine(monkeypatch, {1: 0.01, 2: 0.1}, keeps_bits=False)
    tuner = threads.ThreadTuner()
    for _ in range(50):
        tuner.run(m.run)
    assert m.log == [2] * 50


def _matmul_chain(tmp_path):
    """y = ((x @ W0) @ W1) @ W2 with products large enough for OpenBLAS's
    threaded path and for the tuner (runs over a millisecond)."""
    rng = np.random.default_rng(1)
    weights = [numpy_helper.from_array(rng.standard_normal((512, 512)).astype(np.float32) / 20, f"W{i}")
               for i in range(3)]
    nodes = [helper.make_node("MatMul", [src, f"W{i}"], [dst])
             for i, (src, dst) in enumerate([("x", "h0"), ("h0", "h1"), ("h1", "y")])]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [256, 512])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [256, 512])], weights)
    path = tmp_path / "chain.onnx"
    path.write_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    return core.load(path)


def test_repeated_runs_of_a_session_are_equal_to_the_bit(tmp_path):
    """The tuner times runs on one BLAS thread and on all of them. On a CPU
    where OpenBLAS's one-thread path rounds differently (its Haswell kernels
    on an AMD EPYC: up to 3e-5 apart), switching made the same run on the
    same inputs give other bits from one call to the next."""
    model = _matmul_chain(tmp_path)
    x = np.random.default_rng(2).standard_normal((256, 512)).astype(np.float32)
    session = Session(model)
    first = session.run({"x": x})["y"].copy()
    for _ in range(6):      # both settings are tried within the first four runs
        assert np.array_equal(session.run({"x": x})["y"], first)
