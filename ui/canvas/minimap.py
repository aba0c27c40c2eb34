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
from .after_paint import AfterPaint
from .scene import GraphScene

MAX_STRETCH = 40.0
MIN_VIEWPORT_RATIO = 2.5   # the canvas must be this many times the minimap's size to show it


class Minimap(QWidget):
    def __init__(self, view, parent=None):
        super().__init__(parent)
        self.view = view
        self._pixmap: QPixmap | None = None
        self._scene_rect = QRectF()
        self.setFixedSize(200, 150)
        self.setCursor(Qt.PointingHandCursor)
        self.setToolTip(self.tr("Overview: click or drag to move the view"))
        view.viewport_changed.connect(self.follow)
        # After an edit the overview is redrawn once the canvas shows the
        # edit, not before (~0.1 s on 10k boxes); edits in a row redraw it once.
        self._later = AfterPaint(self, self.rebuild)

    def rebuild_later(self) -> None:
        """rebuild() once the canvas has been repainted (canvas/after_paint.py)."""
        self._later.start()

    @property
    def rebuild_pending(self) -> bool:
        return self._later.pending

    def rebuild(self) -> None:
        """Redraw the cached overview; call after the scene was repopulated."""
        self._later.stop()
        scene = self.view.scene()
        self._pixmap = None
        if not isinstance(scene, GraphScene):
            self.update()
            return
        boxes = scene.minimap_boxes()
        # The boxes' extent (edges run between boxes): cheaper than
        # itemsBoundingRect over every edge and frame of a 10k-box level.
        self._scene_rect = QRectF()
        if boxes:
            rects = [r for r, _ in boxes]
            left = min(r.left() for r in rects)
            top = min(r.top() for r in rects)
            right = max(r.right() for r in rects)
            bottom = max(r.bottom() for r in rects)
            self._scene_rect = QRectF(left, top, right - left, bottom - top)
        if self._scene_rect.isEmpty():
            self.update()
            return
        self._shape_to_scene()
        theme = getattr(scene, "theme", LIGHT)
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(int(self.width() * ratio), int(self.height() * ratio))
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(theme.background)
        painter = QPainter(pixmap)
        painter.setTransform(self._transform_scale())
        # One colour per kind of box, and the pen changed only when the colour
        # does: asking each of 10k items for its colour cost ~30 ms.
        colours: dict = {}
        last = None
        for rect, item in boxes:
            key = (item.kind, item.family)
            colour = colours.get(key)
            if colour is None:
                colour = colours[key] = item.swatch(theme)
            if colour is not last:
                painter.setPen(QPen(colour, 0))      # hairline: boxes never vanish below a pixel
                painter.setBrush(colour)
                last = colour
            painter.drawRect(rect)
        painter.end()
        self._pixmap = pixmap
        self.follow()

    def follow(self) -> None:
        """Show or hide the minimap for the view's current viewport."""
        # Nothing to orient by when the whole graph is on screen.
        everything_visible = (self._pixmap is None or
                              self.view.visible_scene_rect().contains(self._scene_rect))
        # On a canvas squeezed by docks the overview would hide the graph itself.
        viewport = self.view.viewport().size()
        too_small = (viewport.width() < MIN_VIEWPORT_RATIO * self.width()
                     or viewport.height() < MIN_VIEWPORT_RATIO * self.height())
        self.setVisible(not everything_visible and not too_small)
        self.update()

    def _shape_to_scene(self) -> None:
        """Portrait for tall graphs, landscape for wide ones: a 10k-node stack
        is 500 times taller than wide and would be a hairline in a 4:3 box."""
        rect = self._scene_rect
        aspect = rect.height() / max(rect.width(), 1.0)
        if aspect > 2.5:
            self.setFixedSize(110, 300)
        elif aspect < 0.4:
            self.setFixedSize(300, 110)
        else:
            self.setFixedSize(200, 150)

    def _fit(self) -> tuple[float, float, float, float]:
        """(sx, sy, ox, oy). Uniform scale when the shapes agree; otherwise the
        short side may be stretched (up to MAX_STRETCH) so boxes stay visible."""
        rect = self._scene_rect
        sx = self.width() / max(rect.width(), 1)
        sy = self.height() / max(rect.height(), 1)
        if sx > sy:
            sx = min(sx, sy * MAX_STRETCH)
        else:
            sy = min(sy, sx * MAX_STRETCH)
        ox = (self.width() - rect.width() * sx) / 2 - rect.left() * sx
        oy = (self.height() - rect.height() * sy) / 2 - rect.top() * sy
        return sx, sy, ox, oy

    def _transform_scale(self):
        from PySide6.QtGui import QTransform
        sx, sy, ox, oy = self._fit()
        return QTransform(sx, 0, 0, sy, ox, oy)

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
        sx, sy, ox, oy = self._fit()
        self.view.centerOn(QPointF((pos.x() - ox) / sx, (pos.y() - oy) / sy))

    def mousePressEvent(self, event) -> None:
        self._move_view(event.position())

    def mouseMoveEvent(self, event) -> None:
        if event.buttons() & Qt.LeftButton:
            self._move_view(event.position())
