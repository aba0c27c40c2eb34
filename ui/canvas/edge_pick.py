"""Which edge a point aims at: the distance from a point to an edge's curve.

A drop of an operator (and its highlight while dragging) takes the nearest
edge within reach, not the first the scene lists there: edges run close
together between stacked boxes, and the first in drawing order was often a
neighbour 20 units away.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QPointF
from PySide6.QtGui import QPainterPath


def distance_to_path(path: QPainterPath, point: QPointF) -> float:
    """The shortest distance from `point` to the curve of `path` (both in
    the same coordinates), measured on the curve flattened into segments."""
    best = math.inf
    px, py = point.x(), point.y()
    for polygon in path.toSubpathPolygons():
        pts = [(polygon[i].x(), polygon[i].y()) for i in range(polygon.size())]
        if len(pts) == 1:
            best = min(best, math.hypot(px - pts[0][0], py - pts[0][1]))
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            dx, dy = bx - ax, by - ay
            length2 = dx * dx + dy * dy
            t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((px - ax) * dx + (py - ay) * dy) / length2))
            best = min(best, math.hypot(px - (ax + t * dx), py - (ay + t * dy)))
    return best
