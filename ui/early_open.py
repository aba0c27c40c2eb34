"""The model named on the command line, read and laid out while the window is
still being built.

`onnxstudio MODEL` knows what to show before any widget exists. Through the
window alone (MainWindow.open_path: a LoadJob, then the canvas's LayoutJob)
the read and the layout would start only once the window is built and
shown; an EarlyOpen starts them right after the QApplication (the fonts the
layout measures with exist from then on), so they overlap the window's
construction, and the `dot` process runs on another core meanwhile.

The window adopts the job as the load of that file (MainWindow.open_path
with `early`) and, once the model is its document, offers the layout made
here (`offer`); the canvas's first LayoutJob for that very graph object,
with the same groups open, takes it (`take_layout`) instead of laying the
graph out again. Anything else (another file, other groups, a recovered
session opened instead) lays out as before and the early work is dropped.
"""
from __future__ import annotations

import concurrent.futures
import threading

from .workers import LoadJob, lay_out_level

# The one layout on offer to the canvas: (graph, expanded, job). Set on the UI
# thread when the window adopts the model; taken by a LayoutJob's thread.
_offer_lock = threading.Lock()
_offered: tuple | None = None


class EarlyOpen(LoadJob):
    """Reads `path` (a LoadJob: `loaded`/`failed`), then lays out its main
    graph with `expanded` groups open (None: the layout's default choice),
    as the canvas's LayoutJob would."""

    def __init__(self, path: str, expanded, measure, time_limit: float = 120.0, parent=None):
        super().__init__(path, parent)
        from onnxstudio.core.layout import CancelToken
        self.expanded = expanded
        self.measure = measure
        self.time_limit = time_limit
        self.token = CancelToken()
        # (GraphView, Layout), or None when this job made none (failed, cancelled, too big)
        self.laid_out: concurrent.futures.Future = concurrent.futures.Future()

    def cancel(self) -> None:
        super().cancel()
        self.token.cancel()

    def run(self) -> None:
        try:
            super().run()           # the model, or `failed` with the file's message
            self.laid_out.set_result(self._lay_out() if self.model is not None and not self.cancelled else None)
        finally:
            if not self.laid_out.done():
                self.laid_out.set_result(None)

    def _lay_out(self):
        try:
            laid_out = lay_out_level(self.model.graph, self.measure, self.expanded, self.token, self.time_limit)
        except Exception:   # noqa: BLE001 - too big, cancelled or failed: the canvas lays out and reports itself
            return None
        return None if self.token.cancelled else laid_out

    def offer(self) -> None:
        """The window shows this job's model: its layout may serve the canvas."""
        global _offered
        with _offer_lock:
            _offered = (self.model.graph, self.expanded, self)


def take_layout(graph, expanded, cancelled) -> tuple | None:
    """(GraphView, Layout) of `graph` with `expanded` groups open, made by the
    EarlyOpen that read it, waiting for it in the caller's (worker) thread
    until it is done or `cancelled()`; None when none was made for exactly
    this request. The offer is gone after the first request, taken or not."""
    global _offered
    with _offer_lock:
        offered = _offered
        if offered is None or offered[0] is not graph:
            return None
        _offered = None
    _graph, early_expanded, job = offered
    if early_expanded != expanded:
        return None
    while not cancelled():
        try:
            return job.laid_out.result(timeout=0.05)
        except concurrent.futures.TimeoutError:
            continue
    return None


def start_early_open(path: str, settings):
    """An EarlyOpen of `path` started now, or None when `path` is not a file.
    Its groups are the ones the window will ask for: those saved for the model."""
    import pathlib

    from PySide6.QtCore import QCoreApplication

    from .canvas.scene import measure_label
    from .settings import viewer_state
    from .workers import JobRunner
    if not pathlib.Path(path).is_file():
        return None
    expanded, _view = viewer_state(settings.model_state(pathlib.Path(path)))
    job = EarlyOpen(str(pathlib.Path(path)), expanded, measure_label)
    # Kept by the application until the window takes it over (MainWindow.open_path).
    runner = JobRunner(QCoreApplication.instance())
    if not runner.start(job):
        return None
    return job
