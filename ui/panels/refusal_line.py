"""The red line above an editor's fields that says why an edit was refused
(the model is left as it was); an edit that applies clears it."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel


class RefusalLine(QLabel):
    def __init__(self, parent=None, *, hide_when_empty: bool = True):
        super().__init__("", parent)
        self.setWordWrap(True)
        self.setStyleSheet("color: #c0392b;")
        # Hidden while empty, so the line takes space only when it says something.
        self.hide_when_empty = hide_when_empty
        if hide_when_empty:
            self.setVisible(False)

    def say(self, text: str) -> None:
        self.setText(text)
        if self.hide_when_empty:
            self.setVisible(True)

    def clear_refusal(self) -> None:
        self.setText("")
        if self.hide_when_empty:
            self.setVisible(False)


def apply_edit(qdoc, refusal: RefusalLine, edit, **kwargs) -> bool:
    """Apply `edit` through the document; when it applies, the refusal line is cleared."""
    ok = qdoc.apply(edit, **kwargs)
    if ok:
        refusal.clear_refusal()
    return ok
