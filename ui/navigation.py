"""Where the user is: a stack of graph levels (main graph → Loop body → …)
and the breadcrumb bar that shows it.

Each level remembers which groups are open and where the view was, so going
back restores the previous picture instead of re-fitting it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from PySide6.QtCore import QCoreApplication, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from ..core.ir import Function


@dataclass
class Level:
    graph: object
    title: str
    expanded: Optional[set] = None           # None: core.layout's default choice
    view_state: Optional[tuple] = None       # (scale, centre x, centre y) when left
    extra: dict = field(default_factory=dict)


def level_title(graph) -> str:
    owner = graph.owner
    if isinstance(owner, Function):
        return f"ƒ {owner.name}"
    parent = graph.parent_node
    if parent is None:
        return graph.name or QCoreApplication.translate("Navigation", "main graph")
    who = parent.name or parent.op_type
    body = (graph.attr_name or graph.name
            or QCoreApplication.translate("Navigation", "body"))
    return f"{who} › {body}"


def levels_for(model, graph, shown=()) -> list[Level]:
    """The chain of levels from the model's main graph down to `graph`.
    `shown`: the levels on screen now; those the chain shares with them
    (from the main graph down) are reused, so going back from a search hit
    in a body finds the graph above as the user left it (open groups, view)."""
    chain = []
    g = graph
    while g is not None:
        chain.append(g)
        if g.parent_node is not None:
            g = g.parent_node.graph
        elif isinstance(g.owner, Function):
            g = model.graph if g is not model.graph else None
        else:
            g = None
    chain.reverse()
    if chain[0] is not model.graph:
        chain.insert(0, model.graph)
    shared = 0
    while shared < min(len(chain), len(shown)) and shown[shared].graph is chain[shared]:
        shared += 1
    return list(shown[:shared]) + [Level(g, level_title(g)) for g in chain[shared:]]


class Breadcrumbs(QWidget):
    level_clicked = Signal(int)

    def __init__(self, parent=None):
        super().__init__(parent)
        self._layout = QHBoxLayout(self)
        self._layout.setContentsMargins(6, 2, 6, 2)
        self._layout.setSpacing(2)

    def set_levels(self, levels: list[Level]) -> None:
        while self._layout.count():
            widget = self._layout.takeAt(0).widget()
            if widget is not None:
                # Hidden now: deleted later, it would be drawn under the new
                # buttons until then (two titles over each other).
                widget.hide()
                widget.deleteLater()
        for i, level in enumerate(levels):
            if i:
                self._layout.addWidget(QLabel("›"))
            button = QToolButton()
            button.setText(level.title)
            button.setAutoRaise(True)
            button.setEnabled(i < len(levels) - 1)
            button.setToolTip(self.tr("Go back to this level (Esc goes up one)"))
            button.clicked.connect(lambda _=False, index=i: self.level_clicked.emit(index))
            self._layout.addWidget(button)
        self._layout.addStretch(1)
        self.setVisible(len(levels) > 1)
