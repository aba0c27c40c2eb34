"""How a run's worker thread gives way to the UI thread for the interpreter
lock (GIL), so the window keeps answering while a model runs.

A thread waiting for the lock asks the holder to let go only after the
switch interval (5 ms by default), and the UI thread waits again after each
of its calls into Qt that let the lock go. While a run job works the
interval is 1 ms (benchmarks/run_responsiveness.py --why shows how long the
UI thread was blocked inside each long pause).

Between two nodes the worker also gives way to the UI thread while that
handles events for more than AWAKE_S (`UIFirst`): each time both want the
lock it changes hands after the switch interval, and each hand-over waits
for the other thread to get a core, so with every core busy a 20 ms
handler took 100-300 ms. The worker waits until the event loop goes back
to sleep (Qt's event dispatcher says when: `awake`, `aboutToBlock`), at
most MAX_WAIT_S at a time and, beyond a first GRACE_S, at most a quarter
of the job's time so far: a UI that never sleeps slows a run down, never
stops it. Short turns (a timer, a progress report) do not hold it up.

While a run job works, numpy's BLAS (OpenBLAS) leaves one core to the UI
thread: it uses one thread fewer than the cores this process may use (at
least one). With its default of one per core, each matrix product also
took the UI thread's core, and OpenBLAS's helper threads spin for a while
after each product. On this 2-core machine (so one BLAS thread) with
another process busy, repeated runs of bert_12layer_narrow in a thread
took 0.11-0.19 s on one BLAS thread against 0.12-0.94 s on two
(core/exec/threads.py ThreadTuner says why: a share of a product whose
thread has no core holds up the rest). Every run job uses this one count,
so runs in the app stay equal to each other to the bit even on a CPU where
the thread count changes a product's last bits (core/exec/threads.py
thread_count_keeps_bits); a CLI run on all cores may differ from them
there, within any tolerance. A machine with more cores keeps all but one
for the products. A profile
made in the app measures with that count too (core/exec/profile.py leaves
a worker's setting as it is).

`job_started` and `job_ended` (on the UI thread) do all of this around a job.

Not done: running the worker at a lower OS priority (a higher nice value).
The worker then holds the lock while it waits for a core, and the UI thread
waits for both: the blocked part of the pauses grew (up to 133 ms against
48 ms at most without, 2026-11-27, --load 2 on a machine at load 6-9).
"""
from __future__ import annotations

import os
import sys
import threading
import time

from PySide6.QtCore import QAbstractEventDispatcher, QThread

SWITCH_INTERVAL_S = 0.001

_saved_interval = None


def hand_over_quickly() -> None:
    """While a run job works: the interpreter lock changes hands after 1 ms."""
    global _saved_interval
    if _saved_interval is None:
        _saved_interval = sys.getswitchinterval()
        sys.setswitchinterval(min(_saved_interval, SWITCH_INTERVAL_S))


def hand_over_as_before() -> None:
    global _saved_interval
    if _saved_interval is not None:
        sys.setswitchinterval(_saved_interval)
        _saved_interval = None


_saved_blas_threads = None


def blas_threads_for_a_job() -> int:
    """BLAS threads while a run job works: one core left to the UI thread."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):        # not Linux
        cores = os.cpu_count() or 1
    return max(1, cores - 1)


def leave_a_core_to_the_ui() -> None:
    """While a run job works: numpy's BLAS on a core fewer (see the module docstring)."""
    global _saved_blas_threads
    if _saved_blas_threads is None:
        from onnxstudio.core.exec.threads import blas_threads, set_blas_threads
        now = blas_threads()
        if now is not None and now > blas_threads_for_a_job():
            _saved_blas_threads = set_blas_threads(blas_threads_for_a_job())


def blas_threads_as_before() -> None:
    global _saved_blas_threads
    if _saved_blas_threads is not None:
        from onnxstudio.core.exec.threads import set_blas_threads
        set_blas_threads(_saved_blas_threads)
        _saved_blas_threads = None


def job_started() -> None:
    """A run job starts (called on the UI thread): the lock changes hands
    quickly, BLAS leaves a core to the UI, the worker watches the UI thread."""
    hand_over_quickly()
    leave_a_core_to_the_ui()
    watch_the_ui_thread()


def job_ended() -> None:
    hand_over_as_before()
    blas_threads_as_before()
    stop_watching()


AWAKE_S = 0.003
MAX_WAIT_S = 0.02
GRACE_S = 0.05

_asleep = threading.Event()     # the UI thread's event loop waits for events (set: nobody waits for it)
_asleep.set()
_awake_since = 0.0
_dispatcher = None


def _awake() -> None:
    global _awake_since
    _awake_since = time.monotonic()
    _asleep.clear()


def _about_to_block() -> None:
    _asleep.set()


def watch_the_ui_thread() -> None:
    """As a job starts (on the UI thread): follow when its event loop sleeps.
    Only inside a running event loop (exec): code that turns the loop by
    hand (processEvents, as tests do) never lets it sleep, and the worker
    would wait its longest at every node."""
    global _dispatcher
    if _dispatcher is not None or QThread.currentThread().loopLevel() == 0:
        return
    dispatcher = QAbstractEventDispatcher.instance()
    if dispatcher is None:
        return
    dispatcher.awake.connect(_awake)
    dispatcher.aboutToBlock.connect(_about_to_block)
    _dispatcher = dispatcher
    _awake()                        # it is handling the job's start now


def stop_watching() -> None:
    """No job runs any more: nobody waits for the UI thread."""
    global _dispatcher
    if _dispatcher is not None:
        _dispatcher.awake.disconnect(_awake)
        _dispatcher.aboutToBlock.disconnect(_about_to_block)
        _dispatcher = None
    _asleep.set()


class UIFirst:
    """One job's giving way (see the module docstring), called in its worker between two nodes."""

    def __init__(self):
        self.started = time.monotonic()
        self.waited = 0.0

    def give_way(self) -> None:
        if _asleep.is_set():
            return
        now = time.monotonic()
        if now - _awake_since < AWAKE_S:
            return
        allowed = min(MAX_WAIT_S, GRACE_S + (now - self.started) / 4 - self.waited)
        if allowed > 0:
            _asleep.wait(allowed)
            self.waited += time.monotonic() - now
