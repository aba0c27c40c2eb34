"""The graph view: pan, zoom, fit, keyboard navigation, paint-time measurement.

Dragging on empty canvas draws a selection rectangle (Shift adds to the
selection); the middle button or Space+drag pans, as in other graph editors;
clicking an item selects it. A mouse wheel zooms around the cursor (the usual
expectation on a canvas); a touchpad's two-finger scroll (pixel deltas) pans;
Shift+wheel pans sideways; pinch zooms.
"""
from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QPainter, QTransform
from PySide6.QtWidgets import QFrame, QGraphicsView, QRubberBand

from .overview import OVERVIEW_SCALE
from .scene import GraphScene

MIN_SCALE = 0.01
MAX_SCALE = 6.0
STEP = 1.25
# A whole-graph fit using less than this share of the view's width is a
# thin column (tall graphs): Fit fits the width instead.
TALL_FIT_SHARE = 0.2
READABLE_SCALE = 0.45     # below this the labels are not drawn (items.LOD_TEXT)
START_SCALE = 0.8         # a graph too big to fit readably starts at this zoom


class CanvasView(QGraphicsView):
    """The scrolling, zooming widget that shows a GraphScene (not the
    layout's GraphView, which is what the scene is built from)."""
    viewport_changed = Signal()          # scrolled or zoomed (minimap follows)
    item_activated = Signal(object)      # double-clicked item
    back_requested = Signal()            # Esc: leave the current subgraph
    history_step_requested = Signal(int)  # mouse back (-1) / forward (+1) button, Alt+Left / Alt+Right
    first_paint = Signal(float)          # seconds spent in the first paint
    # An operator dragged from the palette was dropped: (domain, op), the
    # EdgeItem under the drop (or None: empty canvas), the scene position.
    op_dropped = Signal(object, object, QPointF)

    def __init__(self, scene=None, parent=None):
        super().__init__(parent)
        if scene is not None:
            self.setScene(scene)
        # Left drag on empty canvas selects (mouse handlers below); panning
        # is the middle button or Space+drag.
        self.setDragMode(QGraphicsView.NoDrag)
        self.setTransformationAnchor(QGraphicsView.AnchorUnderMouse)
        self.setResizeAnchor(QGraphicsView.AnchorViewCenter)
        # Smart updates repaint only the bounding region of what changed
        # (a selection highlight, a relabelled edge); scrolling repaints the
        # exposed strip either way.
        self.setViewportUpdateMode(QGraphicsView.SmartViewportUpdate)
        self.setOptimizationFlag(QGraphicsView.DontAdjustForAntialiasing, True)
        self.setOptimizationFlag(QGraphicsView.DontSavePainterState, True)
        self.setCacheMode(QGraphicsView.CacheBackground)
        self.setFrameShape(QFrame.NoFrame)
        self.setRenderHint(QPainter.Antialiasing, True)
        self.setRenderHint(QPainter.TextAntialiasing, True)
        # Touchpad pinch: grabbed after the first picture (_grab_pinch).
        self._pinch_grabbed = False
        self.last_paint_seconds = 0.0
        self._painted_once = False
        self.horizontalScrollBar().valueChanged.connect(self.viewport_changed)
        self.verticalScrollBar().valueChanged.connect(self.viewport_changed)
        self.setAcceptDrops(True)
        self._drop_edge = None           # EdgeItem lit up under a dragged operator
        self._space_held = False
        self._pan_from = None            # viewport point of the last pan step
        self._band_origin = None         # viewport point where a selection drag began
        self._band_adds = False          # Shift held at its start: add to the selection
        self._band = QRubberBand(QRubberBand.Rectangle, self.viewport())

    # -- dropping an operator from the palette ---------------------------------

    def edge_at(self, scene_pos: QPointF, pixels: float = 9.0):
        """The edge (carrying a value) nearest to scene_pos among those passing
        within `pixels` of it: the one a drop there inserts on, and the one lit
        up while dragging (the first in drawing order was often a neighbour)."""
        from .edge_pick import distance_to_path
        from .items import EdgeItem
        r = pixels / max(self.current_scale(), 1e-3)
        near = self.scene().items(QRectF(scene_pos.x() - r, scene_pos.y() - r, 2 * r, 2 * r),
                                  Qt.IntersectsItemShape) if self.scene() is not None else []
        best, best_d = None, None
        for e in near:
            if isinstance(e, EdgeItem) and e.ref is not None and e.ref.value is not None:
                d = distance_to_path(e.path, e.mapFromScene(scene_pos))
                if best_d is None or d < best_d:
                    best, best_d = e, d
        return best

    def _dragged_op(self, event):
        from ..panels.op_picker import op_from_mime
        return op_from_mime(event.mimeData())

    def _light_edge(self, edge) -> None:
        if edge is self._drop_edge:
            return
        old, self._drop_edge = self._drop_edge, edge
        for item, on in ((old, False), (edge, True)):
            if item is not None:
                try:
                    item.highlighted = on
                    item.update()
                except RuntimeError:      # removed by a re-layout meanwhile
                    pass

    def dragEnterEvent(self, event) -> None:
        if self._dragged_op(event) is None:
            return super().dragEnterEvent(event)
        event.acceptProposedAction()

    def dragMoveEvent(self, event) -> None:
        if self._dragged_op(event) is None:
            return super().dragMoveEvent(event)
        self._light_edge(self.edge_at(self.mapToScene(event.position().toPoint())))
        event.acceptProposedAction()

    def dragLeaveEvent(self, event) -> None:
        self._light_edge(None)
        super().dragLeaveEvent(event)

    def dropEvent(self, event) -> None:
        choice = self._dragged_op(event)
        if choice is None:
            return super().dropEvent(event)
        pos = self.mapToScene(event.position().toPoint())
        edge = self.edge_at(pos)
        self._light_edge(None)
        event.acceptProposedAction()
        self.op_dropped.emit(choice, edge, pos)

    # -- zoom ---------------------------------------------------------------

    def current_scale(self) -> float:
        return self.transform().m11()

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        target = max(MIN_SCALE, min(MAX_SCALE, self.current_scale() * factor))
        factor = target / self.current_scale()
        if abs(factor - 1.0) < 1e-6:
            return
        self._update_hints(target)
        if anchor is None:
            old_anchor = self.transformationAnchor()
            self.setTransformationAnchor(QGraphicsView.AnchorViewCenter)
            self.scale(factor, factor)
            self.setTransformationAnchor(old_anchor)
        else:
            self.scale(factor, factor)
        self.viewport_changed.emit()

    def zoom_in(self) -> None:
        self.zoom_by(STEP)

    def zoom_out(self) -> None:
        self.zoom_by(1 / STEP)

    def reset_zoom(self) -> None:
        self.zoom_by(1.0 / self.current_scale())

    def fit_rect(self, rect: QRectF, max_scale: float = 1.5) -> None:
        if rect.isEmpty():
            return
        self.fitInView(rect.adjusted(-20, -20, 20, 20), Qt.KeepAspectRatio)
        if self.current_scale() > max_scale:
            self.zoom_by(max_scale / self.current_scale())
        self._update_hints(self.current_scale())
        self.viewport_changed.emit()

    def fit_all(self) -> None:
        """Fit the graph. A tall graph fitted whole is a thin column using a
        few per cent of the width: fit its width instead and show its top;
        the rest is a scroll (or a minimap click) away."""
        if self.scene() is None:
            return
        rect = self.scene().itemsBoundingRect()
        if rect.isEmpty():
            return
        if self._is_tall(rect) and not self._showing_width_fit(rect):
            self.fit_width(rect)
        else:
            # Not tall, or F pressed again on the width fit: the whole graph.
            self.fit_whole(rect)

    def _showing_width_fit(self, rect: QRectF) -> bool:
        """The view is where a width fit of `rect` leaves it (its scale,
        the top in view): F was just pressed, so this F shows everything."""
        scale = self._width_fit_scale(rect)
        return (abs(self.current_scale() - scale) <= 1e-6 * scale
                and self.visible_scene_rect().top() <= rect.top() - 1)

    def fit_whole(self, rect: QRectF) -> None:
        """Show all of `rect` (bottom included) at the largest scale that fits.

        The margin is in viewport pixels: fitInView's margin in scene points
        shrank to a fraction of a pixel on a tall graph, and a scroll bar
        coming or going (or centring rounded to whole pixels) then hid the
        bottom. The fit is checked and repeated with more room if needed."""
        margin = 20      # viewport pixels, whatever the scale (20 points is nothing at 2 %)
        for _ in range(4):
            vp = self.viewport().rect()
            scale = min((vp.width() - 2 * margin) / max(rect.width(), 1e-6),
                        (vp.height() - 2 * margin) / max(rect.height(), 1e-6), 1.5)
            scale = max(scale, 1e-4)
            # Not zoom_by: a whole 10k-box graph may need less than MIN_SCALE.
            self.setTransform(QTransform.fromScale(scale, scale))
            self.centerOn(rect.center())
            if self.visible_scene_rect().contains(rect):
                break
            margin *= 2
        self._update_hints(self.current_scale())
        self.viewport_changed.emit()

    def _whole_fit_scale(self, rect: QRectF) -> float:
        vp = self.viewport().rect()
        return min(vp.width() / (rect.width() + 40), vp.height() / (rect.height() + 40))

    def _width_fit_scale(self, rect: QRectF, max_scale: float = 1.5) -> float:
        return min(self.viewport().rect().width() / (rect.width() + 40), max_scale)

    def _is_tall(self, rect: QRectF) -> bool:
        """Fitting `rect` whole would leave most of the width empty."""
        vp = self.viewport().rect()
        whole = min(self._whole_fit_scale(rect), 1.5)
        return rect.width() * whole < TALL_FIT_SHARE * vp.width()

    def fit_width(self, rect: QRectF) -> None:
        """Scale `rect`'s width to the view (at most 1.5) and show its top."""
        self.zoom_by(self._width_fit_scale(rect) / self.current_scale())
        visible = self.visible_scene_rect()
        self.centerOn(rect.center().x(), rect.top() - 20 + visible.height() / 2)
        self._update_hints(self.current_scale())
        self.viewport_changed.emit()

    def zoom_to_selection(self) -> None:
        scene = self.scene()
        if scene is None or not scene.selectedItems():
            return
        rect = QRectF()
        for item in scene.selectedItems():
            rect = rect.united(item.sceneBoundingRect())
        self.fit_rect(rect, max_scale=1.5)

    def center_on_item(self, item, zoom: float = 1.0) -> None:
        if self.current_scale() < zoom * 0.6:
            self.zoom_by(zoom / self.current_scale())
        self.centerOn(item.sceneBoundingRect().center())
        self.viewport_changed.emit()

    def _update_hints(self, scale: float) -> None:
        # Antialiasing thousands of tiny paths costs more than it shows.
        self.setRenderHint(QPainter.Antialiasing, scale >= 0.3)

    # -- events -------------------------------------------------------------

    def wheelEvent(self, event) -> None:
        mods = event.modifiers()
        pixel = event.pixelDelta()
        if mods & Qt.ShiftModifier and not mods & Qt.ControlModifier:
            delta = event.angleDelta().y() or event.angleDelta().x()
            bar = self.horizontalScrollBar()
            bar.setValue(bar.value() - delta)
            return
        if not pixel.isNull() and not mods & Qt.ControlModifier:
            # Touchpad scrolling pans.
            super().wheelEvent(event)
            return
        steps = event.angleDelta().y() / 120.0
        if steps:
            self.zoom_by(STEP ** steps, event.position())

    def viewportEvent(self, event) -> bool:
        if event.type() == QEvent.NativeGesture and event.gestureType() == Qt.ZoomNativeGesture:
            self.zoom_by(1.0 + event.value(), event.position())
            return True
        if event.type() == QEvent.Gesture:
            pinch = event.gesture(Qt.PinchGesture)
            if pinch is not None:
                self.zoom_by(pinch.scaleFactor())
                return True
        return super().viewportEvent(event)

    # -- pan (middle button, Space+drag) and rubber-band selection ----------------------

    def _on_empty_canvas(self, point) -> bool:
        item = self.itemAt(point)
        return item is None or not item.flags() & item.GraphicsItemFlag.ItemIsSelectable

    def mousePressEvent(self, event) -> None:
        point = event.position().toPoint()
        step = {Qt.BackButton: -1, Qt.ForwardButton: 1}.get(event.button())
        if step is not None:
            self.history_step_requested.emit(step)
            event.accept()
            return
        if event.button() == Qt.MiddleButton or (event.button() == Qt.LeftButton and self._space_held):
            self._pan_from = point
            self.viewport().setCursor(Qt.ClosedHandCursor)
            event.accept()
            return
        if event.button() == Qt.LeftButton and self._on_empty_canvas(point):
            self._band_origin = point
            self._band_adds = bool(event.modifiers() & Qt.ShiftModifier)
            self._band.setGeometry(QRect(point, QSize()))
            self._band.show()
            event.accept()
            return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:
        point = event.position().toPoint()
        if self._pan_from is not None:
            delta = point - self._pan_from
            self._pan_from = point
            self.horizontalScrollBar().setValue(self.horizontalScrollBar().value() - delta.x())
            self.verticalScrollBar().setValue(self.verticalScrollBar().value() - delta.y())
            event.accept()
            return
        if self._band_origin is not None:
            self._band.setGeometry(QRect(self._band_origin, point).normalized())
            event.accept()
            return
        super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event) -> None:
        if self._pan_from is not None and event.button() in (Qt.MiddleButton, Qt.LeftButton):
            self._pan_from = None
            self.viewport().setCursor(Qt.OpenHandCursor if self._space_held else Qt.ArrowCursor)
            event.accept()
            return
        if self._band_origin is not None and event.button() == Qt.LeftButton:
            rect = QRect(self._band_origin, event.position().toPoint()).normalized()
            self._band_origin = None
            self._band.hide()
            self.select_boxes_in(self.mapToScene(rect).boundingRect(), add=self._band_adds)
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def select_boxes_in(self, rect: QRectF, add: bool = False) -> None:
        """Select the boxes `rect` (scene coordinates) touches; edges and
        group frames stay as they are. Without `add` the rest is deselected,
        so a plain click on empty canvas clears the selection. One
        selectionChanged for the lot (per item it would rebuild the
        Properties panel once per box)."""
        from .items import NodeItem
        scene = self.scene()
        if scene is None:
            return
        boxes = [i for i in scene.items(rect, Qt.IntersectsItemShape) if isinstance(i, NodeItem)]
        blocked = scene.blockSignals(True)
        try:
            if not add:
                scene.clearSelection()
            for box in boxes:
                box.setSelected(True)
        finally:
            scene.blockSignals(blocked)
        scene.selectionChanged.emit()

    def keyReleaseEvent(self, event) -> None:
        if event.key() == Qt.Key_Space and not event.isAutoRepeat():
            self._space_held = False
            if self._pan_from is None:
                self.viewport().unsetCursor()
            return
        super().keyReleaseEvent(event)

    def focusOutEvent(self, event) -> None:
        # A Space released in another widget never reaches us.
        self._space_held = False
        super().focusOutEvent(event)

    def mouseDoubleClickEvent(self, event) -> None:
        item = self.itemAt(event.position().toPoint())
        if item is not None:
            self.item_activated.emit(item)
            event.accept()
            return
        super().mouseDoubleClickEvent(event)

    def keyPressEvent(self, event) -> None:
        # The window's menu owns these shortcuts; handling the keys here too
        # keeps a bare view (tests, embedding) usable from the keyboard.
        key = event.key()
        if key == Qt.Key_Space:
            if not event.isAutoRepeat():
                self._space_held = True
                self.viewport().setCursor(Qt.OpenHandCursor)
            return
        if key == Qt.Key_Escape:
            self.back_requested.emit()
            return
        if key in (Qt.Key_Left, Qt.Key_Right) and event.modifiers() == Qt.AltModifier:
            self.history_step_requested.emit(-1 if key == Qt.Key_Left else 1)
            return
        actions = {Qt.Key_Plus: self.zoom_in, Qt.Key_Equal: self.zoom_in, Qt.Key_Minus: self.zoom_out,
                   Qt.Key_F: self.fit_all, Qt.Key_Z: self.zoom_to_selection, Qt.Key_0: self.reset_zoom}
        if key in actions and not event.modifiers() & (Qt.ControlModifier | Qt.AltModifier):
            actions[key]()
            return
        super().keyPressEvent(event)

    def scrollContentsBy(self, dx: int, dy: int) -> None:
        super().scrollContentsBy(dx, dy)
        self.viewport_changed.emit()

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self.viewport_changed.emit()

    def paintEvent(self, event) -> None:
        start = time.perf_counter()
        batches = self._overview_batches()
        if batches is not None:
            painter = QPainter(self.viewport())
            theme = self.scene().theme
            painter.fillRect(event.rect(), theme.background)
            painter.setTransform(self.viewportTransform())
            batches.paint(painter, self.visible_scene_rect(), self.scene().selectedItems())
            painter.end()
        else:
            super().paintEvent(event)
        self.last_paint_seconds = time.perf_counter() - start
        if not self._painted_once and self.scene() is not None and self.scene().items():
            self._painted_once = True
            self.first_paint.emit(self.last_paint_seconds)
            if not self._pinch_grabbed:
                QTimer.singleShot(0, self._grab_pinch)

    def _grab_pinch(self) -> None:
        # The first grab in the process makes Qt's gesture manager: 45 ms
        # offscreen, 100 ms on X, which the first picture does not wait for.
        if not self._pinch_grabbed:
            self._pinch_grabbed = True
            self.viewport().grabGesture(Qt.PinchGesture)

    def _overview_batches(self):
        scene = self.scene()
        if not isinstance(scene, GraphScene) or self.current_scale() >= OVERVIEW_SCALE:
            return None
        return scene.overview()

    def reset_first_paint(self) -> None:
        self._painted_once = False

    def drawBackground(self, painter: QPainter, rect: QRectF) -> None:
        scene = self.scene()
        if not isinstance(scene, GraphScene):
            return super().drawBackground(painter, rect)
        painter.fillRect(rect, scene.theme.background)

    def visible_scene_rect(self) -> QRectF:
        return self.mapToScene(self.viewport().rect()).boundingRect()

    # -- where the view is, to come back to it ------------------------------------------

    def view_state(self) -> tuple[float, float, float]:
        """(scale, centre x, centre y): kept per level and between sessions."""
        centre = self.visible_scene_rect().center()
        return (self.current_scale(), centre.x(), centre.y())

    def restore_view_state(self, state) -> None:
        scale, x, y = state
        self.zoom_by(scale / self.current_scale())
        self.centerOn(QPointF(x, y))

    def screen_spot(self, item) -> tuple[float, QPointF]:
        """(scale, where `item`'s centre is in the viewport): to put it back
        there with hold_on_screen after a relayout has moved it."""
        centre = item.sceneBoundingRect().center()
        return self.current_scale(), QPointF(self.mapFromScene(centre))

    def hold_on_screen(self, spot, item) -> None:
        """Scroll (and zoom back) so `item` is where screen_spot found it: an
        edit relays the level out, and centring on the new node used to shift
        the picture by ~100 px under the user's eyes."""
        scale, at = spot
        if abs(scale / self.current_scale() - 1.0) > 1e-6:
            self.zoom_by(scale / self.current_scale())
        # The scene rect hugs the graph: where the wanted view reaches past
        # it (a narrow graph that grew a scroll bar, a card near an edge)
        # widen it, or the scroll bars stop short and the card jumps anyway.
        vp = self.viewport().rect()
        top_left = item.sceneBoundingRect().center() - at / scale
        wanted = QRectF(top_left.x(), top_left.y(), vp.width() / scale, vp.height() / scale)
        scene = self.scene()
        if not scene.sceneRect().contains(wanted):
            scene.setSceneRect(scene.sceneRect().united(wanted))
        now = QPointF(self.mapFromScene(item.sceneBoundingRect().center()))
        shift = now - at
        for bar, d in ((self.horizontalScrollBar(), shift.x()), (self.verticalScrollBar(), shift.y())):
            bar.setValue(bar.value() + round(d))
        self.viewport_changed.emit()

    def show_start(self, tops) -> None:
        """The first view of a freshly laid out graph: fit it when it stays
        readable; otherwise start at its top (`tops`: the scene rects of the
        boxes, where the inputs are) at reading size: a 3,000-node graph
        fitted to the window is a grey smear, the minimap gives the overview."""
        self.fit_all()
        if self.current_scale() >= READABLE_SCALE or not tops:
            return
        self.zoom_by(START_SCALE / self.current_scale())
        anchor = min(tops, key=lambda rect: rect.top())
        visible = self.visible_scene_rect()
        self.centerOn(anchor.center().x(), anchor.top() - 30 + visible.height() / 2)
