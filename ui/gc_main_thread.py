"""The UI thread collects cyclic garbage while worker jobs hold the
automatic collector off (core/gc_policy.py owns the policy and says why).

A timer on the UI thread looks at the collector's counts and collects the
oldest generation whose threshold is crossed, as the automatic collector
would have.
"""
from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QTimer

from onnxstudio.core import gc_policy

_INTERVAL_MS = 200
_timer = None


def job_started() -> None:
    """A worker job is about to start (called on the UI thread)."""
    _ensure_timer()
    gc_policy.job_started()


def job_ended() -> None:
    gc_policy.job_ended()


def _ensure_timer() -> None:
    global _timer
    app = QCoreApplication.instance()
    if _timer is None and app is not None:
        _timer = QTimer(app)
        _timer.setInterval(_INTERVAL_MS)
        _timer.timeout.connect(collect_due)
        _timer.start()


def collect_due() -> int:
    """Collect like the automatic collector when the UI thread stands in for
    it; returns how many generations were collected (0: none was due)."""
    if not gc_policy.ui_thread_collects():
        return 0
    thresholds, counts = gc.get_threshold(), gc.get_count()
    if not thresholds[0] or counts[0] < thresholds[0]:
        return 0
    generation = 0
    while generation + 1 < len(counts) and thresholds[generation + 1] \
            and counts[generation + 1] >= thresholds[generation + 1]:
        generation += 1
    gc_policy.collect(generation)
    return generation + 1
