"""A small overview of the whole graph with the visible area outlined.

It paints node boxes into a cached pixmap once per scene (not the scene itself:
rendering 10k items at overview scale would cost a third of a second per
frame); only the viewport rectangle is redrawn as the main view moves.
Clicking or dragging in the minimap recentres the main view.
"""
from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QWidget

from ..theme import LIGHT


class Minimap(QWidget):
    def __init__(self, view, parent=None):
        super().__init__(parent)
        self.view = view
        self._pixmap: QPixmap | None = None
        self._scene_rect = QRectF()
        self.setFixedSize(200, 150)
        self.setCursor(Qt.PointingHandCursor)
        self.setToolTip("Overview: click or drag to move the view")
        view.viewport_changed.connect(self._follow)

    def rebuild(self) -> None:
        """Redraw the cached overview; call after the scene was repopulated."""
        scene = self.view.scene()
        self._pixmap = None
        if scene is None or not hasattr(scene, "minimap_boxes"):
            self.update()
            return
        self._scene_rect = scene.itemsBoundingRect()
        if self._scene_rect.isEmpty():
            self.update()
            return
        theme = getattr(scene, "theme", LIGHT)
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(int(self.width() * ratio), int(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(theme.background)
        painter = QPainter(pixmap)
        painter.setTransform(self._transform_scale())
        painter.setPen(Qt.NoPen)
        for rect, item in scene.minimap_boxes():
            painter.setBrush(item._swatch(theme))
            painter.drawRect(rect)
        painter.end()
        self._pixmap = pixmap
        self._follow()

    def _follow(self) -> None:
        # Nothing to orient by when the whole graph is on screen.
        everything_visible = (self._pixmap is None or
                              self.view.visible_scene_rect().contains(self._scene_rect))
        self.setVisible(not everything_visible)
        self.update()

    def _fit(self) -> tuple[float, float, float]:
        rect = self._scene_rect
        scale = min(self.width() / max(rect.width(), 1), self.height() / max(rect.height(), 1))
        ox = (self.width() - rect.width() * scale) / 2 - rect.left() * scale
        oy = (self.height() - rect.height() * scale) / 2 - rect.top() * scale
        return scale, ox, oy

    def _transform_scale(self):
        from PySide6.QtGui import QTransform
        scale, ox, oy = self._fit()
        return QTransform(scale, 0, 0, scale, ox, oy)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        theme = getattr(self.view.scene(), "theme", LIGHT)
        painter.fillRect(self.rect(), theme.background)
        if self._pixmap is not None:
            painter.drawPixmap(0, 0, self._pixmap)
            visible = self._transform_scale().mapRect(self.view.visible_scene_rect())
            painter.setPen(QPen(theme.selection, 1.5))
            painter.setBrush(QColor(theme.selection.red(), theme.selection.green(),
                                    theme.selection.blue(), 30))
            painter.drawRect(visible.intersected(QRectF(self.rect()).adjusted(0, 0, -1, -1)))
        painter.setPen(QPen(theme.node_border, 1))
        painter.setBrush(Qt.NoBrush)
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))

    def _move_view(self, pos: QPointF) -> None:
        if self._pixmap is None:
            return
        scale, ox, oy = self._fit()
        self.view.centerOn(QPointF((pos.x() - ox) / scale, (pos.y() - oy) / scale))

    def mousePressEvent(self, event) -> None:
        self._move_view(event.position())

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.LeftButton:
            self._move_view(event.position())
