"""Where the heat map's time labels go: beside their box or in their group
frame's title row, clear of everything else the canvas writes.

A label may not cover a node box (nor the heat frame drawn round it), an
edge's type label, a group's title tab, a run's value tag or another heat
label. Among the places that cover none of those, the nearest to what it
labels, where crossing an edge line or leaving the scene (the scrollable
area) counts as further; when every place covers something, the one that
covers least. Plain geometry
bucketed by area, as the run overlay's tags do: a heat refresh places a
label per box of the level shown.
"""
from __future__ import annotations

import math
from typing import Iterable, Optional

from PySide6.QtCore import QRectF

FRAME_REACH = 7.0       # how far a box's heat frame is drawn outside the box (ui/run/heat.py)
EDGE_COST = 30.0        # crossing an edge line is as bad as a label this many px further from its box
OUTSIDE_COST = 1000.0   # a label the scroll bars cannot reach: anything else first
CELL = 200.0


class Obstacles:
    """What heat labels keep clear of, and the edge lines they prefer not to cross."""

    def __init__(self, scene_rect: QRectF):
        self.scene_rect = QRectF(scene_rect)
        self._hard: dict = {}       # cell -> [QRectF]
        self._edges: dict = {}      # cell -> [edge item]

    def add(self, rect: QRectF) -> None:
        rect = QRectF(rect)
        for cell in _cells(rect):
            self._hard.setdefault(cell, []).append(rect)

    def add_edge(self, edge) -> None:
        for cell in _cells(edge.boundingRect()):
            self._edges.setdefault(cell, []).append(edge)

    def covered(self, rect: QRectF) -> float:
        """How much of `rect` the hard obstacles cover (the largest overlap's area)."""
        left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
        worst = 0.0
        for other in self._near(self._hard, rect):
            w = min(right, other.right()) - max(left, other.left())
            h = min(bottom, other.bottom()) - max(top, other.top())
            if w > 0 and h > 0 and w * h > worst:
                worst = w * h
        return worst

    def free(self, rect: QRectF) -> bool:
        """Whether no hard obstacle meets `rect` (stops at the first: most trial places are taken)."""
        return not any(other.intersects(rect) for other in self._near(self._hard, rect))

    def crosses_edge(self, rect: QRectF) -> bool:
        seen = set()
        for edge in self._near(self._edges, rect):
            if id(edge) in seen:
                continue
            seen.add(id(edge))
            # The edge's stroke (its shape for clicks): a curve's own path would count the area it bounds.
            if edge.boundingRect().intersects(rect) and edge.shape().intersects(rect):
                return True
        return False

    def find(self, candidates: Iterable[QRectF], anchor: Optional[QRectF],
             edge_cost: float = EDGE_COST) -> Optional[QRectF]:
        """The candidate clear of the hard obstacles nearest to `anchor` (what
        it labels; None: the first clear one), crossing an edge line counting
        as `edge_cost` px further and leaving the scene as far again as
        anything else; ties go to the earlier candidate. None when none is
        clear. Found: placed (later labels keep clear of it)."""
        ranked = [(0.0 if anchor is None else _gap(rect, anchor), rect) for rect in candidates]
        ranked.sort(key=lambda pair: pair[0])       # stable: equally near ones stay in the given order
        best, best_cost = None, None
        for near, rect in ranked:
            if best_cost is not None and near >= best_cost:
                break               # the rest are further out still
            if not self.free(rect):
                continue
            cost = near + (0.0 if self.scene_rect.contains(rect) else OUTSIDE_COST)
            if best_cost is not None and cost >= best_cost:
                continue
            if edge_cost and self.crosses_edge(rect):
                cost += edge_cost
            if best_cost is None or cost < best_cost:
                best, best_cost = rect, cost
        return None if best is None else self.place(best)

    def least_covered(self, candidates: Iterable[QRectF]) -> QRectF:
        """The candidate the hard obstacles cover least, placed."""
        return self.place(min(candidates, key=self.covered))

    def place(self, rect: QRectF) -> QRectF:
        self.add(rect)
        return rect

    @staticmethod
    def _near(cells: dict, rect: QRectF):
        for cell in _cells(rect):
            yield from cells.get(cell, ())


def box_label_places(box: QRectF, width: float, height: float) -> list[QRectF]:
    """Places for a box's time label, best first: beside the box's bottom
    (edges leave and enter boxes at their top and bottom, so their sides are
    freest), beside its top, below and above it; then the same further out,
    sliding along the box's sides, as far as a label still reads as its
    box's (a crowded row of small boxes leaves little room near each)."""
    gap = FRAME_REACH + 2
    places = []
    cx = box.center().x() - width / 2
    for out in (0.0, 10.0, 24.0, 40.0, 60.0, 90.0, 120.0):
        right = box.right() + gap + out
        left = box.left() - gap - out - width
        below = box.bottom() + gap + out
        above = box.top() - gap - out - height
        sides = [box.bottom() - height, box.top()]
        sides += [box.bottom() - height + dy for dy in (height, -height, 2 * height, -2 * height)]
        for y in sides:
            places += [QRectF(right, y, width, height), QRectF(left, y, width, height)]
        for y in (below, above):
            xs = [box.right() - width, box.left(), cx, cx - width / 2, cx + width / 2]
            places += [QRectF(x, y, width, height) for x in xs]
    return places


def title_row_places(frame: QRectF, title: QRectF, width: float, height: float) -> list[QRectF]:
    """Places for an open group's total, best first: in the frame's title
    row right of its title tab (right-aligned in the frame when it fits),
    then above the frame's top corners, then beside them outside."""
    top = frame.top() + (title.height() - height) / 2
    places = []
    inside = frame.right() - 4 - width
    if inside >= title.right() + 4:
        places.append(QRectF(inside, top, width, height))
    places.append(QRectF(title.right() + 4, top, width, height))
    above = frame.top() - height - 3
    places += [QRectF(frame.right() - width, above, width, height),
               QRectF(frame.left(), above, width, height),
               QRectF(title.right() + 4, above, width, height),
               QRectF(frame.right() + 4, top, width, height),
               QRectF(frame.left() - 4 - width, top, width, height)]
    return places


def _gap(rect: QRectF, anchor: QRectF) -> float:
    """The distance between two rects (0 when they touch or overlap)."""
    dx = max(anchor.left() - rect.right(), 0.0, rect.left() - anchor.right())
    dy = max(anchor.top() - rect.bottom(), 0.0, rect.top() - anchor.bottom())
    return math.hypot(dx, dy)


def _cells(rect: QRectF):
    for cx in range(math.floor(rect.left() / CELL), math.floor(rect.right() / CELL) + 1):
        for cy in range(math.floor(rect.top() / CELL), math.floor(rect.bottom() / CELL) + 1):
            yield cx, cy
