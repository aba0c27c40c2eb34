"""A profile's time drawn on the canvas: each box framed in a heat colour
(pale yellow for little time, deep red for the most), its time and share
on a label beside it; a collapsed group's box shows the total of every node
inside it, an open group's frame its total in its title row. The labels go
where they cover no box, edge label, title or other label (heat_places.py).
A legend gives the scale in a strip kept for it above the canvas's
viewport (its top margin while the heat is shown): drawn over the canvas,
it hid boxes and labels under it. Items of its own on top of the scene, rebuilt
after every layout, like the run overlay's."""
from __future__ import annotations

from typing import Optional

from PySide6.QtCore import QCoreApplication, QObject, QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFont, QFontMetricsF, QLinearGradient, QPainter, QPen
from PySide6.QtWidgets import QGraphicsItem, QWidget

from ..canvas import fonts
from ..canvas.scene import remove_items
from ..canvas.items import BADGE_OUT
from .overlay import ValueTag
from .heat_places import FRAME_REACH, Obstacles, box_label_places, title_row_places

LABEL_HEIGHT = 15.0


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
    `graph` (the main graph or an If/Loop/Scan body): a box sums the nodes
    it shows (a collapsed group all of its nodes), a group every node inside
    it at any depth."""
    boxes: dict = {}
    groups: dict = {}
    for n in (profile.nodes if graph.parent_node is None else profile.body_nodes):
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
    """One box's heat frame and its time label (`tag`, a place beside the
    box that heat_places found clear of other boxes and labels)."""

    def __init__(self, rect: QRectF, colour: QColor, label: str, tooltip: str, group: bool, tag: QRectF):
        super().__init__()
        self.rect = QRectF(rect)
        self.colour = colour
        self.label = label
        self.group = group
        self.setToolTip(tooltip)
        self.setZValue(1.8)          # under the boxes, like the comparison's bands
        self.setAcceptedMouseButtons(Qt.NoButton)
        self.tag = QRectF(tag)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-6, -6, 6, 6).united(self.tag)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setPen(QPen(self.colour, 8 if self.group else 6))
        painter.setBrush(Qt.NoBrush)
        painter.drawRoundedRect(self.rect.adjusted(-3, -3, 3, 3), 6, 6)
        paint_label(painter, self.tag, self.colour, self.label, bold=self.group)


class GroupTotal(QGraphicsItem):
    """An open group's total, in its frame's title row where there is room
    (heat_places says where)."""

    def __init__(self, rect: QRectF, colour: QColor, label: str):
        super().__init__()
        self.rect = QRectF(rect)
        self.colour = colour
        self.label = label
        self.setZValue(3.2)
        self.setAcceptedMouseButtons(Qt.NoButton)

    def boundingRect(self) -> QRectF:
        return self.rect.adjusted(-1, -1, 1, 1)

    def paint(self, painter: QPainter, option, widget=None) -> None:
        painter.setRenderHint(QPainter.Antialiasing, True)
        paint_label(painter, self.rect, self.colour, self.label)


def label_font(bold: bool = False) -> QFont:
    font = QFont(fonts.body_font())     # a copy: the body font is shared (cached)
    font.setBold(bold)
    return font


def label_size(label: str, bold: bool = False) -> tuple[float, float]:
    return QFontMetricsF(label_font(bold)).horizontalAdvance(label) + 10, LABEL_HEIGHT


def paint_label(painter: QPainter, rect: QRectF, colour: QColor, label: str, bold: bool = False) -> None:
    painter.setPen(QPen(colour.darker(130), 1))
    painter.setBrush(colour)
    painter.drawRoundedRect(rect, 4, 4)
    # Light text on the deep reds, dark on the rest: readable at either end of the scale.
    painter.setPen(QColor("#ffffff") if colour.lightnessF() < 0.55 else QColor("#202020"))
    painter.setFont(label_font(bold))
    painter.drawText(rect, Qt.AlignCenter, label)


class HeatLegend(QWidget):
    """The scale, no time .. the hottest box's, in the top right of a strip
    above the view's viewport: the view's top margin, kept while the legend
    is shown, so it covers no box, label or tag however the canvas scrolls."""

    WIDTH, HEIGHT = 300, 46
    GAP = 3              # between the strip's edges and the legend

    def __init__(self, parent: QWidget):
        super().__init__(parent)
        self.hottest = 0.0
        self.title = ""
        self.setAttribute(Qt.WA_TransparentForMouseEvents, True)
        self.resize(self.WIDTH, self.HEIGHT)
        self.hide()

    def set_scale(self, hottest: float, title: str) -> None:
        """The scale up to `hottest`; 0: no scale, `title` alone says why."""
        self.hottest = hottest
        self.title = title
        self.setToolTip(title)
        self._keep_strip(True)
        self.show()
        self.place()
        self.raise_()
        self.update()

    def take_away(self) -> None:
        """Hidden, and the strip given back to the canvas."""
        self.hide()
        self._keep_strip(False)

    def _keep_strip(self, on: bool) -> None:
        view = self.parentWidget()
        top = self.HEIGHT + 2 * self.GAP if on else 0
        if view is not None and view.viewportMargins().top() != top:
            view.setViewportMargins(0, top, 0, 0)

    def place(self) -> None:
        """In the strip above the viewport, at its right. A child of the
        view, not of the viewport: a scroll moves the viewport's children."""
        view = self.parentWidget()
        if view is not None:
            area = view.viewport().geometry()
            self.move(area.right() - self.WIDTH - 12, area.top() - self.HEIGHT - self.GAP)

    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.Antialiasing, True)
        painter.setPen(QPen(QColor("#909090"), 1))
        painter.setBrush(QColor(255, 255, 255, 235))
        painter.drawRoundedRect(QRectF(0.5, 0.5, self.WIDTH - 1, self.HEIGHT - 1), 5, 5)
        painter.setFont(fonts.body_font())
        painter.setPen(QColor("#202020"))
        if self.hottest <= 0:         # a note instead of a scale, on up to two lines
            painter.drawText(QRectF(8, 2, self.WIDTH - 16, self.HEIGHT - 4),
                             Qt.AlignLeft | Qt.AlignVCenter | Qt.TextWordWrap, self.title)
            painter.end()
            return
        painter.drawText(QRectF(8, 2, self.WIDTH - 16, 16), Qt.AlignLeft | Qt.AlignVCenter,
                         fonts.elide(self.title, self.WIDTH - 16))
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
        # Types that arrive after the heat was drawn (inference still running
        # when a profile is shown, an edit) rewrite the edge labels in place:
        # the time labels make room for them again (they covered them).
        panel.scene.edge_labels_moved.connect(self.refresh)
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
        self._remove_items()
        self.legend.take_away()

    def _remove_items(self) -> None:
        remove_items(self.panel.scene, self.items)
        self.items = []

    def refresh(self) -> None:
        # The legend's strip is kept across a refresh that shows it again: given back and taken
        # again, the viewport would jump by its height each time.
        self._remove_items()
        if not self._draw():
            self.legend.take_away()

    def _draw(self) -> bool:
        """The heat's items and legend for the level shown; False: no legend."""
        panel = self.panel
        scene = panel.scene
        vm = scene.view_model
        if self.profile is None or not self.visible or vm is None or not panel.levels:
            return False
        graph = panel.level.graph
        boxes, groups = box_seconds(self.profile, vm, graph)
        hottest = max(boxes.values(), default=0.0)
        if hottest <= 0:
            if graph is not panel.levels[0].graph:       # a body or function: say why it has no heat
                self.legend.set_scale(0.0, self._no_times_here(graph))
                return True
            return False
        p = self.profile
        whole = p.total + p.unmapped_seconds        # p.share's whole, summed once for every label
        merged_with = {id(n.node): n.merged for n in (*p.nodes, *p.body_nodes) if n.merged}
        room = self._obstacles(scene)
        # The open groups' totals first: a title row has one place, a box many.
        for path, frame in scene.group_frames.items():
            seconds = groups.get(path, 0.0)
            if seconds <= 0:
                continue
            label = f"Σ {time_text(seconds)} · {seconds / whole:.1%}"
            places = title_row_places(frame.scene_rect(), _title_tab(frame), *label_size(label))
            # In the title row even where edges enter the group under it: the row says whose total it is.
            rect = room.find(places, None, edge_cost=0.0) or room.least_covered(places)
            mark = GroupTotal(rect, heat_colour(heat_fraction(seconds, max(hottest, seconds))), label)
            scene.addItem(mark)
            self.items.append(mark)
        for box, seconds in boxes.items():
            item = scene.node_items.get(box)
            if item is None:
                continue
            vnode = vm.nodes.get(box)
            group = vnode is not None and vnode.kind == "group"
            colour = heat_colour(heat_fraction(seconds, hottest))
            label, tag = self._label_place(room, item.scene_rect(), seconds, group, whole)
            mark = HeatMark(item.scene_rect(), colour, label, self._tooltip(vnode, seconds, group, whole, merged_with),
                            group, tag)
            scene.addItem(mark)
            self.items.append(mark)
        who = "onnxruntime" if p.source == "onnxruntime" else QCoreApplication.translate("Heat", "built-in")
        if graph.parent_node is None:
            title = QCoreApplication.translate("Heat", "time per box, {who} ({ms} a run)").format(
                who=who, ms=time_text(p.wall))
        else:
            title = QCoreApplication.translate("Heat", "time per box inside {node}, all its runs in a run").format(
                node=graph.parent_node.display_name)
        if self.stale:
            title = QCoreApplication.translate("Heat", "before your last edit: {title}").format(title=title)
        self.legend.set_scale(hottest, title)
        return True

    def _no_times_here(self, graph) -> str:
        """Why the level showing `graph` (not the main graph) has no times."""
        if graph.parent_node is None:
            return QCoreApplication.translate("Heat", "no times inside a function: its call's node has them")
        if not self.profile.bodies_timed:
            return QCoreApplication.translate("Heat", "times inside bodies are not measured by this profile "
                                                      "(onnxruntime's): {node} has its body's time").format(
                node=graph.parent_node.display_name)
        return QCoreApplication.translate("Heat", "no times: this body did not run in the profiled runs")

    @staticmethod
    def _label_place(room: Obstacles, box: QRectF, seconds: float, group: bool, whole: float) -> tuple:
        """A box's label and where it goes: time and share where there is
        room for both; in a crowd where there is none, the time alone (the
        share is in the tooltip); else where it covers least."""
        short = ("Σ " if group else "") + time_text(seconds)
        label = f"{short} · {seconds / whole:.1%}" if whole > 0 else short
        tag = room.find(box_label_places(box, *label_size(label, group)), box)
        if tag is None and label != short:
            label = short
            tag = room.find(box_label_places(box, *label_size(label, group)), box)
        return label, tag or room.least_covered(box_label_places(box, *label_size(label, group)))

    @staticmethod
    def _obstacles(scene) -> Obstacles:
        """What the labels keep clear of: every box with its heat frame and
        problem badge, the edges' type labels, the groups' title tabs, the
        run's value tags (drawn before the heat on a new layout)."""
        room = Obstacles(scene.sceneRect())
        for item in scene.node_items.values():
            room.add(item.scene_rect().adjusted(-FRAME_REACH, -BADGE_OUT, BADGE_OUT, FRAME_REACH))
        for edge in scene.edge_items.values():
            room.add_edge(edge)
            if edge.label_rect is not None:
                room.add(edge.label_rect)
        for frame in scene.group_frames.values():
            room.add(_title_tab(frame))
        for item in scene.items():
            if isinstance(item, ValueTag) and item.isVisible():
                room.add(item.sceneBoundingRect())
        return room

    def _tooltip(self, vnode, seconds: float, group: bool, whole: float, merged_with: dict) -> str:
        """`whole`: the profile's total (its share's); `merged_with`: id(node) -> what it was measured with."""
        share = f"{seconds / whole if whole > 0 else 0.0:.1%}"
        if group:
            return QCoreApplication.translate("Heat", "group {name}: {time} a run in its nodes ({share})").format(
                name="/".join(vnode.group), time=time_text(seconds), share=share)
        node = getattr(vnode, "node", None)
        text = QCoreApplication.translate("Heat", "{node}: {time} a run ({share})").format(
            node=node.display_name if node is not None else "", time=time_text(seconds), share=share)
        merged = merged_with.get(id(node), ())
        if merged:
            text += "\n" + QCoreApplication.translate("Heat", "measured together with {nodes}").format(
                nodes=", ".join(merged[:4]) + (" …" if len(merged) > 4 else ""))
        return text


def _title_tab(frame) -> QRectF:
    """A group frame's title tab, where it is drawn (its own GroupTitle item
    when the scene gave it one, as wide as its text)."""
    title = getattr(frame, "title_item", None)
    return (title if title is not None else frame).title_rect()


class _ResizeFilter(QObject):
    """Keeps the legend at the right of its strip when the view is resized."""

    def __init__(self, legend: HeatLegend, parent: Optional[QObject] = None):
        super().__init__(parent)
        self.legend = legend

    def eventFilter(self, obj, event) -> bool:
        if event.type() == event.Type.Resize:
            self.legend.place()
        return False
