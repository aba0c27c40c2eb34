"""Places where a long stretch of the executor's own Python work may pause
for a moment, at the request of whoever runs it in a thread.

A run in a worker thread holds the interpreter lock (GIL) through its
pure-Python stretches: building a plan (~120 ms for 1,375 nodes the first
time), taking the values in after a run. A UI waiting for the lock then
gets it only when the interpreter forces a switch, and on a busy machine
each switch waits for a core. A thread that `hook_this_thread(fn)`s has
`fn()` called at each `pause_point()` it passes (between two nodes); `fn`
may wait there. Without a hook a pause point does nothing; the hook is per
thread, so a thread that runs the executor for itself is never held up.
"""
from __future__ import annotations

from threading import get_ident
from typing import Callable, Optional

# By thread id (a missing attribute of a threading.local costs ~1 us a look:
# an exception inside; this ~0.1 us, thousands of times a run).
_hooks: dict[int, Callable[[], None]] = {}


def hook_this_thread(fn: Optional[Callable[[], None]]) -> None:
    """Call `fn` at each pause point the calling thread passes (None: no more;
    a thread that set a hook takes it away before it ends)."""
    if fn is None:
        _hooks.pop(get_ident(), None)
    else:
        _hooks[get_ident()] = fn


def pause_point() -> None:
    hook = _hooks.get(get_ident()) if _hooks else None
    if hook is not None:
        hook()
