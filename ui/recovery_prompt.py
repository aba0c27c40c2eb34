"""Autosave of the edit history, and the offer to recover it after a crash.

The open document's unsaved steps are written to a recovery file
(core/recovery.py) every minute and also shortly after a burst of edits
ends; saving or closing the model cleanly removes the file. At start-up,
files left by an instance that died are offered: recovering opens the
original model and replays the steps, naming any that no longer apply.

ONNXSTUDIO_AUTOSAVE_MS sets the periodic interval (tests use a short one).
"""
from __future__ import annotations

import os

from PySide6.QtCore import QObject, QTimer

from onnxstudio.core import recovery as rec

INTERVAL_MS = 60_000          # the periodic autosave
SETTLE_MS = 3_000             # after the last edit of a burst


def _interval() -> int:
    try:
        return max(50, int(os.environ.get("ONNXSTUDIO_AUTOSAVE_MS", INTERVAL_MS)))
    except ValueError:
        return INTERVAL_MS


class Recovery(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.writer: rec.RecoveryWriter | None = None
        self._pending: rec.RecoveryFile | None = None   # waiting for its model to load
        self.last_outcome: rec.Outcome | None = None
        self.timer = QTimer(self)
        self.timer.setInterval(_interval())
        self.timer.timeout.connect(self.autosave)
        self.settle = QTimer(self)
        self.settle.setSingleShot(True)
        self.settle.setInterval(min(SETTLE_MS, self.timer.interval()))
        self.settle.timeout.connect(self.autosave)
        self.timer.start()
        window.model_loaded.connect(lambda _m: QTimer.singleShot(0, self._replay_pending))

    # -- autosave ------------------------------------------------------------------------------

    def set_document(self, qdoc) -> None:
        """A model was opened: drop the previous document's file (it was saved
        or discarded before another model could be opened)."""
        if self.writer is not None:
            self.writer.remove()
        self.writer = rec.RecoveryWriter(qdoc.document)
        qdoc.changed.connect(self._changed)

    def _changed(self, event) -> None:
        if event.kind in ("edit", "undo", "redo"):
            self.settle.start()

    def autosave(self) -> bool:
        """Write the recovery file now if there are edits since the last write."""
        w = self.writer
        if w is None or not w.stale:
            return False
        from onnxstudio.core.edits import EditError
        try:
            return w.write()
        except (OSError, rec.Unrecordable, EditError) as e:
            self.window.statusBar().showMessage(
                self.tr("Autosave failed: {error}").format(error=e), 15000)
            return False

    def saved(self) -> None:
        if self.writer is not None:
            self.writer.saved()

    def closed(self) -> None:
        """The window closes cleanly (saved or changes discarded)."""
        self.timer.stop()
        self.settle.stop()
        if self.writer is not None:
            self.writer.remove()

    # -- recovery ------------------------------------------------------------------------------

    def offer(self) -> bool:
        """Ask about each recovery file a crashed instance left. True when a
        recovery was started (the model is being opened)."""
        found, problems = rec.pending()
        for message in problems:
            self.window.statusBar().showMessage(message, 15000)
        prompter = self.window.edit_actions.prompter
        for rf in found:
            text = self._question(rf)
            answer = prompter.ask(self.tr("Recover unsaved edits"), text,
                                  ("Recover", "Discard", "Not now"), "Not now")
            if answer == "Discard":
                rec.discard(rf)
            elif answer == "Recover":
                if not rf.model_path.is_file():
                    prompter.warn(self.tr("Cannot recover"), self.tr(
                        "{path}: the model file is gone; the recovery file {file} was kept.").format(
                        path=rf.model_path, file=rf.path))
                    continue
                self._pending = rf
                self.window.open_path(rf.model_path)
                return True
        return False

    def _question(self, rf) -> str:
        """What happened, which model, and what each answer does (the model
        file itself is never touched by any of them)."""
        from html import escape
        from datetime import datetime
        when = datetime.fromtimestamp(rf.written).strftime("%Y-%m-%d %H:%M") if rf.written else "?"
        kept = (self.tr("onnxstudio did not close normally. Unsaved edits of {name} ({n} step) were kept.")
                if len(rf.steps) == 1 else
                self.tr("onnxstudio did not close normally. Unsaved edits of {name} ({n} steps) were kept."))
        text = "<p><b>" + escape(kept.format(name=rf.model_path.name, n=len(rf.steps))) + "</b></p>"
        text += "<p>" + escape(str(rf.model_path)) + "<br>" + escape(
            self.tr("edits kept at {time}").format(time=when)) + "</p>"
        why = rf.original_changed()
        if why:
            text += "<p>" + escape(self.tr("Note: {why}; steps that no longer apply will be "
                                           "skipped.").format(why=why)) + "</p>"
        from PySide6.QtCore import QCoreApplication
        button = lambda label: QCoreApplication.translate("Prompter", label)  # noqa: E731 - as on the buttons
        answers = (
            (button("Recover"), self.tr("opens the model and applies the steps again; the file "
                                         "on disk changes only when you save.")),
            (button("Discard"), self.tr("deletes the kept steps for good; the model file stays "
                                         "as it is.")),
            (button("Not now"), self.tr("keeps the steps and asks again at the next start.")))
        text += "<p>" + "<br>".join(f"<b>{escape(button)}</b> {escape(what)}" for button, what in answers) + "</p>"
        return text

    def _replay_pending(self) -> None:
        rf, self._pending = self._pending, None
        qdoc = self.window.qdoc
        if rf is None or qdoc is None:
            return
        if qdoc.document.path is None or \
                os.path.realpath(qdoc.document.path) != os.path.realpath(rf.model_path):
            self._pending = rf          # another model finished loading first
            return
        outcome = rec.recover(qdoc.document, rf)
        self.last_outcome = outcome
        rec.discard(rf)
        self.autosave()                 # the replayed steps are this instance's now
        bar = self.window.statusBar()
        if outcome.skipped:
            self.window.edit_actions.prompter.warn(
                self.tr("Recovered with gaps"),
                (self.tr("Recovered {n} of {total} step; these no longer apply and were skipped:\n{skipped}")
                 if len(rf.steps) == 1 else
                 self.tr("Recovered {n} of {total} steps; these no longer apply and were skipped:\n{skipped}")
                 ).format(n=outcome.applied, total=len(rf.steps), skipped="\n".join(outcome.skipped)))
        bar.showMessage((self.tr("Recovered {n} edit step of {name}") if outcome.applied == 1
                         else self.tr("Recovered {n} edit steps of {name}")).format(
            n=outcome.applied, name=rf.model_path.name), 15000)
