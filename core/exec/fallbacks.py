"""Counts the merged units (fusion.py) and in-place steps (in_place.py) that
gave up and ran their members through the general path.

A fallback whose members then raise is how an error is reported: the
general path names the node, as on a first run. One whose members then
succeed is silent: the fast form raised (or missed a value) on inputs the
general path computes. That is a bug in the fast form, or at best speed
lost without a word, so it is counted here, and the executor's tests fail
when a model in them causes one (tests/exec/conftest.py).
"""
from __future__ import annotations

import threading
from collections import Counter
from typing import Callable


class Declined(Exception):
    """Raised by a merged unit for inputs it does not take on purpose (a
    dtype, a rank): the members run through the general path, uncounted."""


_lock = threading.Lock()    # sessions run in worker threads too
_silent: Counter = Counter()


def run_members(what: str, members: Callable[[], None]) -> None:
    """Run `members()` (the general path standing in for a fast form named
    `what`, e.g. "MatMul+Add"); count it when it succeeds."""
    members()
    with _lock:
        _silent[what] += 1


def silent() -> dict[str, int]:
    """Silent fallbacks so far in this process, by fast form."""
    with _lock:
        return dict(_silent)


def reset() -> None:
    with _lock:
        _silent.clear()
