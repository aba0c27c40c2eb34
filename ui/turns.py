"""One slice of deferred work per turn of the event loop.

Work put off to a zero-interval timer so that it does not lengthen the
handler that asked for it (the run's value tags placed a few at a time, a
node form built on one turn and shown on the next) still ran back to back:
Qt fires every timer that is due in one pass, so a step's form, its tags
and the next chunk of tags held the loop as one pause (110-300 ms on a busy
2-core machine, benchmarks/run_responsiveness.py --why). A timer handler
asks `take()` first; when another slice already ran in this pass it starts
its timer again and returns, and runs in a later pass, after the input
and paint events that came meanwhile.

After a slice, one whole pass goes by before the next may run: the pass
right after it begins with the events it caused (its repaint) and any
result a job sent meanwhile, and a slice at that pass's end made the three
one pause (a step's node form, the step after it and the repaint: 25 ms on
a core between two ticks of benchmarks/run_responsiveness.py's timer).
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QTimer

_taken = False
_passes_to_wait = 0
_release = None
PASSES_BETWEEN = 2          # passes from a slice to the next: one whole pass in between


def take() -> bool:
    """Whether the caller may run its slice now (the first to ask in a pass may)."""
    global _taken, _release, _passes_to_wait
    if _taken:
        return False
    if _release is None:
        app = QCoreApplication.instance()
        if app is None:              # no event loop to share
            return True
        _release = QTimer(app)
        _release.setSingleShot(True)
        _release.setInterval(0)
        _release.timeout.connect(_free)
    _taken = True
    _passes_to_wait = PASSES_BETWEEN
    # A timer started now fires in the next pass, before the timers the
    # slices that were refused start after it.
    _release.start()
    return True


def _free() -> None:
    global _taken, _passes_to_wait
    _passes_to_wait -= 1
    if _passes_to_wait > 0:
        _release.start()
        return
    _taken = False


def slice_timer(parent, slice_of_work, alive=None) -> QTimer:
    """A single-shot timer that runs `slice_of_work` on a turn of its own
    (`run_or_wait`) when started; with `alive`, only while `alive()` holds
    (the timer's owner may outlive what the work touches)."""
    timer = QTimer(parent)
    timer.setSingleShot(True)
    timer.setInterval(0)
    if alive is None:
        timer.timeout.connect(lambda: run_or_wait(timer, slice_of_work))
    else:
        timer.timeout.connect(lambda: alive() and run_or_wait(timer, slice_of_work))
    return timer


def run_or_wait(timer: QTimer, slice_of_work) -> None:
    """For a deferred slice's timer: run `slice_of_work` now, or start the timer again."""
    if take():
        slice_of_work()
    else:
        timer.start()
