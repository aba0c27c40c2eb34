"""Colour by status on a canvas: a frame over every box whose node was
added, removed, changed or rewritten, a dashed frame over a collapsed
group (or a node holding bodies) with anything changed inside, a dotted
frame over a node that reads values which were not compared (a weight or
a Constant's tensor whose data cannot be read on a side: such a node may
differ, and an unmarked box would say it does not), and the legend that
names the colours.

Frames are child items of the boxes, so they move and vanish with them;
they take no mouse buttons, so clicks reach the box below."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QGraphicsItem, QHBoxLayout, QLabel, QWidget

from ...core.diff import ADDED, CHANGED, REMOVED, REWRITTEN, SAME

INSIDE = "inside"        # a group or a node with bodies holding a difference
NOT_COMPARED = "not_compared"   # otherwise the same, but reads (or holds) values that were not compared

COLOURS = {ADDED: "#2e9d46", REMOVED: "#d0343a", CHANGED: "#e08a00", REWRITTEN: "#8a55c9", INSIDE: "#e08a00",
           NOT_COMPARED: "#2f6fb8"}
_PEN_STYLES = {INSIDE: Qt.DashLine, NOT_COMPARED: Qt.DotLine}

_SOURCE_TEXT = {
    SAME: QT_TRANSLATE_NOOP("DiffStatus", "same"),
    ADDED: QT_TRANSLATE_NOOP("DiffStatus", "added in B"),
    REMOVED: QT_TRANSLATE_NOOP("DiffStatus", "removed from A"),
    CHANGED: QT_TRANSLATE_NOOP("DiffStatus", "changed"),
    REWRITTEN: QT_TRANSLATE_NOOP("DiffStatus", "rewritten (fused, folded, …)"),
    INSIDE: QT_TRANSLATE_NOOP("DiffStatus", "changed inside"),
    NOT_COMPARED: QT_TRANSLATE_NOOP("DiffStatus", "reads values not compared"),
}


def status_text(status: str) -> str:
    return QCoreApplication.translate("DiffStatus", _SOURCE_TEXT[status])


def paint_status(painter: QPainter, rect: QRectF, status: str, width: float) -> None:
    """The frame of `status` around `rect`, as the canvas and the legend draw
    it: tinted and solid, or dashed and empty for "changed inside" (its colour
    is the one of "changed", so the dashes and the empty middle tell them apart),
    or dotted and empty for "reads values not compared" (not a difference)."""
    colour = QColor(COLOURS[status])
    pen_style = _PEN_STYLES.get(status, Qt.SolidLine)
    painter.setPen(QPen(colour, width, pen_style))
    fill = QColor(colour)
    fill.setAlpha(0 if pen_style != Qt.SolidLine else 45)
    painter.setBrush(QBrush(fill))
    painter.drawRoundedRect(rect, 5, 5)


def legend_swatch(status: str) -> QPixmap:
    """A small picture of the canvas's frame for `status`."""
    pixmap = QPixmap(26, 16)
    pixmap.fill(Qt.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.Antialiasing, True)
    # A thinner pen than the canvas's: at this size a 4 px dash pattern is
    # all dash, and "changed inside" looked like "changed" (QA).
    paint_status(painter, QRectF(1.5, 1.5, 23, 13), status, 2)
    painter.end()
    return pixmap


class StatusFrame(QGraphicsItem):
    def __init__(self, parent: QGraphicsItem, rect: QRectF, status: str):
        super().__init__(parent)
        self.rect = QRectF(rect)
        self.status = status
        self.setAcceptedMouseButtons(Qt.NoButton)
        self.setZValue(1)

    def set_status(self, status: str) -> None:
        if status != self.status:
            self.status = status
            self.update()

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-5, -5, 5, 5)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        paint_status(painter, self.rect.adjusted(-3, -3, 3, 3), self.status, 4)


class StatusMarks:
    """Keeps the frames of one side ('a' or 'b') up to date with its canvas."""

    def __init__(self, panel, diff, side: str):
        self.panel, self.diff, self.side = panel, diff, side
        self._inside: dict = {}
        self._not_compared = readers_of_values_not_compared(diff, side)
        panel.laid_out.connect(self.apply)

    def node_status(self, node) -> str:
        status = self.diff.status_a(node) if self.side == "a" else self.diff.status_b(node)
        if status == SAME:
            return self.status_inside(node) or (NOT_COMPARED if node in self._not_compared else SAME)
        return status

    def status_inside(self, node) -> str | None:
        """INSIDE when a node of a body below `node` is not the same on the
        other side, else NOT_COMPARED when one reads values not compared."""
        known = self._inside.get(node)
        if known is None:
            known = _strongest(self.node_status(n) for _, body in node.subgraphs() for n in body.nodes)
            self._inside[node] = known
        return known

    def value_status(self, value) -> str:
        io = self.diff.inputs if value.is_graph_input else self.diff.outputs
        if value in (io.removed if self.side == "a" else io.added):
            return ADDED if self.side == "b" else REMOVED
        if any(value is (x if self.side == "a" else y) for x, y in io.changed):
            return CHANGED
        return SAME

    def box_statuses(self, view_model) -> dict:
        """{box id: status} for the shown level; a collapsed group is INSIDE
        when any node in it (or in its bodies) differs."""
        out = {}
        for box_id, vnode in view_model.nodes.items():
            if vnode.node is not None:
                out[box_id] = self.node_status(vnode.node)
            elif vnode.value is not None:
                out[box_id] = self.value_status(vnode.value)
        for node in view_model.graph.nodes:
            box_id = view_model.box_of_node.get(id(node))
            vnode = view_model.nodes.get(box_id)
            if vnode is not None and vnode.group is not None:
                status = _strongest([out.get(box_id, SAME), self.node_status(node)])
                if status is not None:
                    out[box_id] = status
        return out

    def apply(self) -> None:
        scene = self.panel.scene
        if scene.view_model is None:
            return
        wanted = self.box_statuses(scene.view_model)
        for box_id, item in scene.node_items.items():
            status = wanted.get(box_id, SAME)
            frame = next((c for c in item.childItems() if isinstance(c, StatusFrame)), None)
            if status == SAME:
                if frame is not None:
                    frame.setVisible(False)
            elif frame is None:
                StatusFrame(item, item.rect, status)
            else:
                frame.set_status(status)
                frame.setVisible(True)


def readers_of_values_not_compared(diff, side: str) -> set:
    """The nodes of one side ('a' or 'b') that read a weight whose values
    were not compared (in bodies too), and the Constants holding such a
    tensor with the nodes reading them."""
    values = [c.a if side == "a" else c.b for c in diff.weights_not_compared]
    holders = [c.a if side == "a" else c.b for c in diff.nodes_not_compared]
    values += [v for n in holders for v in n.outputs if v is not None]
    return set(holders) | {n for v in values for n in v.consumers}


def _strongest(statuses) -> str | None:
    """What a collapsed group or a node's bodies show for the statuses of the
    nodes inside: INSIDE when any differs, else NOT_COMPARED when any reads
    values not compared, else None."""
    seen = set(statuses)
    if seen - {SAME, NOT_COMPARED}:
        return INSIDE
    return NOT_COMPARED if NOT_COMPARED in seen else None


class Legend(QWidget):
    """The colours and what they mean, in a row; "reads values not compared"
    only when some were not (`uncertain`)."""

    def __init__(self, parent=None, *, uncertain: bool = False):
        super().__init__(parent)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        self.swatches: dict = {}
        for status in (ADDED, REMOVED, CHANGED, REWRITTEN, INSIDE) + ((NOT_COMPARED,) if uncertain else ()):
            swatch = QLabel(self)
            swatch.setPixmap(legend_swatch(status))
            self.swatches[status] = swatch
            row.addWidget(swatch)
            row.addWidget(QLabel(status_text(status), self))
            row.addSpacing(10)
        row.addStretch(1)
