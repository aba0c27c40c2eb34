"""The one owner of when Python's cyclic garbage collector may run.

Nothing else in core, ui or the shell calls gc.disable/enable/freeze/collect
directly: uncoordinated, one place turned the collector back on while
another still needed it off (a model built inside a worker job re-enabled
collection in the middle of the job). The policy:

- **Pauses** (`paused()`): code that makes many long-lived objects and no
  garbage turns automatic collection off while it runs, because every
  allocation burst triggers collections that walk every live object of the
  process for nothing: building the IR of a large graph (2-3x faster on a
  10**6-node graph), inference's walk (half the time on large models), a
  re-layout and the canvas taking it in (a third of an edit's re-layout on
  a 10,000-node model). Cycles made meanwhile are collected once it ends.
- **Worker jobs** (`job_started`/`job_ended`, called by the UI's JobRunner
  and the run controller): the collector runs in whichever thread is
  allocating when its threshold is crossed, and in a worker it may
  finalise Qt wrappers caught in reference cycles; a Qt object destroyed
  off the UI thread can take the process down. While a job runs, automatic
  collection is off and the UI thread collects by the same thresholds
  (ui/gc_main_thread.py, asking `ui_thread_collects()`), except during a
  pause.
- **A run's job** also freezes what exists when it starts (`freeze()` /
  `unfreeze()`): a full collection walks the model's IR and the scene's
  items, 100-200 ms with everything stopped on bert_12layer_narrow; during
  a run only what the run makes needs looking at.

Automatic collection comes back on when no pause and no job holds it off,
and only if it was on to begin with (a caller that turned it off itself
keeps it off). Pauses and jobs may nest and overlap across threads.
Reference counting frees everything else at once, in any thread.
"""
from __future__ import annotations

import gc
import threading
from contextlib import contextmanager

_lock = threading.Lock()
_pauses = 0
_jobs = 0
_was_enabled = False


def _hold(pauses: int, jobs: int) -> None:
    global _pauses, _jobs, _was_enabled
    with _lock:
        if _pauses == 0 and _jobs == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _pauses += pauses
        _jobs += jobs


def _release(pauses: int, jobs: int) -> None:
    global _pauses, _jobs
    with _lock:
        _pauses -= pauses
        _jobs -= jobs
        if _pauses == 0 and _jobs == 0 and _was_enabled:
            gc.enable()


@contextmanager
def paused():
    _hold(1, 0)
    try:
        yield
    finally:
        _release(1, 0)


def job_started() -> None:
    _hold(0, 1)


def job_ended() -> None:
    _release(0, 1)


def ui_thread_collects() -> bool:
    """Whether the UI thread should collect in the collector's place now:
    a job holds it off, no pause is on, and it was on before."""
    return _jobs > 0 and _pauses == 0 and _was_enabled


def held() -> bool:
    """Whether a pause or a job holds automatic collection off now."""
    return _pauses > 0 or _jobs > 0


def freeze() -> None:
    """Move every object alive now out of the collector's sight until `unfreeze`."""
    gc.freeze()


def unfreeze() -> None:
    gc.unfreeze()


def collect(generation: int) -> None:
    """Collect `generation` now (the UI thread standing in for the collector)."""
    gc.collect(generation)
