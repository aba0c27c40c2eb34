"""Questions and error reports for the editing commands.

`ask` and `report_unexpected` are the only places that show modal boxes, so
tests replace `Prompter.ask` to answer them; offscreen nobody could click one,
so the default there is to record the question and take the safe answer.
"""
from __future__ import annotations

import traceback

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP
from PySide6.QtWidgets import QApplication, QMessageBox, QPushButton

# Answers are English keys (callers compare them); the buttons show them translated.
BUTTON_LABELS = (QT_TRANSLATE_NOOP("Prompter", "Save"), QT_TRANSLATE_NOOP("Prompter", "Discard"),
                 QT_TRANSLATE_NOOP("Prompter", "Cancel"), QT_TRANSLATE_NOOP("Prompter", "Overwrite"),
                 QT_TRANSLATE_NOOP("Prompter", "Recover"), QT_TRANSLATE_NOOP("Prompter", "Not now"),
                 QT_TRANSLATE_NOOP("Prompter", "Change rank"))


class Prompter:
    """Asks the user; tests set `answers` (a list consumed in order) or `ask`."""

    def __init__(self, parent):
        self.parent = parent
        self.answers: list[str] = []
        self.asked: list[tuple[str, str]] = []
        self.reports: list[str] = []

    def ask(self, title: str, text: str, buttons: tuple[str, ...], default: str) -> str:
        """One of `buttons` (their labels); `default` when nobody can answer."""
        self.asked.append((title, text))
        if self.answers:
            return self.answers.pop(0)
        if QApplication.platformName() == "offscreen":
            return default
        box = QMessageBox(self.parent)
        box.setWindowTitle(title)
        box.setText(text)
        made = {label: box.addButton(QCoreApplication.translate("Prompter", label), QMessageBox.AcceptRole)
                for label in buttons}
        box.setDefaultButton(made[default])
        box.exec()
        clicked = box.clickedButton()
        return next((label for label, b in made.items() if b is clicked), default)

    def report_unexpected(self, what: str, exc: BaseException) -> None:
        """A bug of ours: one sentence, and the details one click away (copyable)."""
        details = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        message = QCoreApplication.translate(
            "Prompter", "{what} failed unexpectedly: {error}. The model was left as it was before.").format(
            what=what, error=exc)
        self.reports.append(message)
        if QApplication.platformName() == "offscreen":
            return
        box = QMessageBox(self.parent)
        box.setIcon(QMessageBox.Warning)
        box.setWindowTitle(QCoreApplication.translate("Prompter", "Unexpected error"))
        box.setText(message)
        box.setDetailedText(details)
        copy = QPushButton(QCoreApplication.translate("Prompter", "Copy details"))
        box.addButton(copy, QMessageBox.ActionRole)
        box.addButton(QMessageBox.Close)
        copy.clicked.connect(lambda: QApplication.clipboard().setText(details))
        box.exec()

    def warn(self, title: str, text: str) -> None:
        self.asked.append((title, text))
        if QApplication.platformName() == "offscreen":
            return
        QMessageBox.warning(self.parent, title, text)
