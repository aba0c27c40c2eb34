"""Scene items: node boxes, edges and group boxes.

Items are deliberately light (custom `paint`, no child text items): a 10k-node
scene must build in well under a second and pan smoothly. Each `paint` picks a
level of detail from the current zoom: below LOD_TEXT only coloured boxes and
straight edge lines are drawn, which keeps a zoomed-out 10k-node frame cheap.
"""
from __future__ import annotations

from typing import Optional, Sequence

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPainterPathStroker, QPen, QPolygonF
from PySide6.QtWidgets import QGraphicsItem, QStyle, QStyleOptionGraphicsItem

from ..theme import LIGHT, Theme
from . import fonts

LOD_TEXT = 0.45        # below this zoom, text is unreadable: skip it
LOD_EDGE_LABEL = 0.5   # edge labels share the body font; same threshold as node text, roughly
LOD_COARSE = 0.18      # below this, edges become straight lines, boxes lose borders

PAD_X = 8.0
PAD_Y = 4.0
HEADER_EXTRA = 4.0
BADGE_OUT = 8.0        # a problem badge sits on the top-right corner, this far outside


def _theme(item: QGraphicsItem) -> Theme:
    scene = item.scene()
    return getattr(scene, "theme", LIGHT) if scene is not None else LIGHT


def _lod(option: QStyleOptionGraphicsItem, painter: QPainter) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


def card_size(title: str, lines: Sequence[str]) -> tuple[float, float]:
    """Width and height a node box needs for its title and body lines."""
    width = fonts.title_width(title)
    for line in lines:
        width = max(width, fonts.text_width(line))
    height = fonts.line_height(True) + HEADER_EXTRA + len(lines) * fonts.line_height()
    return width + 2 * PAD_X, height + 2 * PAD_Y


class NodeItem(QGraphicsItem):
    """A box with a coloured header (op type, bold) and key attributes below.

    `kind` is "op", "input", "output" or "group" (a collapsed group); `ref` is
    whatever the properties panel should show when the item is selected.
    """

    def __init__(self, key: str, rect: QRectF, title: str, lines: Sequence[str] = (),
                 family: str = "other", kind: str = "op", ref=None, tooltip: str = ""):
        super().__init__()
        self.key = key
        self.rect = QRectF(rect)
        self.title = title
        self.lines = list(lines)
        self.family = family
        self.kind = kind
        self.ref = ref
        self.highlighted = False
        self.badge: Optional[int] = None   # worst problem severity (1 warning, 2 error)
        self.setPos(self.rect.topLeft())
        self.rect.moveTo(0, 0)
        # Asked for by the scene's index for every item whenever it is rebuilt
        # (the scene rect changed: after most edits on a big level): kept, not remade.
        self._bounds = self.rect.adjusted(-3, -BADGE_OUT, BADGE_OUT, 3)
        self.setFlag(QGraphicsItem.ItemIsSelectable)
        self.setAcceptHoverEvents(False)
        self.tip = tooltip or ""          # what setToolTip was last given (a Python-side copy)
        if tooltip:
            self.setToolTip(tooltip)
        self.setZValue(2)

    def scene_rect(self) -> QRectF:
        return self.rect.translated(self.pos())

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.rect)
        return path

    def set_badge(self, severity: Optional[int]) -> None:
        if severity != self.badge:
            self.badge = severity
            self.update()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        self._paint_card(painter, option, widget)
        if self.badge:
            from .badges import paint_badge
            paint_badge(painter, self.rect, self.badge, _lod(option, painter))

    def _paint_card(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        theme = _theme(self)
        lod = _lod(option, painter)
        selected = bool(option.state & QStyle.State_Selected)
        rect = self.rect
        if lod < LOD_COARSE and not selected:
            painter.fillRect(rect, self.swatch(theme))
            return
        border = QPen(theme.selection if selected else
                      theme.highlight if self.highlighted else theme.node_border,
                      2.5 if (selected or self.highlighted) else 1.0)
        border.setCosmetic(selected or self.highlighted)
        if self.kind in ("input", "output"):
            self._paint_io(painter, theme, rect, border, lod)
            return
        radius = 4.0
        painter.setPen(border)
        painter.setBrush(theme.group_fill if self.kind == "group" else theme.node_body)
        painter.drawRoundedRect(rect, radius, radius)
        header_h = fonts.line_height(True) + HEADER_EXTRA + PAD_Y
        if not self.lines:
            header_h = rect.height()
        header = QRectF(rect.left(), rect.top(), rect.width(), header_h)
        painter.setPen(Qt.NoPen)
        painter.setBrush(self._header_colour(theme))
        if self.lines:
            # Round only the top corners: rounded rect plus a square strip below.
            painter.drawRoundedRect(header, radius, radius)
            painter.drawRect(QRectF(header.left(), header.bottom() - radius, header.width(), radius))
        else:
            painter.drawRoundedRect(header, radius, radius)
        painter.setPen(border)
        painter.setBrush(Qt.NoBrush)
        painter.drawRoundedRect(rect, radius, radius)
        if lod < LOD_TEXT:
            return
        painter.setPen(theme.text)
        painter.setFont(fonts.title_font())
        painter.drawText(header.adjusted(PAD_X, 0, -PAD_X, 0), Qt.AlignCenter | Qt.TextSingleLine, self.title)
        if self.lines:
            painter.setFont(fonts.body_font())
            painter.setPen(theme.muted_text)
            y = header.bottom() + 2
            lh = fonts.line_height()
            for line in self.lines:
                painter.drawText(QRectF(rect.left() + PAD_X, y, rect.width() - 2 * PAD_X, lh),
                                 Qt.AlignLeft | Qt.AlignVCenter, line)
                y += lh

    def _header_colour(self, theme: Theme):
        if self.kind == "group":
            return theme.group_border
        return theme.header_color(self.family)

    def swatch(self, theme: Theme):
        """The box's colour where it is drawn small (minimap, overview)."""
        if self.kind in ("input", "output"):
            return theme.io_fill.darker(120)
        if self.kind == "group":
            return theme.group_border
        return theme.family_swatch(self.family)

    def _paint_io(self, painter: QPainter, theme: Theme, rect: QRectF, border: QPen, lod: float) -> None:
        painter.setPen(border)
        painter.setBrush(theme.io_fill)
        radius = rect.height() / 2
        painter.drawRoundedRect(rect, radius, radius)
        if lod < LOD_TEXT:
            return
        painter.setPen(theme.text)
        lh_title = fonts.line_height(True)
        painter.setFont(fonts.title_font())
        if self.lines:
            top = QRectF(rect.left(), rect.top() + PAD_Y, rect.width(), lh_title)
            painter.drawText(top, Qt.AlignCenter | Qt.TextSingleLine, self.title)
            painter.setFont(fonts.body_font())
            painter.setPen(theme.muted_text)
            y = top.bottom()
            for line in self.lines:
                painter.drawText(QRectF(rect.left(), y, rect.width(), fonts.line_height()),
                                 Qt.AlignCenter, line)
                y += fonts.line_height()
        else:
            painter.drawText(rect, Qt.AlignCenter | Qt.TextSingleLine, self.title)


def spline_path(points: Sequence[tuple[float, float]]) -> QPainterPath:
    """A path through Graphviz-style B-spline control points.

    Graphviz gives 1 + 3k points: a start point then k cubic Bézier segments.
    Anything else (e.g. a fallback polyline) is drawn as straight segments.
    """
    path = QPainterPath()
    if not points:
        return path
    path.moveTo(*points[0])
    if len(points) >= 4 and (len(points) - 1) % 3 == 0:
        for i in range(1, len(points), 3):
            path.cubicTo(QPointF(*points[i]), QPointF(*points[i + 1]), QPointF(*points[i + 2]))
    else:
        for p in points[1:]:
            path.lineTo(*p)
    return path


class EdgeItem(QGraphicsItem):
    """A spline from a producer box to a consumer box, with an arrowhead and
    the value's type ("float32[1,128]") as a label near its middle."""

    ARROW = 7.0

    LABEL_MAX_WIDTH = 140.0   # long symbolic shapes are elided; the tooltip has them whole

    def __init__(self, key: str, points: Sequence[tuple[float, float]], label: str = "",
                 ref=None, src_key: str = "", dst_key: str = ""):
        super().__init__()
        self.key = key
        self.points = [tuple(p) for p in points]
        self.full_label = label
        self.label = fonts.elide(label, self.LABEL_MAX_WIDTH) if label else ""
        self.ref = ref
        self.shown_type = None      # the type object the label was made from (scene.py relabels when it moves)
        self.src_key = src_key
        self.dst_key = dst_key
        self.highlighted = False
        self.path = spline_path(self.points)
        self._stroke: Optional[QPainterPath] = None
        self._arrow = self._arrow_head()
        self._update_geometry()
        self.setFlag(QGraphicsItem.ItemIsSelectable)
        self.setZValue(1)

    def set_label(self, label: str) -> None:
        """New type text (e.g. after shape inference) without rebuilding the scene."""
        if label == self.full_label:
            return
        self.prepareGeometryChange()
        self.full_label = label
        self.label = fonts.elide(label, self.LABEL_MAX_WIDTH) if label else ""
        self._label_fixed = False
        self._stroke = None
        self._update_geometry()
        self.update()

    def _update_geometry(self) -> None:
        self._label_rect = self._place_label()
        bounds = self.path.boundingRect().united(self._arrow.boundingRect())
        if self._label_rect is not None:
            bounds = bounds.united(self._label_rect)
        self._bounds = bounds.adjusted(-2, -2, 2, 2)
        self.setToolTip(self.tooltip_text())

    def tooltip_text(self) -> str:
        """Value name and its type in full (`label_detail`: the uncompacted
        shape expression when the scene gave one)."""
        name = getattr(getattr(self.ref, "value", None), "name", "")
        detail = getattr(self, "label_detail", "") or self.full_label
        return f"{name}\n{detail}" if name and detail else name or detail

    @property
    def start(self) -> QPointF:
        return QPointF(*self.points[0])

    @property
    def end(self) -> QPointF:
        return QPointF(*self.points[-1])

    def _arrow_head(self) -> QPolygonF:
        if len(self.points) < 2:
            return QPolygonF()
        tip = self.end
        # Direction from the path just before the end; robust for tiny last segments.
        back = self.path.pointAtPercent(max(0.0, 1.0 - min(0.5, 10.0 / max(self.path.length(), 1.0))))
        dx, dy = tip.x() - back.x(), tip.y() - back.y()
        norm = (dx * dx + dy * dy) ** 0.5 or 1.0
        ux, uy = dx / norm, dy / norm
        a = self.ARROW
        base = QPointF(tip.x() - ux * a, tip.y() - uy * a)
        left = QPointF(base.x() - uy * a * 0.45, base.y() + ux * a * 0.45)
        right = QPointF(base.x() + uy * a * 0.45, base.y() - ux * a * 0.45)
        return QPolygonF([tip, left, right])

    LABEL_POSITIONS = (0.5, 0.3, 0.7, 0.2, 0.8, 0.4, 0.6)

    def label_candidates(self) -> list[QRectF]:
        """Where the label may go, best first: beside the curve at a few
        fractions of its length (the scene picks the first free one)."""
        if not self.label or len(self.points) < 2:
            return []
        w = fonts.text_width(self.label) + 4
        h = fonts.line_height()
        points = [self.path.pointAtPercent(t) for t in self.LABEL_POSITIONS]
        right = [QRectF(p.x() + 4, p.y() - h / 2, w, h) for p in points]
        left = [QRectF(p.x() - 4 - w, p.y() - h / 2, w, h) for p in points]
        return right + left

    @property
    def label_rect(self) -> Optional[QRectF]:
        """Where the type label is drawn (None: not drawn), for what must keep clear of it."""
        return None if self._label_rect is None else QRectF(self._label_rect)

    def place_label(self, rect: Optional[QRectF]) -> None:
        """Put the label at `rect`; None hides it (it stays in the tooltip)."""
        self.prepareGeometryChange()
        self._label_rect = rect
        self._label_fixed = True
        self._stroke = None
        self._update_geometry()

    def _place_label(self) -> Optional[QRectF]:
        if not self.label or len(self.points) < 2:
            return None                 # no candidates (label_candidates)
        if getattr(self, "_label_fixed", False):
            return self._label_rect     # placed by the scene: no candidates to work out
        return self.label_candidates()[0]

    def boundingRect(self) -> QRectF:
        return self._bounds

    def shape(self) -> QPainterPath:
        # Hit-testing a thin stroke rather than the bounding box: clicking near
        # a long diagonal edge must not select it.
        if self._stroke is None:
            stroker = QPainterPathStroker()
            stroker.setWidth(8)
            self._stroke = stroker.createStroke(self.path)
            if self._label_rect is not None:
                self._stroke.addRect(self._label_rect)
        return self._stroke

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        if not self.points:
            return
        theme = _theme(self)
        lod = _lod(option, painter)
        selected = bool(option.state & QStyle.State_Selected)
        emphasised = selected or self.highlighted
        colour = theme.selection if selected else theme.highlight if self.highlighted else theme.edge
        pen = QPen(colour, 2.0 if emphasised else 1.0)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(Qt.NoBrush)
        if lod < LOD_COARSE and not emphasised:
            painter.drawLine(self.start, self.end)
            return
        painter.drawPath(self.path)
        painter.setBrush(QBrush(colour))
        painter.drawPolygon(self._arrow)
        if self._label_rect is not None and lod >= LOD_EDGE_LABEL:
            # A backing of canvas colour keeps labels legible where edges cross.
            backing = QColor(theme.background)
            backing.setAlpha(200)
            painter.fillRect(self._label_rect, backing)
            painter.setFont(fonts.body_font())
            painter.setPen(theme.edge_label)
            painter.drawText(self._label_rect, Qt.AlignLeft | Qt.AlignVCenter, self.label)


class GroupFrame(QGraphicsItem):
    """The frame around an expanded group (a name scope): a title tab and a
    translucent fill behind its members. Double-click collapses it."""

    def __init__(self, key: str, rect: QRectF, title: str, depth: int = 0):
        super().__init__()
        self.key = key
        self.rect = QRectF(rect)
        self.title = title
        self.depth = depth
        self.titled_apart = False     # a GroupTitle draws the title above the edges
        self.setZValue(-10 + depth * 0.01)
        self._bounds = self.rect.adjusted(-1, -1, 1, 1)     # kept for the scene's index (NodeItem)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def scene_rect(self) -> QRectF:
        return QRectF(self.rect)

    def title_rect(self) -> QRectF:
        return QRectF(self.rect.left(), self.rect.top(), self.rect.width(), fonts.line_height() + 4)

    def shape(self) -> QPainterPath:
        # Only the title tab is "the group" for clicks; the inside belongs to members.
        path = QPainterPath()
        path.addRect(self.title_rect())
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        theme = _theme(self)
        lod = _lod(option, painter)
        pen = QPen(theme.group_border, 1.0, Qt.DashLine)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(theme.group_fill)
        painter.drawRoundedRect(self.rect, 6, 6)
        if lod >= LOD_TEXT and not self.titled_apart:
            painter.setFont(fonts.body_font())
            painter.setPen(theme.muted_text)
            painter.drawText(self.title_rect().adjusted(8, 0, -8, 0), Qt.AlignLeft | Qt.AlignVCenter,
                             "▾ " + self.title)


class GroupTitle(GroupFrame):
    """A group's title tab, drawn above the edges (an edge entering the group
    passes under it instead of through its text) and as wide as its text even
    when the group is narrower (no clipped titles). It stands for its group:
    clicks on it act on the group, as on the frame's own tab."""

    def __init__(self, frame: GroupFrame):
        super().__init__(frame.key, frame.rect, frame.title, frame.depth)
        self.frame = frame
        self.path = getattr(frame, "path", None)
        frame.titled_apart = True
        self.text = "▾ " + frame.title
        self.setToolTip(frame.toolTip())
        self.setZValue(1.5 + frame.depth * 0.001)     # above edges (1), below boxes (2)
        # The tab measured once (a frame's title and place never change: a
        # new title or box is a new frame); the scene's index asks often.
        self._tab = QRectF(self.rect.left(), self.rect.top(), self.tab_width(frame.title),
                           fonts.line_height() + 4)
        self._bounds = self._tab.adjusted(-1, -1, 1, 1)

    @staticmethod
    def tab_width(title: str) -> float:
        """Width of the tab for a frame titled `title` (the layout keeps the
        frame at least this wide)."""
        return fonts.text_width("▾ " + title) + 16

    def title_rect(self) -> QRectF:
        return QRectF(self._tab)

    def boundingRect(self) -> QRectF:
        return self._bounds

    def scene_rect(self) -> QRectF:
        return self.title_rect()

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget=None) -> None:
        if _lod(option, painter) < LOD_TEXT:
            return
        theme = _theme(self)
        tab = self.title_rect().adjusted(1, 1, 0, 0)
        painter.setPen(Qt.NoPen)
        painter.setBrush(_stacked_fill(theme, self.depth))
        painter.drawRoundedRect(tab, 5, 5)
        painter.setFont(fonts.body_font())
        painter.setPen(theme.muted_text)
        painter.drawText(tab.adjusted(7, 0, -4, 0), Qt.AlignLeft | Qt.AlignVCenter, self.text)


def _stacked_fill(theme: Theme, depth: int) -> QColor:
    """The opaque colour of `depth` translucent group fills over the background."""
    colour = QColor(theme.background)
    fill = theme.group_fill
    a = fill.alphaF()
    for _ in range(max(depth, 1)):
        colour = QColor.fromRgbF(colour.redF() * (1 - a) + fill.redF() * a,
                                 colour.greenF() * (1 - a) + fill.greenF() * a,
                                 colour.blueF() * (1 - a) + fill.blueF() * a)
    return colour
