"""The canvas's layouts in the background: one LayoutJob at a time, a newer
request cancelling the older one, and what a finished job hands back.

A re-layout after an edit is pinned to the layout on screen in the worker
(canvas/pinning.py); the result says so, so the panel keeps the view.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QElapsedTimer, QObject, Signal

from ..workers import JobRunner, LayoutJob
from .pinning import moves_between_groups, pin_to_shown


@dataclass
class LaidOut:
    view_model: object              # core.layout.GraphView
    result: object                  # core.layout.Layout (pinned when `pinned`)
    after_edit: bool                # built against the view shown before (open groups followed edits)
    same: Optional[dict] = None     # pinned: new box id -> old box id
    changed: Optional[set] = None   # pinned: box ids that moved or changed
    warnings: tuple = ()

    @property
    def pinned(self) -> bool:
        return self.same is not None


class LayoutRunner(QObject):
    done = Signal(object)           # LaidOut
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, measure, parent=None):
        super().__init__(parent)
        self.measure = measure
        self.jobs = JobRunner(self)     # keeps replaced layouts alive until they end
        self._job: LayoutJob | None = None

    @property
    def running(self) -> bool:
        return self._job is not None

    def start(self, graph, expanded, pin_to=None, previous=None, stale=None) -> bool:
        """Lay `graph` out with `expanded` groups open. `pin_to`: (layout,
        view model) on screen to pin the new layout to; `previous`/`stale`:
        the shown view of the same graph and the ids edited since (see
        core.layout.build_view). False when the application is quitting."""
        self.cancel()
        job = LayoutJob(graph, expanded, self.measure, parent=self)
        if pin_to is not None:
            old_layout, old_view_model = pin_to

            def after(view_model, result):
                result, job.same, job.changed = pin_to_shown(old_layout, old_view_model, view_model, result)
                return result
            job.after = after
            job.pin_fits = lambda view_model: not moves_between_groups(old_view_model, view_model)
            job.shown_layout = old_layout
        job.previous, job.stale = previous, stale
        job.done.connect(lambda view_model, result, j=job: self._done(j, view_model, result))
        job.failed.connect(lambda message, j=job: self._failed(j, message))
        job.cancelled_signal.connect(lambda j=job: self._cancelled(j))
        if not self.jobs.start(job):
            return False
        self._job = job
        return True

    def cancel(self) -> None:
        if self._job is not None:
            job, self._job = self._job, None
            job.cancel()

    def wait(self, more=lambda: False, timeout_ms: int = 120000) -> bool:
        """Block until no layout runs and `more()` is false, or the time is up
        (tests and the headless render), delivering the jobs' signals meanwhile."""
        timer = QElapsedTimer()
        timer.start()
        while (self._job is not None or more()) and timer.elapsed() < timeout_ms:
            if self._job is not None:
                self._job.wait(QDeadlineTimer(50))
            QCoreApplication.processEvents()
        return self._job is None

    def _done(self, job, view_model, result) -> None:
        if job is not self._job:          # cancelled or superseded
            return
        self._job = None
        self.done.emit(LaidOut(view_model, result, job.previous is not None, getattr(job, "same", None),
                               getattr(job, "changed", None), tuple(result.warnings)))

    def _failed(self, job, message: str) -> None:
        if job is self._job:
            self._job = None
            self.failed.emit(message)

    def _cancelled(self, job) -> None:
        if job is self._job:
            self._job = None
            self.cancelled.emit()
