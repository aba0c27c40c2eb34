"""The problem badge on a node box: a red (error) or amber (warning) disc
with "!" on the box's top-right corner, drawn at every zoom where the box
has a border so a broken node is findable from afar."""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen

COLOURS = {2: QColor(214, 48, 49), 1: QColor(232, 150, 20)}
RADIUS = 8.0


def paint_badge(painter: QPainter, rect: QRectF, severity: int, lod: float) -> None:
    colour = COLOURS.get(severity)
    if colour is None:
        return
    centre = QPointF(rect.right(), rect.top())
    painter.setPen(QPen(QColor(255, 255, 255), 1.5))
    painter.setBrush(colour)
    painter.drawEllipse(centre, RADIUS, RADIUS)
    if lod < 0.3:
        return
    font = QFont(painter.font())
    font.setBold(True)
    font.setPixelSize(12)
    painter.setFont(font)
    painter.setPen(QColor(255, 255, 255))
    painter.drawText(QRectF(centre.x() - RADIUS, centre.y() - RADIUS, 2 * RADIUS, 2 * RADIUS),
                     Qt.AlignCenter, "!")


def box_badges(view_model, severities: dict) -> dict:
    """{box id: worst severity} from {ir.Node: severity}: a collapsed group
    carries the worst badge of what it hides; removed nodes carry none."""
    wanted: dict = {}
    for node, severity in severities.items():
        box_id = view_model.box_for(node) if node.graph is not None else None
        if box_id is not None and wanted.get(box_id, 0) < severity:
            wanted[box_id] = severity
    return wanted


def show_badges(scene, severities: dict) -> None:
    """Give every box of `scene` the badge `severities` ({ir.Node: worst
    severity}, from the Problems dock) asks for it."""
    view_model = scene.view_model
    if view_model is None:
        return
    wanted = box_badges(view_model, severities)
    for box_id, item in scene.node_items.items():
        badge = wanted.get(box_id)
        if badge != item.badge:         # 10k boxes, nearly all unchanged
            item.set_badge(badge)
