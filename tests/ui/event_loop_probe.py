"""Measures how long the Qt event loop goes without running: a 5 ms timer
records the gaps between its ticks while the block runs.

    with EventLoopProbe() as probe:
        ...                       # start work, wait for it with qtbot / processEvents
    probe.longest_ms, probe.ticks
"""
from __future__ import annotations

import time

from PySide6.QtCore import QTimer


class EventLoopProbe:
    def __init__(self, interval_ms: int = 5):
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        self.ticks = 0
        self.longest_ms = 0.0
        self._last = None

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.longest_ms = max(self.longest_ms, (now - self._last) * 1000)
        self._last = now
        self.ticks += 1

    def __enter__(self) -> "EventLoopProbe":
        self._last = time.perf_counter()
        self.timer.start()
        return self

    def __exit__(self, *exc) -> None:
        self.timer.stop()
