"""Plain data going into and coming out of the layout engines.

Nothing here knows about ONNX or Qt: a caller describes boxes and arrows,
the engines return where they go.

Coordinate system of every result: points (1/72 inch), origin at the top-left
corner of the whole drawing, x grows to the right, y grows DOWNWARDS (as in
Qt's scene coordinates).  Boxes are given by their top-left corner and size.
"""
from __future__ import annotations

from dataclasses import dataclass, field

Point = tuple[float, float]
GroupPath = tuple[str, ...]


@dataclass(frozen=True)
class LayoutNode:
    """One box to place.  Width/height come from the caller's measured label."""
    id: str
    width: float
    height: float
    # Name-scope path of the innermost expanded group holding this node,
    # e.g. ("encoder", "layer.3", "attention"); () = top level.
    group: GroupPath = ()


@dataclass(frozen=True)
class LayoutEdge:
    """A connection drawn from the source box to the target box.

    Edge labels (shapes, dtypes) are never given to the engine: they make dot
    very slow, so the viewer draws them on the returned curve itself.
    """
    id: str
    source: str
    target: str


@dataclass
class LayoutRequest:
    nodes: list[LayoutNode]
    edges: list[LayoutEdge]
    rankdir: str = "TB"          # "TB" (top to bottom) or "LR" (left to right)
    node_sep: float = 18.0       # points between boxes of one rank
    rank_sep: float = 30.0       # points between ranks
    group_padding: float = 8.0   # space between a group's border and its content
    group_title: float = 16.0    # extra space at the top of a group for its name
    # Narrowest a group's frame may be (its title's width), by group path:
    # a group narrower than its title would clip it.
    group_min_width: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.rankdir not in ("TB", "LR"):
            raise ValueError(f"rankdir must be 'TB' or 'LR', not {self.rankdir!r}")

    def options_key(self) -> tuple:
        """The options that change the result (part of every cache key)."""
        return (self.rankdir, self.node_sep, self.rank_sep, self.group_padding, self.group_title)


class _Rect:
    """Right and bottom edges of a box given by x, y (top-left), width, height."""
    __slots__ = ()

    @property
    def right(self) -> float:
        return self.x + self.width

    @property
    def bottom(self) -> float:
        return self.y + self.height


@dataclass(frozen=True)
class NodeBox(_Rect):
    id: str
    x: float        # left
    y: float        # top
    width: float
    height: float

    @property
    def center(self) -> Point:
        return (self.x + self.width / 2, self.y + self.height / 2)


@dataclass(frozen=True)
class EdgePath:
    """A piecewise cubic Bezier curve.

    `points` holds 3*n + 1 points: start, then (control, control, end) for each
    of the n segments.  The first point lies on the border of the source box,
    the last on the border of the target box; the viewer adds arrow heads.
    """
    id: str
    source: str
    target: str
    points: tuple[Point, ...]


@dataclass(frozen=True)
class GroupBox(_Rect):
    path: GroupPath
    x: float
    y: float
    width: float
    height: float


@dataclass
class Layout:
    nodes: dict[str, NodeBox]
    edges: dict[str, EdgePath]
    groups: dict[GroupPath, GroupBox]
    width: float
    height: float
    engine: str = ""                       # "dot", "pygraphviz", "builtin" or a mix
    warnings: list[str] = field(default_factory=list)   # e.g. "dot not found: ..."
    from_cache: bool = False
    # The pieces (pieces.plan_pieces) it was laid out in, when it was: the
    # caller pinning it after an edit needs them and need not plan again.
    pieces: list | None = field(default=None, repr=False, compare=False)
    # Their canonical forms (pieces.canonical), one per piece: a layout after
    # the next edit takes them for the pieces that edit left equal.
    canons: list | None = field(default=None, repr=False, compare=False)
    # Pieces whose inner edges were not drawn (layout(previous=...) after an
    # edit: the caller pins them back where they were and keeps the edges
    # shown), by piece index -> stacking.DeferredPiece, to draw them after all.
    deferred: dict | None = field(default=None, repr=False, compare=False)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, width, height) of everything; left and top are 0."""
        return (0.0, 0.0, self.width, self.height)

    def translated(self, dx: float, dy: float) -> "Layout":
        """A copy moved by (dx, dy); size fields are unchanged."""
        # Direct construction: dataclasses.replace is slow on 10k boxes.
        return Layout(
            nodes={k: NodeBox(b.id, b.x + dx, b.y + dy, b.width, b.height) for k, b in self.nodes.items()},
            edges={k: EdgePath(e.id, e.source, e.target, tuple([(x + dx, y + dy) for x, y in e.points]))
                   for k, e in self.edges.items()},
            groups={k: GroupBox(g.path, g.x + dx, g.y + dy, g.width, g.height)
                    for k, g in self.groups.items()},
            width=self.width, height=self.height, engine=self.engine,
            warnings=list(self.warnings), from_cache=self.from_cache)

    def normalised(self) -> "Layout":
        """A copy with nothing left of x=0 or above y=0, and width/height
        reaching the right/bottom-most box or curve point."""
        xs: list[float] = []
        ys: list[float] = []
        for b in list(self.nodes.values()) + list(self.groups.values()):
            xs += [b.x, b.x + b.width]
            ys += [b.y, b.y + b.height]
        for p in self.edges.values():
            xs += [q[0] for q in p.points]
            ys += [q[1] for q in p.points]
        if not xs:
            return self.copy()
        # Only shift when something pokes out above or left of the origin;
        # a small margin is harmless and moving 10k boxes is not free.
        left, top = min(0.0, min(xs)), min(0.0, min(ys))
        moved = self.translated(-left, -top) if (left, top) != (0.0, 0.0) else self.copy()
        moved.width, moved.height = max(xs) - left, max(ys) - top
        return moved

    def copy(self) -> "Layout":
        """A shallow copy (boxes and curves are immutable, so they are shared)."""
        return Layout(dict(self.nodes), dict(self.edges), dict(self.groups), self.width, self.height,
                      self.engine, list(self.warnings), self.from_cache)


class LayoutCancelled(Exception):
    """Raised by layout() when its CancelToken was set; any dot process is killed."""


class CancelToken:
    """Shared flag a UI thread sets to stop a layout running in a worker thread."""

    def __init__(self) -> None:
        import threading
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise LayoutCancelled("layout cancelled")


# Cutting EdgePath curves (chained cubics, see EdgePath.points). Shared by
# stacking (cutting curves at a piece's edge) and bundling (cutting them at a
# free band), so neither has to import the other.

def split_cubic(seg: list[Point], t: float) -> tuple[list[Point], list[Point]]:
    """de Casteljau: a cubic [p0, p1, p2, p3] cut at t into two cubics."""
    def lerp(p, q):
        return (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)
    p0, p1, p2, p3 = seg
    a, b, c = lerp(p0, p1), lerp(p1, p2), lerp(p2, p3)
    d, e = lerp(a, b), lerp(b, c)
    f = lerp(d, e)
    return [p0, a, d, f], [f, e, c, p3]


def _crossing(points: list[Point], y: float):
    """(segment index, t) where the curve first gets down to height y."""
    for s in range(0, len(points) - 3, 3):
        seg = points[s:s + 4]
        if max(q[1] for q in seg) < y:
            continue
        # The segment's hull reaches y: find the first sample at or below it.
        steps = 16
        prev = 0.0
        for j in range(1, steps + 1):
            t = j / steps
            if split_cubic(seg, t)[0][-1][1] >= y:
                lo, hi = prev, t
                for _ in range(20):
                    m = (lo + hi) / 2
                    if split_cubic(seg, m)[0][-1][1] >= y:
                        hi = m
                    else:
                        lo = m
                return s, hi
            prev = t
    return None


def cut_after(points: list[Point], y: float) -> list[Point]:
    """The part of a curve after it first gets down to height y (whole if
    it starts there already, its end point if it never does)."""
    points = list(points)
    if not points or points[0][1] >= y:
        return points
    hit = _crossing(points, y)
    if hit is None:
        return points[-1:]
    s, t = hit
    _, rest = split_cubic(points[s:s + 4], t)
    return rest + points[s + 4:]


def cut_before(points: list[Point], y: float) -> list[Point]:
    """The part of a curve before it first gets down to height y."""
    points = list(points)
    if not points or points[0][1] >= y:
        return points[:1]
    hit = _crossing(points, y)
    if hit is None:
        return points
    s, t = hit
    first, _ = split_cubic(points[s:s + 4], t)
    return points[:s] + first
