"""A function made to wait, in the worker that calls it, until the test lets
it go: a job held at a known point, so that what the test does meanwhile
(press Cancel, look at the canvas) surely comes before the job goes on, on
any machine under any load. A fixed sleep (viewer_helpers.slowed) only
made that likely: a busy machine let the job end first."""
from __future__ import annotations

import contextlib
import itertools
import threading

# However long a held call waits at most: a test that fails never leaves a worker stuck.
LIMIT_S = 300.0


class Hold:
    def __init__(self):
        self.released = threading.Event()
        self.waiting = threading.Event()        # a call is held now (or was)

    def let_go(self) -> None:
        self.released.set()


@contextlib.contextmanager
def held(monkeypatch, module, name: str, from_call: int = 1):
    """`module.name` waits, from its call number `from_call` on (1: the
    first), until `Hold.let_go()` or the end of the with-block, which lets
    go whatever happened (a window's shutdown waits for its workers)."""
    real = getattr(module, name)
    hold = Hold()
    calls = itertools.count(1)

    def waiting(*args, **kwargs):
        if next(calls) >= from_call:
            hold.waiting.set()
            hold.released.wait(LIMIT_S)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, waiting)
    try:
        yield hold
    finally:
        hold.let_go()
