"""Ports on node cards, and wiring by dragging.

Cards carry no drawn ports (10k of them would cost paint time); the ports of
the card under the mouse appear on hover: input slots along the top edge,
outputs along the bottom (the layout runs top to bottom).

Gestures (an event filter on the view's viewport, so the view keeps its own
click, selection and panning behaviour everywhere else):
- press on an output port and drag to an input port of another node: the
  port under the cursor turns green when the connection is possible, red
  with the reason in the status bar when not; releasing there connects;
- drag a loose node (reads and feeds nothing, e.g. just added with Tab) over
  an edge: the edge lights up, releasing inserts the node on it.

The edits themselves (and what makes a target valid) are in ui/canvas_edits.py.
"""
from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainterPath, QPen
from PySide6.QtWidgets import QGraphicsItem, QGraphicsPathItem

from .items import EdgeItem, NodeItem

PORT_RADIUS = 4.5        # drawn, in pixels
HIT_PIXELS = 9           # how near the cursor must be to grab an output port
DRAG_START_PIXELS = 6
MAX_SLOTS = 16

OK_COLOUR = QColor(40, 170, 80)
BAD_COLOUR = QColor(210, 60, 50)


def input_slot_count(node, model) -> int:
    """Slots drawn on top of a card: the node's inputs, plus the schema's
    optional ones it leaves out (and one more for a variadic list)."""
    count = len(node.inputs)
    try:
        from onnxstudio.core import schemas
        schema = schemas.bind(node.domain, node.op_type, dict(model.opset_imports)) if model else None
    except Exception:  # noqa: BLE001 - no schema: the node's own inputs
        schema = None
    if schema is not None and schema.inputs:
        if schema.inputs[-1].is_variadic:
            count = max(count + 1, len(schema.inputs))
        else:
            count = max(count, len(schema.inputs))
    return min(count, MAX_SLOTS)


def _spread(rect: QRectF, n: int, y: float) -> list[QPointF]:
    return [QPointF(rect.left() + rect.width() * (i + 1) / (n + 1), y) for i in range(n)]


def item_ports(item: NodeItem, model) -> tuple[list, list]:
    """([(input index, scene point)], [(ir Value, scene point)]) of a card."""
    ref = item.ref
    rect = item.scene_rect()
    node = ref.node if ref is not None else None
    if node is not None and item.kind == "op":
        n = input_slot_count(node, model)
        inputs = list(enumerate(_spread(rect, n, rect.top())))
        outs = [v for v in node.outputs if v is not None]
        outputs = list(zip(outs, _spread(rect, len(outs), rect.bottom())))
        return inputs, outputs
    value = ref.value if ref is not None else None
    if item.kind == "input" and value is not None:
        return [], [(value, QPointF(rect.center().x(), rect.bottom()))]
    return [], []


class PortMarks(QGraphicsItem):
    """The ports of one card (hover), and the target port of a drag."""

    def __init__(self):
        super().__init__()
        self.inputs: list[QPointF] = []
        self.outputs: list[QPointF] = []
        self.target: QPointF | None = None
        self.target_ok = False
        self.setZValue(50)
        self.setAcceptedMouseButtons(Qt.NoButton)
        self._bounds = QRectF()

    def show_ports(self, inputs, outputs, target=None, ok=False) -> None:
        self.prepareGeometryChange()
        self.inputs, self.outputs = list(inputs), list(outputs)
        self.target, self.target_ok = target, ok
        pts = self.inputs + self.outputs + ([target] if target is not None else [])
        if pts:
            xs, ys = [p.x() for p in pts], [p.y() for p in pts]
            self._bounds = QRectF(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)).adjusted(-40, -40, 40, 40)
        else:
            self._bounds = QRectF()
        self.update()

    def boundingRect(self) -> QRectF:
        return self._bounds

    def paint(self, painter, option, widget=None) -> None:
        scale = max(painter.worldTransform().m11(), 1e-3)
        r = PORT_RADIUS / scale
        pen = QPen(QColor(90, 90, 90), 1.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(QBrush(QColor(250, 250, 250)))
        for p in self.inputs:
            painter.drawEllipse(p, r, r)
        painter.setBrush(QBrush(QColor(120, 120, 120)))
        for p in self.outputs:
            painter.drawEllipse(p, r, r)
        if self.target is not None:
            colour = OK_COLOUR if self.target_ok else BAD_COLOUR
            ring = QPen(colour, 2.5)
            ring.setCosmetic(True)
            painter.setPen(ring)
            painter.setBrush(QBrush(colour.lighter(150)))
            painter.drawEllipse(self.target, r * 1.6, r * 1.6)


class PortDragger(QObject):
    """Drag-to-connect and drop-on-edge on one GraphPanel's view."""

    def __init__(self, panel, edits, status):
        super().__init__(panel)
        self.panel = panel
        self.edits = edits            # CanvasEdits
        self.status = status          # callable(message)
        self.marks: PortMarks | None = None
        self.wire: QGraphicsPathItem | None = None
        self.mode = None              # None | "connect" | "maybe-move" | "move"
        self.source = None            # (Value, QPointF) while connecting
        self.target = None            # (Node, index, ok) under the cursor
        self.moving = None            # (NodeItem, original pos, press scene pos)
        self.over_edge: EdgeItem | None = None
        self.press_at = None
        panel.view.viewport().installEventFilter(self)

    # -- helpers -------------------------------------------------------------------------------

    @property
    def scene(self):
        return self.panel.scene

    @property
    def model(self):
        return self.panel.qdoc.document.model if self.panel.qdoc is not None else None

    def _scale(self) -> float:
        return max(self.panel.view.transform().m11(), 1e-3)

    def _scene_pos(self, event) -> QPointF:
        return self.panel.view.mapToScene(event.position().toPoint())

    def _cards_near(self, pos: QPointF, pixels: float) -> list:
        r = pixels / self._scale()
        found = self.scene.items(QRectF(pos.x() - r, pos.y() - r, 2 * r, 2 * r))
        return [i for i in found if isinstance(i, NodeItem) and i.kind in ("op", "input")]

    def _marks(self) -> PortMarks:
        if self.marks is None or not _alive(self.marks) or self.marks.scene() is not self.scene:
            self.marks = PortMarks()
            self.scene.addItem(self.marks)
        return self.marks

    def _hide_marks(self) -> None:
        if self.marks is not None and _alive(self.marks):
            self.marks.show_ports([], [])

    def output_port_at(self, pos: QPointF):
        """(Value, port point) of the output port under `pos`, if any."""
        limit = HIT_PIXELS / self._scale()
        best = None
        for item in self._cards_near(pos, HIT_PIXELS):
            for value, p in item_ports(item, self.model)[1]:
                d = math.hypot(p.x() - pos.x(), p.y() - pos.y())
                if d <= limit and (best is None or d < best[0]):
                    best = (d, value, p)
        return None if best is None else (best[1], best[2])

    def input_port_at(self, pos: QPointF):
        """(NodeItem, input index, port point) nearest `pos` on the card under
        it (or whose port is within reach)."""
        best = None
        for item in self._cards_near(pos, HIT_PIXELS * 2):
            if item.kind != "op":
                continue
            for index, p in item_ports(item, self.model)[0]:
                d = math.hypot(p.x() - pos.x(), p.y() - pos.y())
                if best is None or d < best[0]:
                    best = (d, item, index, p)
        return None if best is None else best[1:]

    # -- events --------------------------------------------------------------------------------

    def eventFilter(self, obj, event) -> bool:
        t = event.type()
        try:
            if t == QEvent.MouseButtonPress and event.button() == Qt.LeftButton:
                return self._press(event)
            if t == QEvent.MouseMove:
                return self._move(event)
            if t == QEvent.MouseButtonRelease and event.button() == Qt.LeftButton:
                return self._release(event)
            if t == QEvent.Leave and self.mode is None:
                self._hide_marks()
        except RuntimeError:          # the scene was rebuilt under a drag: start over
            self._reset()
        return False

    def _press(self, event) -> bool:
        if self.model is None or self.panel.scene.view_model is None:
            return False
        pos = self._scene_pos(event)
        port = self.output_port_at(pos)
        if port is not None:
            self.mode, self.source = "connect", port
            self.wire = QGraphicsPathItem()
            pen = QPen(QColor(90, 90, 90), 1.5, Qt.DashLine)
            pen.setCosmetic(True)
            self.wire.setPen(pen)
            self.wire.setZValue(49)
            self.scene.addItem(self.wire)
            self._update_connect(pos)
            return True
        item = next((i for i in self.scene.items(pos) if isinstance(i, NodeItem) and i.kind == "op"), None)
        node = item.ref.node if item is not None and item.ref is not None else None
        if node is not None and self.edits.is_loose(node):
            self.mode, self.moving, self.press_at = "maybe-move", (item, item.pos(), pos), event.position()
        return False

    def _move(self, event) -> bool:
        if self.model is None or self.scene.view_model is None:
            return False
        pos = self._scene_pos(event)
        if self.mode == "connect":
            self._update_connect(pos)
            return True
        if self.mode == "maybe-move":
            if (event.position() - self.press_at).manhattanLength() < DRAG_START_PIXELS:
                return False
            self.mode = "move"
        if self.mode == "move":
            self._update_move(pos)
            return True
        self._hover(pos)
        return False

    def _release(self, event) -> bool:
        mode = self.mode
        if mode == "connect":
            target, source = self.target, self.source
            self._reset()
            if target is not None:
                node, index, _ok = target
                self.edits.connect(source[0], node, index)     # refused: the status bar says why
            return True
        if mode == "move":
            item, home, _ = self.moving
            edge = self.over_edge
            item.setPos(home)
            self._reset()
            if edge is not None:
                self.edits.drop_on_edge(item.ref.node, edge)
            return False
        self._reset()
        return False

    # -- the two drags ---------------------------------------------------------------------------

    def _hover(self, pos: QPointF) -> None:
        cards = self._cards_near(pos, HIT_PIXELS)
        if not cards:
            self._hide_marks()
            return
        ins, outs = item_ports(cards[0], self.model)
        self._marks().show_ports([p for _, p in ins], [p for _, p in outs])

    def _update_connect(self, pos: QPointF) -> None:
        value, start = self.source
        path = QPainterPath(start)
        mid = (start.y() + pos.y()) / 2
        path.cubicTo(QPointF(start.x(), mid), QPointF(pos.x(), mid), pos)
        self.wire.setPath(path)
        hit = self.input_port_at(pos)
        marks = self._marks()
        if hit is None or hit[0].ref.node is value.producer:
            self.target = None
            marks.show_ports([], [start])
            self.status("")
            return
        item, index, point = hit
        node = item.ref.node
        problem = self.edits.connect_problem(value, node, index)
        self.target = (node, index, not problem)
        marks.show_ports([p for _, p in item_ports(item, self.model)[0]], [start], point, not problem)
        self.status(problem or self.edits.connect_hint(value, node, index))

    def _update_move(self, pos: QPointF) -> None:
        item, home, pressed = self.moving
        item.setPos(home + (pos - pressed))
        edge = self.panel.view.edge_at(pos, HIT_PIXELS)      # the nearest, as a palette drop takes
        if edge is not self.over_edge:
            if self.over_edge is not None and _alive(self.over_edge):
                self.over_edge.highlighted = False
                self.over_edge.update()
            self.over_edge = edge
            if edge is not None:
                edge.highlighted = True
                edge.update()
        self.status(self.edits.drop_hint(item.ref.node, edge) if edge is not None else "")

    def _reset(self) -> None:
        if self.wire is not None and _alive(self.wire) and self.wire.scene() is not None:
            self.wire.scene().removeItem(self.wire)
        self.wire = None
        if self.over_edge is not None and _alive(self.over_edge):
            self.over_edge.highlighted = False
            self.over_edge.update()
        self.over_edge = None
        self.mode = self.source = self.target = self.moving = self.press_at = None
        self._hide_marks()


def _alive(item) -> bool:
    try:
        import shiboken6
        return shiboken6.isValid(item)
    except ImportError:
        return True
