"""Batched drawing of the whole scene when zoomed far out.

Below OVERVIEW_SCALE, letting every item paint itself costs one Python call
per item (a 10k-node graph: ~0.4 s per frame). Instead the view asks for
these pre-grouped batches and draws them with a handful of `drawRects` /
`drawLines` calls. Nothing readable is lost: at that scale items paint as
plain swatches and straight lines anyway.
"""
from __future__ import annotations

from PySide6.QtCore import QLineF, QRectF, Qt
from PySide6.QtGui import QPainter, QPen

OVERVIEW_SCALE = 0.12


class OverviewBatches:
    def __init__(self, scene):
        theme = scene.theme
        self.rects_by_colour: dict[int, tuple] = {}
        for item in scene.node_items.values():
            colour = item.swatch(theme)
            key = colour.rgba()
            if key not in self.rects_by_colour:
                self.rects_by_colour[key] = (colour, [])
            self.rects_by_colour[key][1].append(item.scene_rect())
        self.lines = [QLineF(item.start, item.end) for item in scene.edge_items.values()]
        self.frames = [frame.scene_rect() for frame in scene.group_frames.values()]
        self.theme = theme

    def paint(self, painter: QPainter, visible: QRectF, selected) -> None:
        theme = self.theme
        painter.setRenderHint(QPainter.Antialiasing, False)
        if self.frames:
            pen = QPen(theme.group_border, 0)
            painter.setPen(pen)
            painter.setBrush(theme.group_fill)
            painter.drawRects(self.frames)
        edge_pen = QPen(theme.edge, 0)        # cosmetic hairline
        painter.setPen(edge_pen)
        painter.drawLines(self.lines)
        painter.setPen(Qt.NoPen)
        for colour, rects in self.rects_by_colour.values():
            painter.setBrush(colour)
            painter.drawRects(rects)
        if selected:
            pen = QPen(theme.selection, 3)
            pen.setCosmetic(True)
            painter.setPen(pen)
            painter.setBrush(theme.selection)
            for item in selected:
                painter.drawRect(item.sceneBoundingRect())
