"""The red line above an editor's fields that says why an edit was refused
(the model is left as it was); an edit that applies clears it."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel, QScrollArea


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
        self._bring_into_view()

    def _bring_into_view(self) -> None:
        """The line sits above the fields, and the button that was refused
        may be far below it (the model form's Add rows): scroll the form
        holding it, or the refusal is said out of sight."""
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None:
            area.ensureWidgetVisible(self)

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
