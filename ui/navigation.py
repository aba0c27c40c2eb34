"""Where the user is: a stack of graph levels (main graph → Loop body → …)
and the breadcrumb bar that shows it; where the user has been: the places
visited, for Back and Forward (Alt+Left / Alt+Right) as in a browser.

Each level remembers which groups are open and where the view was, so going
back restores the previous picture instead of re-fitting it. The visit
history is not the undo history: undo changes the model, Back only moves
the canvas.
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
    selected: tuple = ()                     # what was selected when a body or function was entered from it
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


def node_holding(body, outer):
    """The node of `outer` whose body holds `body` (directly or deeper in
    bodies of its bodies); None when `body` is not under `outer` (a
    function's graph)."""
    g = body
    while g is not None and g.parent_node is not None:
        if g.parent_node.graph is outer:
            return g.parent_node
        g = g.parent_node.graph
    return None


def in_model(model, graph) -> bool:
    """Whether `graph` is still part of `model`: an edit (or its undo) may
    have taken a body or function out since the user was there."""
    for _depth in range(256):       # a malformed chain must not hang the UI
        if graph is None or model is None:
            return False
        if graph is model.graph:
            return True
        node = graph.parent_node
        if node is not None:
            attr = node.attributes.get(graph.attr_name) if graph.attr_name else None
            held = attr.value if attr is not None else None
            if not (held is graph or (isinstance(held, (list, tuple)) and any(g is graph for g in held))):
                return False
            graph = node.graph
            continue
        owner = graph.owner
        return (isinstance(owner, Function) and owner.graph is graph
                and any(f is owner for f in model.functions.values()))
    return False


@dataclass
class Place:
    """One entry of the visit history: the levels shown (main graph first;
    the Level objects keep open groups and view) and what was selected on
    the last of them when the user left it (ir Nodes, Values, group keys)."""
    levels: list
    selected: tuple = ()

    @property
    def graph(self):
        return self.levels[-1].graph


class VisitHistory:
    """The places visited, in order, and which one is shown: entering a
    body, going up (Esc, a breadcrumb) and a search hit in another graph
    each add a place; a new place drops those Forward would have reached."""

    def __init__(self):
        self.places: list[Place] = []
        self.index = -1

    def reset(self, place: Place) -> None:
        self.places, self.index = [place], 0

    @property
    def current(self) -> Optional[Place]:
        return self.places[self.index] if 0 <= self.index < len(self.places) else None

    def visit(self, place: Place) -> None:
        del self.places[self.index + 1:]
        self.places.append(place)
        self.index = len(self.places) - 1

    def can_go(self, step: int) -> bool:
        return 0 <= self.index + step < len(self.places)

    def go(self, step: int, alive) -> tuple[Optional[Place], list[Place]]:
        """Move one place back (step -1) or forward (+1), passing over places
        `alive(place)` refuses, which are dropped. Returns the place reached
        (None: nothing left that way; the index stays) and those dropped."""
        dropped = []
        target = self.index + step
        while 0 <= target < len(self.places):
            place = self.places[target]
            if alive(place):
                self.index = target
                return place, dropped
            dropped.append(self.places.pop(target))
            if target < self.index:
                self.index -= 1
            if step < 0:
                target -= 1
        return None, dropped


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
