"""A profile's time drawn on the canvas: each box framed in a heat colour
(pale yellow for little time, deep red for the most), its time and share
under it; a collapsed group's box shows the total of every node inside it,
an open group's frame its total beside its corner; a legend in the view's
corner gives the scale. Items of its own on top of the scene, rebuilt
after every layout, like the run overlay's."""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QWidget
from shiboken6 import isValid

from ..canvas import fonts


def heat_fraction(seconds: float, hottest: float) -> float:
    """Where `seconds` sits on the scale, 0..1. On the square root of the
    time: a transformer spends most of its time in a few products, and a
    linear scale would leave every other box the same pale yellow."""
    if hottest <= 0 or seconds <= 0:
        return 0.0
    return min(1.0, (seconds / hottest) ** 0.5)


def heat_colour(t: float) -> QColor:
    """Pale yellow (t = 0) through orange to deep red (t = 1)."""
    t = min(1.0, max(0.0, t))
    return QColor.fromHsvF((55 - 55 * t) / 360.0, 0.25 + 0.7 * t, 1.0 - 0.25 * t)


def time_text(seconds: float) -> str:
    if seconds >= 1.0:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.0f} µs"


def box_seconds(profile, view_model, graph) -> tuple[dict, dict]:
    """(box id -> seconds, group path -> seconds) on the level showing
    `graph`: a box sums the nodes it shows (a collapsed group all of its
    nodes), a group every node inside it at any depth."""
    boxes: dict = {}
    groups: dict = {}
    for n in profile.nodes:
        node = n.node
        if node is None or n.seconds <= 0 or node.graph is not graph:
            continue
        box = view_model.box_for(node)
        if box is not None:
            boxes[box] = boxes.get(box, 0.0) + n.seconds
        path = view_model.path_of_node.get(id(node), ())
        for depth in range(1, len(path) + 1):
            groups[path[:depth]] = groups.get(path[:depth], 0.0) + n.seconds
    return boxes, groups


class HeatMark(QGraphicsItem):
    """One box's heat frame and its time label (under the box)."""

    def __init__(self, rect: QRectF, colour: QColor, label: str, tooltip: str, group: bool):
        super().__init__()
        self.rect = QRectF(rect)
        self.colour = colour
        self.label = label
        self.group = group
        self.setToolTip(tooltip)
        self.setZValue(1.8)          # under the boxes, like the comparison's bands
        self.setAcceptedMouseButtons(Qt.NoButton)
        width = fonts.text_width(label) + 10
        self.tag = QRectF(self.rect.center().x() - width / 2, self.rect.bottom() + 5, width, 15)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-6, -6, 6, 6).united(self.tag)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setPen(QPen(self.colour, 8 if self.group else 6))
        painter.setBrush(Qt.NoBrush)
        painter.drawRoundedRect(self.rect.adjusted(-3, -3, 3, 3), 6, 6)
        painter.setPen(QPen(self.colour.darker(130), 1))
        painter.setBrush(self.colour)
        painter.drawRoundedRect(self.tag, 4, 4)
        painter.setPen(QColor("#202020"))
        font = fonts.body_font()
        font.setBold(self.group)
        painter.setFont(font)
        painter.drawText(self.tag, Qt.AlignCenter, self.label)


class GroupTotal(QGraphicsItem):
    """An open group's total, beside its frame's top right corner."""

    def __init__(self, frame_rect: QRectF, colour: QColor, label: str):
        super().__init__()
        width = fonts.text_width(label) + 10
        # Outside the frame, right of its top: inside, it would cover the title tab of a narrow frame.
        self.rect = QRectF(frame_rect.right() + 4, frame_rect.top() + 2, width, 15)
        self.colour = colour
        self.label = label
        self.setZValue(3.2)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setPen(QPen(self.colour.darker(130), 1))
        painter.setBrush(self.colour)
        painter.drawRoundedRect(self.rect, 4, 4)
        painter.setPen(QColor("#202020"))
        painter.setFont(fonts.body_font())
        painter.drawText(self.rect, Qt.AlignCenter, self.label)


class HeatLegend(QWidget):
    """The scale, fixed in the view's top right corner: no time .. the hottest box's."""

    WIDTH, HEIGHT = 300, 46

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.hottest = 0.0
        self.title = ""
        self.setAttribute(Qt.WA_TransparentForMouseEvents, True)
        self.resize(self.WIDTH, self.HEIGHT)
        self.hide()

    def set_scale(self, hottest: float, title: str) -> None:
        self.hottest = hottest
        self.title = title
        self.place()
        self.show()
        self.raise_()
        self.update()

    def place(self) -> None:
        """Over the view's viewport, in its top right corner. A child of the
        view, not of the viewport: a scroll moves the viewport's children."""
        view = self.parentWidget()
        if view is not None:
            area = view.viewport().geometry()
            self.move(area.right() - self.WIDTH - 12, area.top() + 10)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setPen(QPen(QColor("#909090"), 1))
        painter.setBrush(QColor(255, 255, 255, 235))
        painter.drawRoundedRect(QRectF(0.5, 0.5, self.WIDTH - 1, self.HEIGHT - 1), 5, 5)
        painter.setFont(fonts.body_font())
        painter.setPen(QColor("#202020"))
        painter.drawText(QRectF(8, 2, self.WIDTH - 16, 16), Qt.AlignLeft | Qt.AlignVCenter, self.title)
        bar = QRectF(8, 20, self.WIDTH - 16, 9)
        gradient = QLinearGradient(bar.topLeft(), bar.topRight())
        for i in range(11):
            gradient.setColorAt(i / 10, heat_colour((i / 10)))
        painter.setPen(Qt.NoPen)
        painter.setBrush(gradient)
        painter.drawRect(bar)
        painter.setPen(QColor("#404040"))
        # The square-root scale: a quarter of the hottest time sits half way.
        marks = ((0.0, "0", Qt.AlignLeft), (0.25, time_text(self.hottest / 4), Qt.AlignHCenter),
                 (1.0, time_text(self.hottest), Qt.AlignRight))
        for t, text, align in marks:
            x = bar.left() + (t ** 0.5) * bar.width()
            painter.drawLine(QPointF(x, bar.bottom()), QPointF(x, bar.bottom() + 3))
            left = {Qt.AlignLeft: x, Qt.AlignHCenter: x - 50, Qt.AlignRight: x - 100}[align]
            painter.drawText(QRectF(left, bar.bottom() + 3, 100, 14), align | Qt.AlignTop, text)
        painter.end()


class HeatOverlay:
    """Draws `profile` on the graph panel's shown level (None: nothing)."""

    def __init__(self, panel):
        self.panel = panel
        self.profile = None
        self.stale = False            # made before the last edit (the legend says so)
        self.items: list = []
        self.legend = HeatLegend(panel.view)
        self.visible = True
        panel.laid_out.connect(self.refresh)
        self._resize_filter = _ResizeFilter(self.legend, panel.view)
        panel.view.installEventFilter(self._resize_filter)

    def set_profile(self, profile, stale: bool = False) -> None:
        self.profile = profile
        self.stale = stale
        self.refresh()

    def set_visible(self, on: bool) -> None:
        self.visible = bool(on)
        self.refresh()

    def clear(self) -> None:
        scene = self.panel.scene
        for item in self.items:
            if isValid(item) and item.scene() is scene:
                scene.removeItem(item)
        self.items = []
        self.legend.hide()

    def refresh(self) -> None:
        self.clear()
        panel = self.panel
        scene = panel.scene
        vm = scene.view_model
        if self.profile is None or not self.visible or vm is None or not panel.levels:
            return
        graph = panel.level.graph
        boxes, groups = box_seconds(self.profile, vm, graph)
        hottest = max(boxes.values(), default=0.0)
        if hottest <= 0:
            return
        p = self.profile
        for box, seconds in boxes.items():
            item = scene.node_items.get(box)
            if item is None:
                continue
            vnode = vm.nodes.get(box)
            group = vnode is not None and vnode.kind == "group"
            colour = heat_colour(heat_fraction(seconds, hottest))
            label = ("Σ " if group else "") + f"{time_text(seconds)} · {p.share(seconds):.1%}"
            mark = HeatMark(item.scene_rect(), colour, label, self._tooltip(vnode, seconds, group), group)
            scene.addItem(mark)
            self.items.append(mark)
        for path, frame in scene.group_frames.items():
            seconds = groups.get(path, 0.0)
            if seconds <= 0:
                continue
            mark = GroupTotal(frame.scene_rect(), heat_colour(heat_fraction(seconds, max(hottest, seconds))),
                              f"Σ {time_text(seconds)} · {p.share(seconds):.1%}")
            scene.addItem(mark)
            self.items.append(mark)
        who = "onnxruntime" if p.source == "onnxruntime" else QCoreApplication.translate("Heat", "built-in")
        title = QCoreApplication.translate("Heat", "time per box, {who} ({ms} a run)").format(
            who=who, ms=time_text(p.wall))
        if self.stale:
            title = QCoreApplication.translate("Heat", "before your last edit: {title}").format(title=title)
        self.legend.set_scale(hottest, title)

    def _tooltip(self, vnode, seconds: float, group: bool) -> str:
        p = self.profile
        share = f"{p.share(seconds):.1%}"
        if group:
            return QCoreApplication.translate("Heat", "group {name}: {time} a run in its nodes ({share})").format(
                name="/".join(vnode.group), time=time_text(seconds), share=share)
        node = getattr(vnode, "node", None)
        text = QCoreApplication.translate("Heat", "{node}: {time} a run ({share})").format(
            node=node.display_name if node is not None else "", time=time_text(seconds), share=share)
        merged = next((n.merged for n in p.nodes if n.node is node), ()) if node is not None else ()
        if merged:
            text += "\n" + QCoreApplication.translate("Heat", "measured together with {nodes}").format(
                nodes=", ".join(merged[:4]) + (" …" if len(merged) > 4 else ""))
        return text


class _ResizeFilter(QObject):
    """Keeps the legend in the view's corner when the view is resized."""

    def __init__(self, legend: HeatLegend, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.legend = legend

    def eventFilter(self, obj, event) -> bool:
        if event.type() == event.Type.Resize:
            self.legend.place()
        return False
