"""The run controller: one DebugRun per open document, driven from the UI
and executed in a worker thread so the window never freezes.

Every command (run, run selection, step, continue, run to node, compare)
becomes one job on a RunJob thread; only one runs at a time. The job
reports progress (node i of N) through a queued signal, at most every
PROGRESS_MS. The UI reads the DebugRun's values only between jobs.

An edit of the document cancels a running job and drops exactly the cached
values downstream of what the edit touched (DebugRun.invalidate); the next
run computes only those.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Callable, Optional

from PySide6.QtCore import QObject, QThread, Signal
from shiboken6 import isValid

from onnxstudio.core import gc_policy
from .. import turns
from ..workers import JobRunner
from . import ui_thread_slice, worker_yields

# core.exec.debug loads the executor (every kernel): imported when a model is
# opened, not while the window is built.

PROGRESS_MS = 40


class RunJob(QThread):
    progressed = Signal(int, int, str)        # i, n, node name
    succeeded = Signal(object)
    failed = Signal(str, object)              # message, the failing node (or None)
    cancelled = Signal()

    def __init__(self, work: Callable, parent=None):
        super().__init__(parent)
        self.work = work
        self._last = 0.0
        self.on_cancel: Optional[Callable] = None     # stops `work` (the DebugRun's cancel)
        # The last (i, n, node name) reported, shown or not: a node that runs long right after
        # the first count was held back (a Loop of 4,000 iterations) is shown from here (RunUI).
        self.latest: Optional[tuple] = None

    def cancel(self) -> None:
        if self.on_cancel is not None:
            self.on_cancel()

    def report(self, i: int, n: int, node) -> None:
        """Before each node (in the worker): give way to the UI thread, and say how far the job is."""
        self.ui_first.give_way()
        self.latest = (i, n, node.display_name)
        # Not for the last node (the job's end comes next and resets the bar),
        # and the first count only once the job has worked PROGRESS_MS: a step
        # or a short run is over before anyone could read it, and each shown
        # count repaints the bar (2-8 ms), in the same pause as the result.
        if 0 < n <= i + 1:
            return
        now = time.monotonic()
        if now - self._last >= PROGRESS_MS / 1000 or n == 0:
            self._last = now
            self.progressed.emit(i, n, node.display_name)

    def run(self) -> None:
        from onnxstudio.core.errors import CoreError
        from onnxstudio.core.exec import Cancelled
        from onnxstudio.core.exec.pause_points import hook_this_thread
        self._last = time.monotonic()             # the first count after PROGRESS_MS (see report)
        # Made as the thread starts, not with the job (which may wait a turn of the
        # event loop to start): how long it gives way grows with the time it has worked.
        self.ui_first = worker_yields.UIFirst()
        # Also between the nodes of the executor's own long stretches (a plan, taking values in).
        hook_this_thread(self.ui_first.give_way)
        try:
            result = self.work(self)
        except Cancelled:
            self.cancelled.emit()
        except CoreError as e:
            self.failed.emit(str(e), getattr(e, "node", None))
        except Exception as e:  # noqa: BLE001 - shown in the panel; the app goes on
            from onnxstudio.core.exec.compare import CompareError
            text = str(e).strip() or type(e).__name__
            if not isinstance(e, CompareError):
                text = f"{type(e).__name__}: {text}"
            self.failed.emit(text, getattr(e, "node", None))
        else:
            self.succeeded.emit(result)
        finally:
            hook_this_thread(None)


class RunController(QObject):
    busy = Signal(str)                # a job started: what it does
    progressed = Signal(int, int, str)
    idle = Signal()                   # no job runs any more
    updated = Signal()                # values, current node, breakpoints or reports changed
    stopped = Signal(object)          # StepEvent where a step/continue ended
    message = Signal(str, str)        # level ("info", "error", "note": the Run dock's status only), text
    report_ready = Signal(object)     # core.exec.compare.Report
    ran = Signal(object)              # outputs of a finished run
    failed_at = Signal(object)        # the node a job failed at (the innermost, inside its body)

    step_on = (False, False)          # whether constants / shape arithmetic are steps (Run menu)
    # The DebugRun's values when the Run dock's inputs last changed (see inputs_stale).
    _stale_values = None
    _delivering = False               # a job's result is being shown (see _start, `delivering`)
    _report_feeds = None              # the model inputs the last comparison ran on (see report_current)
    _report_feeds_checked = (None, False)   # (the DebugRun's feeds last checked against them, the answer)
    _thread_later = False             # see thread_next_turn
    _busy_text = ""                   # what the job running (or the last one) does, as the Run dock said it

    def __init__(self, parent=None):
        super().__init__(parent)
        self.qdoc = None
        self._debug = None                # core.exec.debug.DebugRun of the open document
        self.break_on_nonfinite = False   # given to each document's DebugRun
        self.job: Optional[RunJob] = None
        self.jobs = JobRunner(self)       # keeps every started RunJob alive until it ends
        # node -> the box of another node (or group) that draws it, or None: a
        # step's status names that box when the canvas outlines it, not the node.
        self.drawn_inside: Optional[Callable] = None
        self.feeds_source: Optional[Callable[[], dict]] = None   # made in the worker: files, images
        self.sizes_made_one: Optional[Callable[[], list]] = None  # dims the made inputs got 1 for, unsized
        self.report = None                # last comparison (onnxruntime or our own runs)
        self.report_kind = ""
        self.reference: Optional[dict] = None    # values kept to compare a later run with
        self.other_values: dict = {}              # the compared-with side of the last comparison
        self.invalidated: set = set()             # names the last edit dropped
        self.last_error = ""
        self.last_event = None                    # core.exec.debug.StepEvent where the last step ended
        self.ran_feeds: dict = {}
        self.fed_shapes: dict = {}                # input name -> shape of the last value fed to the model
        self.shape_note = ""                      # which inputs the last fed values resized
        # What a whole run keeps inside If/Loop/Scan bodies (DebugRun's options
        # of the same names; 512 MiB is core.exec.kept.DEFAULT_BUDGET, not
        # imported here: it would load the executor with the window).
        self.body_options = {"keep_body_values": True, "body_budget": 512 << 20, "every_iteration": False}
        # A job's outcome (its result shown, its failure, its cancel) is handled
        # on a turn of the event loop of its own (ui/turns.py), as (job, handler).
        # Handled as its signal came, it ran right after another slice of
        # deferred work (a step's node form, 8-17 ms on a core), and both
        # with the repaint it asks for made one pause (30-47 ms on a core
        # while stepping bert_12layer_narrow, benchmarks/run_responsiveness.py).
        self._outcome = None
        self._outcome_timer = turns.slice_timer(self, self._handle_outcome)
        self._to_start = None                # a job whose thread starts on a turn of its own (see _start)
        self._starter = turns.slice_timer(self, self._start_pending)

    # -- document -------------------------------------------------------------------------

    def set_document(self, qdoc) -> None:
        self.cancel(wait=True)
        if self.qdoc is not None:
            try:
                self.qdoc.changed.disconnect(self._document_changed)
            except (RuntimeError, TypeError):
                pass
        self.qdoc = qdoc
        self._debug = None              # made on first use (see `debug`)
        self.report = None
        self.reference = None
        self.other_values = {}
        self.invalidated = set()
        self.last_event = None
        self._stale_values = None
        self._report_feeds, self._report_feeds_checked = None, (None, False)
        self.fed_shapes = {}
        self.shape_note = ""
        if qdoc is not None:
            qdoc.changed.connect(self._document_changed)
        self.updated.emit()

    def preload_executor(self) -> None:
        """Import the executor in the background now. The window asks once
        the opened model is drawn and analysed: started at open, the import
        competes with the first paint for the interpreter."""
        _preload_executor()

    @property
    def debug(self):
        """The document's DebugRun, made on first use (None without a document)."""
        if self._debug is None and self.qdoc is not None:
            from onnxstudio.core.exec.debug import DebugRun
            self._debug = DebugRun(self.qdoc.document.model)
            self._debug.break_on_nonfinite = self.break_on_nonfinite
            self.set_body_options()
        return self._debug

    def set_body_options(self, **options) -> None:
        """Change what whole runs keep inside bodies (see `body_options`);
        the next run uses it."""
        self.body_options.update(options)
        if self._debug is not None:
            changed = any(getattr(self._debug, key) != value for key, value in self.body_options.items())
            for key, value in self.body_options.items():
                setattr(self._debug, key, value)
            stepping = self._debug.started and not self._debug.done
            if changed and self._debug.kept is not None and not stepping:
                # Kept under the options before: the next whole run keeps anew,
                # so the status's count and size are of the budget shown; the
                # canvas and the inspector stop showing them now.
                self._debug.forget_body_values()
                self.updated.emit()

    @property
    def debug_if_any(self):
        """The DebugRun if one was made (drawing and lookups never make one)."""
        return self._debug

    @property
    def model(self):
        return self.qdoc.document.model if self.qdoc is not None else None

    def _document_changed(self, event) -> None:
        if self._debug is None or event.kind == "saved":
            return
        cancelled = self.running
        if cancelled:
            self.cancel(wait=True)
        stepping = self._debug.started and not self._debug.done
        compared = self.report is not None
        self.invalidated = self.debug.invalidate(event.changes)
        self.report = None
        # The Run dock's status must not keep saying where the stepping run
        # goes next, or how the runs compared: both are of the model before.
        stepping = stepping and not self._debug.started
        if cancelled:
            # Else the Run dock kept saying "Running the model…" with nothing running.
            text = self.tr("Your edit stopped the job in progress ({what}); the values computed before it that the "
                           "edit leaves as they were are kept").format(what=self._busy_text.rstrip("…"))
            if compared:
                text += "; " + self.tr("the comparison shown is of the model before your edit")
            self.message.emit("note", text)
        elif stepping and compared:
            self.message.emit("note", self.tr("Your edit ended the stepping run (the next step starts again from "
                                              "the first node) and the comparison: compare again to see its "
                                              "effect"))
        elif stepping:
            self.message.emit("note", self.tr("Your edit ended the stepping run: the next step starts again from "
                                              "the first node"))
        elif compared:
            self.message.emit("note", self.tr("The comparison is of the model before your edit: compare again "
                                              "to see its effect"))
        self.updated.emit()

    def inputs_changed(self) -> None:
        """The Run dock's inputs changed. A job running on the inputs before is
        cancelled and a stepping run ends (as after an edit), so no value of
        the old inputs is computed after the change; the values held stay,
        marked stale (`inputs_stale`), until a run or step on the new ones."""
        if self._debug is None:
            return
        cancelled = self.running
        if cancelled:
            self.cancel(wait=True)
        d = self._debug
        if not d.values and not cancelled:     # (a cancelled job may still be finishing its node)
            return
        self._stale_values = d.values
        stepping = d.started and not d.done
        if stepping:
            d.end_stepping()
        if cancelled:
            # Else the Run dock kept saying "Running the model…" with nothing running.
            self.message.emit("note", self.tr("Your change of the inputs stopped the job in progress ({what}): run "
                                              "again on the new inputs").format(what=self._busy_text.rstrip("…")))
        elif stepping:
            self.message.emit("note", self.tr("Your change of the inputs ended the stepping run: the next step "
                                              "starts again from the first node, on the new inputs"))
        self.updated.emit()

    @property
    def inputs_stale(self) -> bool:
        """Whether the values held were computed from the inputs before the
        Run dock's last change: the canvas and the inspector say so. A new
        start gives the DebugRun a new table of values; a whole run that
        found the inputs it had (changed back) vouches for the old one."""
        d = self._debug
        return d is not None and self._stale_values is not None and d.values is self._stale_values

    @property
    def report_feeds(self) -> dict:
        """The model inputs the last comparison ran on ({} without one)."""
        return self._report_feeds if self.report is not None and self._report_feeds is not None else {}

    @property
    def report_current(self) -> bool:
        """Whether the last comparison is of the values held: made on the
        inputs they were computed from, and no change of the Run dock's
        inputs since. Only then does the canvas colour the boxes by it and
        the inspector compare a value with onnxruntime's: after a run on
        other inputs the colours said how values no longer shown compared.
        A run that found the compared inputs again (a seed changed while
        every input comes from a file) makes it current again."""
        d = self._debug
        if self.report is None or d is None or self._report_feeds is None or self.inputs_stale:
            return False
        checked, same = self._report_feeds_checked
        if checked is not d.feeds:          # compared once per start, not per refresh of the canvas
            from onnxstudio.core.exec.debug import same_feeds
            same = same_feeds(d.feeds, self._report_feeds)
            self._report_feeds_checked = (d.feeds, same)
        return same

    # -- jobs ------------------------------------------------------------------------------

    @property
    def delivering(self) -> bool:
        """Whether a job's result is being shown now (its `updated`, `stopped`
        ... are being handled): what they ask may wait for a turn of its own."""
        return self._delivering

    @contextmanager
    def thread_next_turn(self):
        """Within it, a job asked for starts its thread on the next turn of the
        event loop (the job is there at once: `running`, `wait` see it)."""
        self._thread_later = True
        try:
            yield
        finally:
            self._thread_later = False

    @property
    def running(self) -> bool:
        return self.job is not None

    def _start(self, what: str, work: Callable, done: Callable) -> bool:
        if self.debug is None:
            self.message.emit("error", self.tr("Open a model first"))
            return False
        if self.running:
            self.message.emit("info", self.tr("A run is in progress: wait for it or cancel it"))
            return False
        job = RunJob(work, self)
        job.on_cancel = self.debug.cancel
        self.debug.progress = job.report
        job.progressed.connect(self.progressed)
        job.succeeded.connect(lambda result, j=job: self._outcome_soon(j, lambda: self._finished(j, done, result)))
        job.failed.connect(lambda text, node, j=job: self._outcome_soon(j, lambda: self._failed(j, text, node)))
        job.cancelled.connect(lambda j=job: self._outcome_soon(j, lambda: self._cancelled(j)))
        # Whatever happened in the thread, the controller is free again after it.
        job.finished.connect(lambda j=job: self._thread_ended(j))
        self.job = job
        self._busy_text = what
        self.last_error = ""
        self.shape_note = ""              # set by this job's _feeds, if it makes inputs
        self.busy.emit(what)
        # A full collection walks every object of the process (the model's IR,
        # the scene's items ...): 100-200 ms with everything stopped, the UI
        # thread included, measured on bert_12layer_narrow. During a job only
        # what the run makes needs looking at; the rest waits until it ends.
        gc_policy.freeze()
        ui_thread_slice.ask_short_slices()
        worker_yields.job_started()
        if self._delivering or self._thread_later:
            # Asked while the last job's result is being shown (a handler or a
            # script stepping again at once), or with the Run dock appearing:
            # the thread starts on a turn of its own (ui/turns.py), after the
            # repaint. Started at once, a short step's result came back before
            # the showing of the last one was over, and both ran as one pause
            # of the event loop (benchmarks/run_responsiveness.py); the dock's
            # repaint waited for the interpreter lock.
            self._to_start = job
            self._starter.start()
            return True
        return self._start_thread(job)

    def _start_pending(self) -> None:
        job, self._to_start = self._to_start, None
        if job is not None:
            self._start_thread(job)

    def _start_thread(self, job) -> bool:
        if job is not self.job:           # cancelled (and waited for) before its turn came
            job.deleteLater()
            return False
        if not self.jobs.start(job):      # the application is quitting
            self.job = None
            gc_policy.unfreeze()
            worker_yields.job_ended()
            return False
        return True

    def _outcome_soon(self, job, handle: Callable) -> None:
        self._outcome = (job, handle)
        self._outcome_timer.start()

    def _handle_outcome(self) -> None:
        outcome, self._outcome = self._outcome, None
        if outcome is not None:
            outcome[1]()

    def _thread_ended(self, job) -> None:
        if self._outcome is None or self._outcome[0] is not job:
            self._end(job)            # no outcome to come (the thread ended otherwise): free again now

    def _end(self, job) -> bool:
        if job is not self.job:
            return False
        self.job = None
        gc_policy.unfreeze()
        worker_yields.job_ended()
        self.idle.emit()
        return True

    def _finished(self, job, done, result) -> None:
        if self._end(job):
            self._delivering = True
            try:
                done(result)
                self.updated.emit()
            finally:
                self._delivering = False

    def _failed(self, job, text: str, node) -> None:
        if self._end(job):
            self.last_error = text
            made_one = self.sizes_made_one() if self.sizes_made_one is not None else []
            if made_one:
                # The usual cause on a decoder: a mask or past made 1 long where the model needs other sizes.
                shown = ", ".join(made_one[:6]) + (", …" if len(made_one) > 6 else "")
                text += " — " + self.tr("sizes made 1 for want of one: {dims}; if the model needs others, give "
                                        "them under Sizes of symbolic dimensions").format(dims=shown)
            self.message.emit("error", self._noted(text))
            self.updated.emit()       # the values computed before the failure stay shown
            if node is not None:
                self.failed_at.emit(node)

    def _cancelled(self, job) -> None:
        if self._end(job):
            self.message.emit("info", self.tr("Run cancelled; the values computed so far are kept"))
            self.updated.emit()

    def cancel(self, wait: bool = False) -> None:
        job = self.job
        if job is None:
            return
        job.cancel()                      # the DebugRun's cancel, or the one start_job was given
        if wait:
            if isValid(job):              # not yet deleted after its thread ended (its outcome still to come)
                job.wait(30000)
            self._end(job)

    def wait(self, timeout_ms: int = 120000) -> bool:
        """Block until the running job ends, delivering its signals (tests)."""
        from PySide6.QtCore import QCoreApplication, QDeadlineTimer, QElapsedTimer
        timer = QElapsedTimer()
        timer.start()
        while self.job is not None and timer.elapsed() < timeout_ms:
            if isValid(self.job):         # else its thread ended and its outcome waits for its turn
                self.job.wait(QDeadlineTimer(20))
            QCoreApplication.processEvents()
        QCoreApplication.processEvents()
        return self.job is None

    def _feeds(self) -> dict:
        """The inputs, made in the worker; notes which changed shape since the
        last values fed (a run on inputs of another size must say so)."""
        feeds = self.feeds_source() if self.feeds_source is not None else {}
        changes = []
        for name, value in feeds.items():
            shape = getattr(value, "shape", None)
            before = self.fed_shapes.get(name)
            if shape is not None and before is not None and tuple(before) != tuple(shape):
                changes.append(self.tr("{name} is now {new} (was {old})").format(
                    name=name, new=_shape_text(shape), old=_shape_text(before)))
            if shape is not None:
                self.fed_shapes[name] = tuple(shape)
        self.shape_note = "; ".join(changes)
        return feeds

    def _noted(self, text: str) -> str:
        """`text`, with the note of the inputs that changed shape (said once)."""
        note, self.shape_note = self.shape_note, ""
        if not note:
            return text
        return text + " — " + self.tr("inputs changed shape since the last run: {changes}").format(changes=note)

    def start_job(self, what: str, work: Callable, done: Callable, on_cancel: Optional[Callable] = None) -> bool:
        """Other work on the run machinery (profiled runs, ui/run/profile_work.py):
        `work(job)` in the worker thread, reporting through `job.report`, then
        `done(result)` here; Cancel calls `on_cancel` (the DebugRun's when None)."""
        if not self._start(what, work, done):
            return False
        if on_cancel is not None:
            self.job.on_cancel = on_cancel
        return True

    # -- commands --------------------------------------------------------------------------

    def run_all(self) -> bool:
        def work(job):
            feeds = self._feeds()
            outputs = self.debug.run(feeds)
            return feeds, outputs
        return self._start(self.tr("Running the model…"), work, self._ran)

    def run_selection(self, nodes: list) -> bool:
        if not nodes:
            self.message.emit("error", self.tr("Select one or more nodes of the main graph to run them"))
            return False

        def work(job):
            feeds = self._feeds() if not self.debug.values else {}
            return feeds, self.debug.run(feeds, nodes=nodes)
        running = (self.tr("Running {n} selected node…") if len(nodes) == 1
                   else self.tr("Running {n} selected nodes…")).format(n=len(nodes))
        return self._start(running, work,
                           lambda result: self._ran(result, selection=True))

    def _ran(self, result, selection: bool = False) -> None:
        feeds, outputs = result
        if not selection:
            self.ran_feeds = feeds
            self._stale_values = None        # every value held is of these inputs now
        computed = len(self.debug.nodes_run)
        total = len(self.debug.selection or self.model.graph.nodes)
        one = computed == 1
        if selection:
            text = (self.tr("Ran the selection: {n} node computed") if one
                    else self.tr("Ran the selection: {n} nodes computed")).format(n=computed)
            if self.debug.randomised:
                # No run (or an edit since) gave them: the results are of made-up inputs, said so.
                text += " — " + self.tr("on random values of {names} (no value of the last run: run the "
                                        "model first for real ones)").format(names=", ".join(self.debug.randomised))
            if self.inputs_stale:
                # Its boundary values are the last run's: the user changed the inputs and may take these for theirs.
                text += " — " + self.tr("from the last run's values, of the inputs before your last change: run "
                                        "the model for values of the new ones")
        elif computed == total:
            text = (self.tr("Ran the model: {n} node computed") if one
                    else self.tr("Ran the model: {n} nodes computed")).format(n=computed)
        else:
            text = (self.tr("Ran the model: {n} node computed (the other {kept} kept from the last run)") if one
                    else self.tr("Ran the model: {n} nodes computed (the other {kept} kept from the last run)")
                    ).format(n=computed, kept=total - computed)
        if not selection:
            text += self._declarations_note(outputs)
        self.message.emit("info", self._noted(text + self._bodies_note()))
        self.invalidated = set()
        self.ran.emit(outputs)

    def _declarations_note(self, outputs: dict) -> str:
        """' — …' naming the graph outputs whose declared type this run's
        values do not fit (an output declared [1] that a batch of 9 makes
        [9]): the canvas shows the file's declaration, onnxruntime only
        warns, and the user should not take the file's word for the value."""
        from onnxstudio.core.exec.values import declared_mismatch
        declared = {v.name: v for v in self.model.graph.outputs}
        wrong = []
        for name, value in (outputs or {}).items():
            why = declared_mismatch(declared[name], value) if name in declared else None
            if why is not None:
                wrong.append(f"{name}: {why}")
        if not wrong:
            return ""
        return " — " + self.tr("the file's declared type does not hold for {outputs}").format(
            outputs="; ".join(wrong[:3]) + ("; …" if len(wrong) > 3 else ""))

    def _bodies_note(self) -> str:
        """' — …' saying how many body values the run kept and naming those
        the memory budget left out; '' when it kept none and left none out."""
        kept = self.debug.kept
        if kept is None or not (kept.values or kept.not_kept):
            return ""
        text = self.tr("{n} values inside bodies kept ({mib} MiB)").format(
            n=len(kept.values), mib=f"{kept.nbytes / (1 << 20):.1f}")
        if kept.not_kept:
            names = [name for _, name in list(kept.not_kept)[:5]]
            more = len(kept.not_kept) - len(names)
            text += "; " + self.tr("past the {mib} MiB budget, not kept: {names}").format(
                mib=kept.budget >> 20, names=", ".join(names))
            if more:
                text += " " + self.tr("and {n} more").format(n=more)
        return " — " + text

    def _ensure_started(self) -> None:
        d = self.debug
        if not d.started or d.done:
            d.start(self._feeds())

    def step(self, how: str = "into") -> bool:
        """One debugger step: "over", "into" or "out" (DebugRun.step_over ...)."""
        def work(job):
            self._ensure_started()
            self._apply_step_options()
            return getattr(self.debug, "step_" + how)()
        return self._start(self.tr("Stepping…"), work, self._stepped)

    def set_step_options(self, constants: bool, shapes: bool) -> None:
        """Whether constants / shape arithmetic are steps (else passed by); from the next step on."""
        self.step_on = (bool(constants), bool(shapes))

    def _apply_step_options(self) -> None:
        self.debug.step_on_constants, self.debug.step_on_shapes = self.step_on

    def resume(self) -> bool:
        def work(job):
            self._ensure_started()
            return self.debug.resume()
        return self._start(self.tr("Running to the next breakpoint…"), work, self._stepped)

    def run_to(self, node) -> bool:
        def work(job):
            if not self.debug.can_reach(node):
                self.debug.start(self._feeds())       # behind us (or no run yet): from the start
            self._ensure_started()
            return self.debug.run_to(node)
        return self._start(self.tr("Running to {node}…").format(node=node.display_name), work, self._stepped)

    def restart(self) -> bool:
        from onnxstudio.core.exec.debug import StepEvent

        def work(job):
            self.debug.start(self._feeds())
            self._apply_step_options()
            self.debug.settle()             # ready at the first node that is a step
            return StepEvent(None, reason="start")
        return self._start(self.tr("Starting…"), work, self._stepped)

    def _stepped(self, event) -> None:
        self.last_event = event
        d = self.debug
        if event.reason == "done" or d.done:
            text = self.tr("Run complete")
        elif event.reason == "breakpoint" and self._loop_iteration(d.current) is not None:
            # A breakpoint inside a loop stops once per iteration: the same words each time said nothing of which.
            text = self.tr("Stopped at breakpoint {node} (iteration {i})").format(
                node=d.current.display_name, i=self._loop_iteration(d.current))
        elif event.reason == "breakpoint":
            text = self.tr("Stopped at breakpoint {node}").format(node=d.current.display_name)
        elif event.reason == "nonfinite" and event.node is None:
            text = self.tr("Input {names} holds NaN/Inf: stopped before the first node").format(
                names=", ".join(event.nonfinite))
        elif event.reason == "nonfinite":
            text = self.tr("{node} produced NaN/Inf in {names}").format(
                node=event.node.display_name, names=", ".join(event.nonfinite))
        elif event.reason == "target" and self._loop_iteration(d.current) is not None:
            text = self.tr("Stopped before {node} (iteration {i})").format(
                node=d.current.display_name, i=self._loop_iteration(d.current))
        elif event.reason == "target":
            text = self.tr("Stopped before {node}").format(node=d.current.display_name)
        elif event.node is not None:
            owner = event.graph.parent_node if event.graph is not None else None
            looping = owner is not None and owner.op_type in ("Loop", "Scan")
            # In an If branch inside a loop, the loop's iteration: "Ran Mul" said nothing of which.
            iteration = event.iteration if looping else self._loop_iteration(event.node)
            following = self._where(d.current) if d.current is not None else self.tr("end")
            if event.how == "into":
                text = self.tr("Entered {node}; next: {next}").format(node=event.node.display_name, next=following)
            elif event.how == "out":
                text = self.tr("Finished {node}; next: {next}").format(node=event.node.display_name, next=following)
            elif iteration is not None and iteration >= 0:
                text = self.tr("Ran {node} (iteration {i}); next: {next}").format(
                    node=event.node.display_name, i=iteration, next=following)
            else:
                text = self.tr("Ran {node}; next: {next}").format(node=event.node.display_name, next=following)
        else:
            text = self.tr("Ready to step: {node}").format(
                node=self._where(d.current) if d.current is not None else self.tr("nothing to run"))
        self.message.emit("info", self._noted(text))
        self.stopped.emit(event)

    def _loop_iteration(self, node):
        """The iteration of the innermost Loop or Scan whose body holds `node`
        (the node the run stopped before: an If branch inside the loop counts
        its own runs, not the loop's), or None outside any loop."""
        graph = node.graph
        while graph is not None and graph.parent_node is not None:
            if graph.parent_node.op_type in ("Loop", "Scan"):
                return self.debug.iterations.get(id(graph))
            graph = graph.parent_node.graph
        return None

    def _where(self, node) -> str:
        """The node's name, plus the box it is drawn inside when it has none
        of its own (an Identity copying a constant is folded into its reader)."""
        host = self.drawn_inside(node) if self.drawn_inside is not None else None
        if not host:
            return node.display_name
        return self.tr("{node} (drawn inside {box})").format(node=node.display_name, box=host)

    def toggle_breakpoint(self, node) -> bool:
        if self.debug is None or node is None:
            return False
        bps = self.debug.breakpoints
        on = node not in bps
        (bps.add if on else bps.discard)(node)
        self.updated.emit()
        return on

    def set_break_on_nonfinite(self, on: bool) -> None:
        """Stop at the first NaN/Inf, in this document's runs and the next one's."""
        self.break_on_nonfinite = bool(on)
        if self._debug is not None:
            self._debug.break_on_nonfinite = self.break_on_nonfinite

    # -- comparisons ------------------------------------------------------------------------

    def compare_onnxruntime(self, reference_model=None, options: Optional[dict] = None) -> bool:
        """onnxruntime on the same inputs, every intermediate compared with
        ours. `reference_model` (the file as saved, when the document has
        unsaved edits) is what onnxruntime runs; ours is the document.
        `options`: the Compare dock's tolerances, provider and level."""
        from .compare_work import compare_against_onnxruntime

        def work(job):
            feeds = self._feeds()
            self.debug.run(feeds)
            return compare_against_onnxruntime(self.model, self.debug.values, feeds, reference_model,
                                               kept=self.debug.kept, job=job, say=self.message.emit,
                                               **(options or {}))

        def done(result):
            report, self.other_values = result
            self._compared(report, "onnxruntime")
        return self._start(self.tr("Comparing with onnxruntime…"), work, done)

    def keep_reference(self) -> bool:
        """Remember the current values: a later run is compared with them."""
        if self.debug is None or not self.debug.values:
            self.message.emit("error", self.tr("Run the model first, then keep its values as the reference"))
            return False
        self.reference = dict(self.debug.values)
        kept = len(self.reference)
        text = (self.tr("Kept {n} value as the reference run") if kept == 1
                else self.tr("Kept {n} values as the reference run")).format(n=kept)
        if self.inputs_stale:
            # The values held predate the inputs shown (their tags say so): a later run compared with them
            # differs by the inputs as much as by any edit.
            text += " — " + self.tr("computed from the inputs before your last change, not the ones shown")
        self.message.emit("info", text)
        return True

    def compare_with_reference(self) -> bool:
        if self.reference is None:
            self.message.emit("error", self.tr("Keep a run as the reference first"))
            return False
        from onnxstudio.core.exec.compare import compare_values, node_report
        reference = self.reference

        def work(job):
            self.debug.run(self._feeds())
            diffs = compare_values(self.debug.values, reference)
            return node_report(self.model.graph, diffs)

        def done(report):
            self.other_values = reference
            self._compared(report, "reference run")
        return self._start(self.tr("Comparing with the reference run…"), work, done)

    def _compared(self, report, kind: str) -> None:
        self._stale_values = None            # the comparison ran the model on the inputs as they are
        self.report = report
        self._report_feeds, self._report_feeds_checked = self.debug.feeds, (None, False)
        self.report_kind = kind
        kind = "onnxruntime" if kind == "onnxruntime" else self.tr("the reference run")
        first = report.first_divergence
        bad = sum(not n.agrees for n in report.nodes)
        if first is None:
            n = len(report.nodes)
            text = (self.tr("Compared with {who}: {ok} of {n} node agrees; no divergence") if n == 1
                    else self.tr("Compared with {who}: {ok} of {n} nodes agree; no divergence")
                    ).format(who=kind, ok=n - bad, n=n)
        else:
            from .compare_work import unmeasured_note
            note = unmeasured_note(first)
            if note:
                text = self.tr("Compared with {who}: first divergent node {node} ({note})").format(
                    who=kind, node=first.node.display_name, note=note)
            else:
                text = self.tr("Compared with {who}: first divergent node {node} (rel. error {rel})").format(
                    who=kind, node=first.node.display_name, rel=f"{first.rel:.3g}")
            if first.explained:
                text += " " + self.tr("— onnxruntime's arithmetic, not the model's (the Compare dock says "
                                      "more)")
        cancelled = report.own_cancelled
        if cancelled:
            # Cancel pressed during the own-error pass: the comparison is shown, and said to be partial.
            text += " — " + self.tr("own errors cancelled after {i} of {n} nodes").format(
                i=cancelled[0], n=cancelled[1])
        self.message.emit("info", text)
        self.report_ready.emit(report)


def _shape_text(shape) -> str:
    return "×".join(str(d) for d in shape) if len(shape) else "scalar"


def _preload_executor() -> None:
    """Import the executor (~0.2 s: every kernel) in a background thread, so
    the first Run or Step does not pay for it on the UI thread."""
    import sys
    import threading
    if "onnxstudio.core.exec.debug" in sys.modules:
        return

    from .. import gc_main_thread

    def load():
        try:
            import onnxstudio.core.exec.debug  # noqa: F401
        finally:
            gc_main_thread.job_ended()
    gc_main_thread.job_started()        # no collection inside this thread (see canvas/gc_pause.py)
    threading.Thread(target=load, name="preload-executor", daemon=True).start()
