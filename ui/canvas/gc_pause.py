"""When Python's cyclic garbage collector may run on its own.

Two reasons turn automatic collection off for a while; it comes back on
when neither holds (if it was on to begin with):

- A pause (`gc_paused`): a re-layout builds, and the canvas takes in, tens
  of thousands of objects that all stay alive. Every allocation burst that
  size triggers collections that walk every live object of the process (the
  whole model's IR included) for nothing: on a 10,000-node model that was
  about a third of an edit's re-layout time. Cycles made meanwhile are
  collected once the pause ends.
- A worker job running (`job_started`/`job_ended`, called by JobRunner): the
  collector runs in whichever thread is allocating when its threshold is
  crossed, and in a worker it may finalise Qt wrappers caught in reference
  cycles (a closed window's widgets, scene items, connections); a Qt object
  destroyed off the UI thread can take the process down (a load job's
  thread crashed inside a collection). Meanwhile the UI thread collects by
  the same thresholds (ui/gc_main_thread.py), except during a pause.

Reference counting frees everything else at once, in any thread. Pauses
and jobs may nest and overlap across threads.
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
def gc_paused():
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


def paused() -> bool:
    return _pauses > 0


def held() -> bool:
    """Whether a pause or a job holds automatic collection off now."""
    return _pauses > 0 or _jobs > 0
