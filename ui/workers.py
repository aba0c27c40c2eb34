"""Background jobs: loading a model, analysing it, laying out a graph.

Each job is a QThread whose `run` does the blocking work and reports through
signals (delivered on the UI thread as queued connections). Cancelling a load
cannot interrupt the parser, so the result is simply discarded; a layout is
cancelled through core.layout's CancelToken, which also kills a running dot.

Ownership rule: every job is started through a JobRunner, never with a bare
`job.start()`. The runner becomes the job's parent and keeps it until its
thread has finished, however the caller's `self._job` reference is replaced;
on window close, application quit, or the runner's own destruction it cancels
and waits for every running job. Qt aborts the whole process when a QThread
object is destroyed while its thread still runs, so no timeout applies.
While any job runs, Python's cyclic collector is held off and the UI thread
collects in its place (core/gc_policy.py says why).
"""

from __future__ import annotations

import traceback

from PySide6.QtCore import QCoreApplication, QObject, QThread, Signal

from . import gc_main_thread


def friendly_error(exc: BaseException, what: str) -> str:
    """One readable sentence for a dialog; never a traceback."""
    text = str(exc).strip() or exc.__class__.__name__
    return text if what in text else f"{what}: {text}"


class JobRunner(QObject):
    """Owns the QThread jobs of one widget or controller (see the module doc)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        # Plain Python list: still readable from the `destroyed` handler, which
        # runs before Qt deletes this object's children (the jobs).
        self._running: list[QThread] = []
        self.closed = False
        running = self._running
        self.destroyed.connect(lambda *_: _stop_and_wait(running))
        app = QCoreApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(self.close)

    @property
    def jobs(self) -> list:
        return list(self._running)

    def start(self, job: QThread) -> bool:
        """Start `job` under this runner; False (job discarded) once closed."""
        if self.closed:
            job.deleteLater()
            return False
        job.setParent(self)
        self._running.append(job)
        job.finished.connect(lambda j=job: self._finished(j))
        gc_main_thread.job_started()        # no collection inside the worker thread
        job.start()
        return True

    def _finished(self, job) -> None:
        if job in self._running:
            self._running.remove(job)
            gc_main_thread.job_ended()
        # After `finished` the QThread may be deleted safely (Qt waits for
        # the last instructions of the thread in its destructor).
        job.deleteLater()

    def shutdown(self) -> None:
        """Cancel every job and wait until each thread has ended."""
        _stop_and_wait(self._running)

    def close(self) -> None:
        """No job starts any more (the application is quitting)."""
        self.closed = True
        self.shutdown()


def _stop_and_wait(jobs: list) -> None:
    for job in list(jobs):
        try:
            cancel = getattr(job, "cancel", None)
            if cancel is not None:
                cancel()
        except RuntimeError:        # its C++ object is already gone
            pass
    for job in list(jobs):
        try:
            job.wait()
        except RuntimeError:
            pass
        if job in jobs:         # its `finished` may never be delivered now
            jobs.remove(job)
            gc_main_thread.job_ended()


class LoadJob(QThread):
    loaded = Signal(object)          # core.Model
    failed = Signal(str)             # one-line message naming the file

    def __init__(self, path: str, parent=None):
        super().__init__(parent)
        self.path = path
        self.cancelled = False
        # What the signals carry, kept: a window that adopts a running job
        # (ui/early_open.py) may start listening after they went out.
        self.model = None
        self.error: str | None = None

    def cancel(self) -> None:
        self.cancelled = True

    def run(self) -> None:
        from onnxstudio import core
        try:
            model = core.load(self.path)
            # The IR may build the graph on first access: do that here, off
            # the UI thread, so opening never stalls the window.
            _ = model.graph.nodes
        except Exception as exc:   # noqa: BLE001 - any failure becomes a dialog, not a crash
            if not self.cancelled:
                self.error = friendly_error(exc, str(self.path))
                self.failed.emit(self.error)
            return
        if not self.cancelled:
            self.model = model
            self.loaded.emit(model)


class AnalysisJob(QThread):
    """Inference and the checker for a just-opened Document, off the UI thread;
    the window hands the result to the Document if nothing was edited meanwhile."""
    analysed = Signal(object, int)   # core.analysis.Analysis, the revision it started from
    failed = Signal(str)             # what stopped it (a bug of ours: the model is left as it is)

    def __init__(self, document, parent=None):
        super().__init__(parent)
        self.document = document
        self.revision = document.revision

    def run(self) -> None:
        try:
            from onnxstudio.core.analysis import Analysis
            analysis = Analysis(self.document.model)
        except Exception as e:      # noqa: BLE001 - analysis must never break viewing
            traceback.print_exc()   # the details, for a bug report
            self.failed.emit(f"{type(e).__name__}: {e}")
            return
        self.analysed.emit(analysis, self.revision)


def run_inference(model) -> dict:
    """{ir.Value: type} from core.infer, or {} when it fails."""
    from onnxstudio.core.infer import Inference
    try:
        # Keyed by Value: names repeat across subgraph bodies.
        engine = Inference(model)
        engine.run()
        return dict(engine.types)
    except Exception:          # noqa: BLE001 - inference must never break viewing
        traceback.print_exc()
        return {}


# Past this many boxes a canvas takes minutes and gigabytes to build and
# shows nothing readable (a flat chain of 10**6 nodes, say).
MAX_BOXES = 50_000


class TooManyBoxes(Exception):
    """The level would hold more than MAX_BOXES boxes: it is not laid out."""

    def __init__(self, boxes: int):
        super().__init__(f"{boxes:,} boxes, more than {MAX_BOXES:,}")
        self.boxes = boxes


def lay_out_level(graph, measure, expanded, token, time_limit: float, *, previous=None, stale=None,
                  after=None, pin_fits=None, shown_layout=None):
    """(GraphView, Layout) of one graph level with `expanded` groups open, in
    the calling (worker) thread: the canvas's LayoutJob and the command
    line's EarlyOpen both lay out through here. Without the keywords it is
    the whole level, as a model opens; with them, the level again after an
    edit (LayoutJob's attributes of the same names say what each is).
    Raises TooManyBoxes, or core.layout.LayoutCancelled once `token` is set."""
    from onnxstudio.core import layout as lay
    view = lay.build_view(graph, measure, expanded=expanded, previous=previous, stale=stale)
    token.raise_if_cancelled()
    if len(view.request.nodes) > MAX_BOXES:
        raise TooManyBoxes(len(view.request.nodes))
    # Pinning keeps the groups' frames as shown: a box that moved to
    # another group (a rename changed its scope) is laid out whole instead.
    pin = after is not None and (pin_fits is None or pin_fits(view))
    # After an edit (previous set) only the pieces are worth keeping on disk.
    # Pinned (after an edit), edges between pieces are drawn by the pinning.
    result = lay.layout(view.request, cancel=token, time_limit=time_limit, keep_whole=previous is None,
                        between_pieces=not pin or previous is None, previous=shown_layout if pin else None)
    if pin:
        result = after(view, result)
    return view, result


class LayoutJob(QThread):
    done = Signal(object, object)    # core.layout.GraphView, core.layout.Layout
    failed = Signal(str)
    cancelled_signal = Signal()

    def __init__(self, graph, expanded, measure, time_limit: float = 120.0, parent=None):
        super().__init__(parent)
        from onnxstudio.core.layout import CancelToken
        self.graph = graph
        self.expanded = expanded
        self.measure = measure
        self.time_limit = time_limit
        self.token = CancelToken()
        # Optional f(view, layout) -> layout run here, in the worker, before
        # `done` (the canvas pins the new layout to the old one this way).
        self.after = None
        # The view of the same graph before an edit: open groups follow moved paths.
        self.previous = None
        self.stale = None       # with previous: ids edited since (see build_view)
        # The layout on screen, pinned to after an edit: pieces the edit left
        # equal are taken from it (see core.layout.layout's `previous`).
        self.shown_layout = None
        self.pin_fits = None    # with after: whether the new view may be pinned to the shown one

    def cancel(self) -> None:
        self.token.cancel()

    def run(self) -> None:
        if self.previous is None:
            return self._run()
        # A re-layout after an edit: short, and it makes tens of thousands of
        # objects that all stay alive (see core/gc_policy.py).
        from onnxstudio.core import gc_policy
        with gc_policy.paused():
            self._run()

    def _run(self) -> None:
        from onnxstudio.core import layout as lay
        if self.previous is None and self.after is None:
            # The model named on the command line may be laid out already.
            from .early_open import take_layout
            prepared = take_layout(self.graph, self.expanded, lambda: self.token.cancelled)
            if self.token.cancelled:
                self.cancelled_signal.emit()
                return
            if prepared is not None:
                self.done.emit(*prepared)
                return
        try:
            view, result = lay_out_level(self.graph, self.measure, self.expanded, self.token, self.time_limit,
                                         previous=self.previous, stale=self.stale, after=self.after,
                                         pin_fits=self.pin_fits, shown_layout=self.shown_layout)
        except TooManyBoxes as too_many:
            self.failed.emit(self.tr("This graph would need {boxes} boxes on one canvas; onnxstudio "
                                     "draws at most {most}. Its nodes, search and properties are still "
                                     "there.").format(boxes=f"{too_many.boxes:,}", most=f"{MAX_BOXES:,}"))
            return
        except lay.LayoutCancelled:
            self.cancelled_signal.emit()
            return
        except Exception as exc:   # noqa: BLE001
            traceback.print_exc()
            self.failed.emit(friendly_error(exc, self.tr("Layout failed")))
            return
        if self.token.cancelled:
            self.cancelled_signal.emit()
            return
        self.done.emit(view, result)
