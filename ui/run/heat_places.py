"""Where the heat map's time labels go: beside their box or in their group
frame's title row, clear of everything else the canvas writes.

A label may not cover a node box (nor the heat frame drawn round it), an
edge's type label, a group's title tab, a run's value tag or another heat
label. Among the places that cover none of those, the nearest to what it
labels, where crossing an edge line or leaving the scene (the scrollable
area) counts as further; when every place covers something, the one that
covers least. Plain geometry
bucketed by area, as the run overlay's tags do, in (left, top, right,
bottom) tuples: a heat refresh tries a hundred places for each box of a
crowded level, and QRectF's method calls were most of its time.
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
        self.scene_rect = _box(scene_rect)
        self._hard: dict = {}       # cell -> [box]
        self._edges: dict = {}      # cell -> [edge item]

    def add(self, rect: QRectF) -> None:
        self._add(_box(rect))

    def _add(self, box: tuple) -> None:
        for cell in _cells(box):
            self._hard.setdefault(cell, []).append(box)

    def add_edge(self, edge) -> None:
        for cell in _cells(_box(edge.boundingRect())):
            self._edges.setdefault(cell, []).append(edge)

    def covered(self, box: tuple) -> float:
        """How much of `box` the hard obstacles cover (the largest overlap's area)."""
        left, top, right, bottom = box
        worst = 0.0
        for other in self._near(self._hard, box):
            w = min(right, other[2]) - max(left, other[0])
            h = min(bottom, other[3]) - max(top, other[1])
            if w > 0 and h > 0 and w * h > worst:
                worst = w * h
        return worst

    def free(self, box: tuple) -> bool:
        """Whether no hard obstacle meets `box` (stops at the first: most trial places are taken)."""
        left, top, right, bottom = box
        for other in self._near(self._hard, box):
            if min(right, other[2]) > max(left, other[0]) and min(bottom, other[3]) > max(top, other[1]):
                return False
        return True

    def crosses_edge(self, box: tuple) -> bool:
        rect = _rect(box)
        seen = set()
        for edge in self._near(self._edges, box):
            if id(edge) in seen:
                continue
            seen.add(id(edge))
            # The edge's stroke (its shape for clicks): a curve's own path would count the area it bounds.
            if edge.boundingRect().intersects(rect) and edge.shape().intersects(rect):
                return True
        return False

    def find(self, candidates: Iterable[tuple], anchor: Optional[QRectF],
             edge_cost: float = EDGE_COST) -> Optional[QRectF]:
        """The candidate clear of the hard obstacles nearest to `anchor` (what
        it labels; None: the first clear one), crossing an edge line counting
        as `edge_cost` px further and leaving the scene as far again as
        anything else; ties go to the earlier candidate. None when none is
        clear. Found: placed (later labels keep clear of it)."""
        at = None if anchor is None else _box(anchor)
        ranked = [(0.0 if at is None else _gap(box, at), box) for box in candidates]
        ranked.sort(key=lambda pair: pair[0])       # stable: equally near ones stay in the given order
        best, best_cost = None, None
        scene = self.scene_rect
        for near, box in ranked:
            if best_cost is not None and near >= best_cost:
                break               # the rest are further out still
            if not self.free(box):
                continue
            inside = scene[0] <= box[0] and scene[1] <= box[1] and box[2] <= scene[2] and box[3] <= scene[3]
            cost = near + (0.0 if inside else OUTSIDE_COST)
            if best_cost is not None and cost >= best_cost:
                continue
            if edge_cost and self.crosses_edge(box):
                cost += edge_cost
            if best_cost is None or cost < best_cost:
                best, best_cost = box, cost
        return None if best is None else self.place(best)

    def least_covered(self, candidates: Iterable[tuple]) -> QRectF:
        """The candidate the hard obstacles cover least, placed."""
        return self.place(min(candidates, key=self.covered))

    def place(self, box: tuple) -> QRectF:
        self._add(box)
        return _rect(box)

    @staticmethod
    def _near(cells: dict, box: tuple):
        for cell in _cells(box):
            yield from cells.get(cell, ())


def box_label_places(box: QRectF, width: float, height: float) -> list[tuple]:
    """Places for a box's time label, best first: beside the box's bottom
    (edges leave and enter boxes at their top and bottom, so their sides are
    freest), beside its top, below and above it; then the same further out,
    sliding along the box's sides, as far as a label still reads as its
    box's (a crowded row of small boxes leaves little room near each)."""
    gap = FRAME_REACH + 2
    left_, top_, right_, bottom_ = _box(box)
    cx = (left_ + right_ - width) / 2
    places = []
    for out in (0.0, 10.0, 24.0, 40.0, 60.0, 90.0, 120.0):
        right = right_ + gap + out
        left = left_ - gap - out - width
        below = bottom_ + gap + out
        above = top_ - gap - out - height
        sides = [bottom_ - height, top_]
        sides += [bottom_ - height + dy for dy in (height, -height, 2 * height, -2 * height)]
        for y in sides:
            places += [(right, y, right + width, y + height), (left, y, left + width, y + height)]
        for y in (below, above):
            for x in (right_ - width, left_, cx, cx - width / 2, cx + width / 2):
                places.append((x, y, x + width, y + height))
    return places


def title_row_places(frame: QRectF, title: QRectF, width: float, height: float) -> list[tuple]:
    """Places for an open group's total, best first: in the frame's title
    row right of its title tab (right-aligned in the frame when it fits),
    then above the frame's top corners, then beside them outside."""
    top = frame.top() + (title.height() - height) / 2
    xs = []
    inside = frame.right() - 4 - width
    if inside >= title.right() + 4:
        xs.append((inside, top))
    above = frame.top() - height - 3
    xs += [(title.right() + 4, top), (frame.right() - width, above), (frame.left(), above),
           (title.right() + 4, above), (frame.right() + 4, top), (frame.left() - 4 - width, top)]
    return [(x, y, x + width, y + height) for x, y in xs]


def _box(rect: QRectF) -> tuple:
    return rect.left(), rect.top(), rect.right(), rect.bottom()


def _rect(box: tuple) -> QRectF:
    return QRectF(box[0], box[1], box[2] - box[0], box[3] - box[1])


def _gap(box: tuple, anchor: tuple) -> float:
    """The distance between two boxes (0 when they touch or overlap)."""
    dx = max(anchor[0] - box[2], 0.0, box[0] - anchor[2])
    dy = max(anchor[1] - box[3], 0.0, box[1] - anchor[3])
    return math.hypot(dx, dy)


def _cells(box: tuple):
    for cx in range(math.floor(box[0] / CELL), math.floor(box[2] / CELL) + 1):
        for cy in range(math.floor(box[1] / CELL), math.floor(box[3] / CELL) + 1):
            yield cx, cy
