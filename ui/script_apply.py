"""Edit ▸ Apply Edit Script…: replay a JSON edit script (as Save Edits as
Script writes it, or `onnxstudio edit` reads it) on the open model.

The whole script is one undo step (none when every step sets what the model
already holds). The dialog afterwards lists what each step did, naming the
node and the value, the same lines `onnxstudio edit` prints; when a step no longer
applies it says which and why, and that nothing was changed.
"""
from __future__ import annotations

import pathlib

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFileDialog, QLabel, QPlainTextEdit, QVBoxLayout

from ..core.edits import ScriptError, replay_report

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")


class ScriptReport(QDialog):
    """What a replay did: a headline and one line per step (copyable)."""

    def __init__(self, parent, title: str, headline: str, lines: list[str], failed: bool):
        super().__init__(parent)
        self.setWindowTitle(title)
        self.failed = failed
        self.headline = QLabel(headline)
        self.headline.setWordWrap(True)
        if failed:
            self.headline.setStyleSheet("color: #b00020;")
        self.steps = QPlainTextEdit("\n".join(lines))
        self.steps.setReadOnly(True)
        self.steps.setVisible(bool(lines))
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.steps, 1)
        layout.addWidget(buttons)
        self.resize(560, 320 if lines else 140)


class ScriptApplier:
    def __init__(self, window, prompter):
        self.window = window
        self.prompter = prompter
        self.report: ScriptReport | None = None
        self.choose_path = self._choose_path        # replaceable (tests)

    def apply(self) -> bool:
        """Ask for a script and replay it; True when every step applied."""
        qdoc = self.window.qdoc
        if qdoc is None:
            return False
        path = self.choose_path()
        if not path:
            return False
        path = pathlib.Path(path)
        title = translate("ScriptApplier", "Apply edit script {name}").format(name=path.name)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            self._show(title, translate("ScriptApplier", "{path}: cannot read it ({reason}). Nothing was "
                                        "changed.").format(path=path, reason=getattr(e, "strerror", None) or e),
                       [], failed=True)
            return False
        try:
            lines = replay_report(qdoc.document, text, name=f"Replay {path.name}")
        except ScriptError as e:
            applied = getattr(e, "report", [])
            headline = translate("ScriptApplier", "{path}: {problem}. Nothing was changed.").format(
                path=path.name, problem=e)
            if applied:
                headline += " " + translate("ScriptApplier", "The steps before it applied and were undone:")
            self._show(title, headline, applied, failed=True)
            return False
        except Exception as e:  # noqa: BLE001 - a bug: reported with details; the macro rolled back
            self.prompter.report_unexpected(title, e)
            return False
        if not lines.changed:
            headline = translate("ScriptApplier", "{path}: the model already holds what every step sets; nothing "
                                 "changed and no undo step was added.").format(path=path.name)
        else:
            headline = (translate("ScriptApplier", "{path}: {n} edit replayed as one undo step.")
                        if lines.changed == 1
                        else translate("ScriptApplier", "{path}: {n} edits replayed as one undo step.")).format(
                path=path.name, n=lines.changed)
            if lines.changed < len(lines):
                headline += " " + translate("ScriptApplier", "{n} step(s) were already so.").format(
                    n=len(lines) - lines.changed)
        self._show(title, headline, lines, failed=False)
        self.window.statusBar().showMessage(headline, 8000)
        return True

    def _show(self, title: str, headline: str, lines: list[str], failed: bool) -> None:
        if self.report is not None:
            self.report.close()
        self.report = ScriptReport(self.window, title, headline, lines, failed)
        self.report.show()

    def _choose_path(self) -> str:
        doc = self.window.qdoc.document
        start = str(doc.path.parent) if doc.path else ""
        path, _ = QFileDialog.getOpenFileName(
            self.window, translate("ScriptApplier", "Apply edit script"), start,
            translate("ScriptApplier", "Edit script (*.json)"))
        return path
