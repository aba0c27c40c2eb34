"""Work put off until the canvas has been repainted.

Qt fires every zero-interval timer that is due in one pass of the event
loop, and the repaint an edit asks for comes in that same pass: a timer
started while a new layout was taken in could run its work (the overview,
12k edge labels) before the canvas showed the edit. Two passes apart, the
pass in between handles the repaint first.
"""
from __future__ import annotations

from PySide6.QtCore import QTimer


class AfterPaint:
    def __init__(self, parent, work):
        self._arm = QTimer(parent)
        self._run = QTimer(parent)
        for timer in (self._arm, self._run):
            timer.setSingleShot(True)
            timer.setInterval(0)
        self._arm.timeout.connect(self._run.start)
        self._run.timeout.connect(work)

    def start(self) -> None:
        """Run the work two passes of the event loop from now (once, however often asked)."""
        if not self._run.isActive():
            self._arm.start()

    def stop(self) -> None:
        self._arm.stop()
        self._run.stop()

    @property
    def pending(self) -> bool:
        return self._arm.isActive() or self._run.isActive()
