"""The onnxruntime comparison the app makes (run in the worker thread).

Ours are the values of the document's last run (every intermediate kept);
onnxruntime runs the same inputs with every intermediate exposed, through
core.exec.compare. With unsaved edits, onnxruntime runs the model as last
saved (`reference_model`), so the first divergence is where the edits change
the results: an edited initializer shows as the node that reads it.
"""
from __future__ import annotations

import math
import time
from typing import Callable, Optional

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from onnxstudio.core.exec import compare


def compare_against_onnxruntime(model, ours: dict, feeds: dict, reference_model=None, *, rtol: float = compare.RTOL,
                                atol: float = compare.ATOL, tolerances=None, provider: str = compare.DEFAULT_PROVIDER,
                                opt_level: str = "disable", kept=None, job=None, say: Optional[Callable] = None):
    """(Report, onnxruntime's values by name): every intermediate of `model`
    that onnxruntime can expose, compared with `ours` (a kept run), with the
    Compare dock's options (tolerances, execution provider, optimisation level).
    `kept`: the run's values inside bodies (DebugRun.kept), each body that ran
    then compared by onnxruntime running it on its own (Report.bodies).
    Each node's own error is measured too (own_error.py).

    `job` (the controller's RunJob): its Cancel ends onnxruntime's run and
    the comparison of the values (the job ends cancelled, nothing compared),
    or stops the own-error pass between nodes, and the report says the own
    errors are incomplete (Report.own_cancelled). Both passes of ours report
    their progress through the job (the Run dock's bar) and through
    `say(level, text)` (the Run dock's status line); before them, the phase
    of onnxruntime's run (which reports no progress of its own) is said
    there too, the bar showing it is busy."""
    stop = compare.Stop()
    values = own = None
    if job is not None:
        before = job.on_cancel

        def cancel():
            stop.set()
            if before is not None:
                before()
        job.on_cancel = cancel
        values = _Progress(job, say, QT_TRANSLATE_NOOP("CompareWork", "comparing with onnxruntime's values: "
                                                                      "{i}/{n} values"))
        own = _Progress(job, say, QT_TRANSLATE_NOOP("CompareWork", "own error: {i}/{n} nodes that compute "
                                                                   "(constants and shape-only nodes skipped)"))
        job.progressed.emit(0, 0, "")          # 0 of 0: the bar says busy, for as long as onnxruntime runs
    if say is not None:
        say("info", QCoreApplication.translate("CompareWork", "onnxruntime: running the model with every "
                                                              "intermediate exposed…"))
    return compare.compare_run_with_onnxruntime(model, ours, feeds, reference_model=reference_model, kept=kept,
                                                rtol=rtol, atol=atol, tolerances=tolerances, provider=provider,
                                                opt_level=opt_level, stop=stop, values_progress=values,
                                                own_progress=own)


class _Progress:
    """A pass's progress (the values compared, the own errors), passed on at
    most every PROGRESS_S (each value or node takes well under a
    millisecond: a signal per one would flood the UI thread); `text` has
    {i} and {n}."""
    PROGRESS_S = 0.1

    def __init__(self, job, say: Optional[Callable], text: str):
        self.job, self.say, self.text, self.last = job, say, text, 0.0

    def __call__(self, i: int, n: int, node) -> None:
        now = time.monotonic()
        if now - self.last < self.PROGRESS_S and i + 1 < n:
            return
        self.last = now
        self.job.report(i, n, node)
        if self.say is not None:
            self.say("info", QCoreApplication.translate("CompareWork", self.text).format(i=i + 1, n=n))


def error_colour_fraction(rel: float, lo: float = 1e-7, hi: float = 1.0) -> float:
    """Where `rel` (a node's relative error) sits on the legend's log scale, 0..1."""
    import math
    if not rel or rel <= lo:
        return 0.0
    if rel >= hi or math.isinf(rel) or math.isnan(rel):
        return 1.0
    return (math.log10(rel) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))


def saved_model_for(document) -> Optional[object]:
    """The model as last saved, when the document has unsaved edits and a file."""
    if not document.dirty or document.path is None or not document.path.is_file():
        return None
    from onnxstudio.core import load
    return load(document.path)


def unmeasured_note(nd) -> str:
    """Why a compare.NodeDiff that differs has no error to give as a number
    (shapes, types or keys differ, NaN on one side ...): the note of its first
    such output; "" when its numbers say how it differs. Its max abs and
    relative errors are 0 then, which must not be shown as if it agreed."""
    if nd.agrees or nd.rel != 0:
        return ""
    return next((d.note for d in nd.outputs if not d.agrees and d.note), "")


def shown_error(nd, colour_by: str = "total") -> tuple[float, bool]:
    """(relative error, agrees) of a compare.NodeDiff as the canvas and the
    table colour it: its total error, or with colour_by "own" its own error
    (the node run alone on the reference's inputs). A node whose own error
    was not measured (a constant, a node whose inputs the reference lacks)
    shows as agreeing under "own": it is not where the error is made, and
    neither is a node whose own difference is the reference's (onnxruntime's
    arithmetic: NodeDiff.explained)."""
    if colour_by != "own":
        # Unmeasured (shapes differ ...): as far off as the scale goes, not at its agreeing end.
        return (math.inf if unmeasured_note(nd) else nd.rel), nd.agrees
    if nd.own is None or nd.explained:
        return 0.0, True
    return nd.own_rel, all(d.agrees for d in nd.own)
