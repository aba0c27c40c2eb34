"""How a run's worker thread gives way to the UI thread for the interpreter
lock (GIL), so the window keeps answering while a model runs.

A thread waiting for the lock asks the holder to let go only after the
switch interval (5 ms by default), and the UI thread waits again after each
of its calls into Qt that let the lock go. While a run job works the
interval is 1 ms (benchmarks/run_responsiveness.py --why shows how long the
UI thread was blocked inside each long pause).

Not done: running the worker at a lower OS priority (a higher nice value).
The worker then holds the lock while it waits for a core, and the UI thread
waits for both: the blocked part of the pauses grew (up to 133 ms against
48 ms at most without, 2026-11-27, --load 2 on a machine at load 6-9).
"""
from __future__ import annotations

import sys

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
