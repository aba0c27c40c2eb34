"""Putting laid-out pieces one below the other and drawing the edges between them.

Everything is done top-to-bottom; a left-to-right request is transposed
before and after.  An edge between consecutive pieces follows dot's curve
out of its source piece until it passes below the piece's boxes, then one
smooth S-curve takes it to where dot's curve into the next piece passes
above that piece's boxes (the stubs' own ranks, where dot runs edges along
frame borders, are cut away).  Any other inter-piece edge runs down (or up)
a lane to the right of all pieces, never crossing a box; all long edges of
one source share one lane (a trunk with a short branch into each piece),
and sources whose runs do not overlap share lanes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .bundling import bundle_fan_outs
from .geometry import EdgePath, GroupBox, Layout, LayoutRequest, NodeBox, Point, cut_after, cut_before
from .pieces import CanonicalPiece, Piece

LANE_SEP = 8.0
CORNER = 10.0
CUT_MARGIN = 6.0     # how far above (below) a piece's boxes its entry (exit) curves are cut
STACK_VERSION = "stack-5"   # bump when stacking or routing gives other results


@dataclass
class PlacedPiece:
    """One piece's layout under real names, in its own coordinates."""
    layout: Layout                                      # real nodes, inner edges, groups
    exit_paths: dict[str, list[Point]] = field(default_factory=dict)    # source id -> curve to stub
    entry_paths: dict[str, list[Point]] = field(default_factory=dict)   # edge id -> curve from stub


@dataclass
class DeferredPiece:
    """A piece stacked without its inner edges: what draws them when wanted."""
    canon: CanonicalPiece
    result: Layout
    dx: float
    dy: float
    rank_sep: float

    def edges(self) -> dict[str, EdgePath]:
        """The piece's inner edges where stack() would have put them."""
        placed = realise(self.canon, self.result, False, self.dx, self.dy)
        bundle_fan_outs(placed.layout, self.rank_sep)
        return placed.layout.edges


def realise(canon: CanonicalPiece, result: Layout, lr: bool, dx: float = 0.0,
            dy: float = 0.0, with_edges: bool = True) -> PlacedPiece:
    """Rename a canonical result back to the piece's real ids (TB space),
    moved by (dx, dy): renaming and moving in one pass keeps 10k boxes fast.
    with_edges=False: boxes and group frames only (moving every curve point
    is most of the cost)."""
    if lr:
        result = transpose(result)
    ids = canon.node_ids
    nodes = {ids[k]: NodeBox(ids[k], b.x + dx, b.y + dy, b.width, b.height)
             for k, b in result.nodes.items() if k in ids}
    placed = PlacedPiece(Layout(nodes, {}, {}, result.width, result.height, result.engine,
                                list(result.warnings)))
    edges = placed.layout.edges
    for k, p in (result.edges.items() if with_edges else ()):
        real = canon.edge_ids[k]
        points = [(x + dx, y + dy) for x, y in p.points]
        if k.startswith("x"):
            placed.exit_paths[real.split(":", 1)[1]] = points
        elif k.startswith("i"):
            placed.entry_paths[real] = points
        else:
            edges[real] = EdgePath(real, ids[p.source], ids[p.target], tuple(points))
    for path, g in result.groups.items():
        real = canon.group_paths.get(path, path)
        placed.layout.groups[real] = GroupBox(real, g.x + dx, g.y + dy, g.width, g.height)
    return placed


def transpose(layout: Layout) -> Layout:
    return Layout(
        {k: NodeBox(k, b.y, b.x, b.height, b.width) for k, b in layout.nodes.items()},
        {k: EdgePath(k, e.source, e.target, tuple((y, x) for x, y in e.points))
         for k, e in layout.edges.items()},
        {k: GroupBox(k, g.y, g.x, g.height, g.width) for k, g in layout.groups.items()},
        layout.height, layout.width, layout.engine, list(layout.warnings), layout.from_cache)


def stack(pieces: list[Piece], canons: list[CanonicalPiece], results: list[Layout],
          request: LayoutRequest, between: bool = True, defer=frozenset()) -> Layout:
    """between=False: edges between pieces are left out (a caller that pins
    the pieces back after an edit draws those itself); so are the inner
    edges of the pieces numbered in `defer` (Layout.deferred: pieces the
    caller keeps as they were shown, drawn only when it cannot)."""
    assert not (between and defer), "edges between pieces need every piece's curves"
    lr = request.rankdir == "LR"
    gap = 2 * request.rank_sep
    sizes = [(r.height, r.width) if lr else (r.width, r.height) for r in results]
    width = max((w for w, _ in sizes), default=0.0)
    offsets: list[tuple[float, float]] = []
    top = 0.0
    for w, h in sizes:
        offsets.append(((width - w) / 2, top))
        top += h + gap
    height = max(top - gap, 0.0)

    placed = [realise(c, r, lr, dx, dy, k not in defer)
              for k, (c, r, (dx, dy)) in enumerate(zip(canons, results, offsets))]
    for k, p in enumerate(placed):
        if k not in defer:
            bundle_fan_outs(p.layout, request.rank_sep)
    nodes, edges, groups = {}, {}, {}
    for k, p in enumerate(placed):
        nodes.update(p.layout.nodes)
        edges.update(p.layout.edges)
        for path, g in p.layout.groups.items():
            groups[path] = _union(groups.get(path), g)
    if not between:
        engines = sorted({p.layout.engine for p in placed if p.layout.engine})
        warnings = [w for p in placed for w in p.layout.warnings]
        out = Layout(nodes, edges, groups, width, height, "+".join(engines), list(dict.fromkeys(warnings)))
        if defer:
            out.deferred = {k: DeferredPiece(canons[k], results[k], *offsets[k], request.rank_sep) for k in defer}
        return transpose(out) if lr else out
    piece_of = {n: k for k, p in enumerate(placed) for n in p.layout.nodes}

    # Inside a piece, dot routes an edge from its stub along the stub's
    # rank (right-angled runs along frame borders) before it turns towards
    # its box.  That part is dropped: the edge leaves its own piece where it
    # passes below the piece's lowest box, enters the next where it passes
    # above the topmost box, and we join the two with one smooth curve.
    first_top = [min((b.y for b in p.layout.nodes.values()), default=offsets[k][1])
                 for k, p in enumerate(placed)]
    last_bottom = [max((b.bottom for b in p.layout.nodes.values()), default=offsets[k][1])
                   for k, p in enumerate(placed)]
    far = [(k, e) for k, piece in enumerate(pieces) for e in piece.entry_edges
           if k != piece_of[e.source] + 1]
    lane_of = _assign_lanes(far, piece_of, offsets, placed, gap)
    for k, piece in enumerate(pieces):
        for e in piece.entry_edges:
            i = piece_of[e.source]
            head = cut_before(placed[i].exit_paths[e.source], last_bottom[i] + CUT_MARGIN)
            tail = cut_after(placed[k].entry_paths[e.id], first_top[k] - CUT_MARGIN)
            a, c = head[-1], tail[0]
            if k == i + 1:
                middle = _s_curve(a, c)
            else:
                lane, number = lane_of[e.source]
                lane_x = width + request.node_sep + LANE_SEP * lane
                # Different lanes cross the gaps at slightly different heights
                # so their horizontal runs do not lie on top of each other.
                shift = (number % 5 - 2) * gap / 12
                below_i = offsets[i][1] + placed[i].layout.height
                above_k = offsets[k][1]
                y_out = max(below_i + gap / 2 + shift, a[1] + CORNER)
                y_in = min(above_k - gap / 2 + shift, c[1] - CORNER)
                # Out along the trunk, then one sweep from the lane into the
                # piece (no run along the piece's top frame border).
                middle = _rounded([a, (a[0], y_out), (lane_x, y_out), (lane_x, y_in)])
                middle += _s_curve((lane_x, y_in), c)[1:]
            points = head + middle[1:] + tail[1:]
            edges[e.id] = EdgePath(e.id, e.source, e.target, tuple(points))
    lanes = {lane for lane, _ in lane_of.values()}
    total_w = width + (request.node_sep + LANE_SEP * (max(lanes) + 1) if lanes else 0.0)
    engines = sorted({p.layout.engine for p in placed if p.layout.engine})
    warnings = [w for p in placed for w in p.layout.warnings]
    out = Layout(nodes, edges, groups, total_w, height, "+".join(engines), list(dict.fromkeys(warnings)))
    # Lanes of upward edges may run above the first piece: shift into view.
    out = out.normalised()
    return transpose(out) if lr else out


def _union(a: GroupBox | None, b: GroupBox) -> GroupBox:
    if a is None:
        return b
    x0, y0 = min(a.x, b.x), min(a.y, b.y)
    x1, y1 = max(a.right, b.right), max(a.bottom, b.bottom)
    return GroupBox(a.path, x0, y0, x1 - x0, y1 - y0)


def _line(p: Point, q: Point) -> list[Point]:
    """A straight segment written as a cubic (controls at thirds)."""
    return [((2 * p[0] + q[0]) / 3, (2 * p[1] + q[1]) / 3),
            ((p[0] + 2 * q[0]) / 3, (p[1] + 2 * q[1]) / 3), q]


def _rounded(poly: list[Point]) -> list[Point]:
    """Cubic segments along an axis-parallel polyline with rounded corners."""
    out = [poly[0]]
    cur = poly[0]
    for i in range(1, len(poly) - 1):
        corner, nxt = poly[i], poly[i + 1]
        r_in = min(CORNER, _dist(cur, corner) / 2)
        r_out = min(CORNER, _dist(corner, nxt) / 2)
        enter = _towards(corner, cur, r_in)
        leave = _towards(corner, nxt, r_out)
        out += _line(cur, enter)
        out += [corner, corner, leave]
        cur = leave
    out += _line(cur, poly[-1])
    return out


def _dist(p: Point, q: Point) -> float:
    return abs(p[0] - q[0]) + abs(p[1] - q[1])


def _towards(p: Point, q: Point, r: float) -> Point:
    d = _dist(p, q)
    if d == 0:
        return p
    return (p[0] + (q[0] - p[0]) * r / d, p[1] + (q[1] - p[1]) * r / d)


def _assign_lanes(far, piece_of, offsets, placed, gap) -> dict:
    """source id -> (lane, order): one lane (a trunk its branches leave) per
    source of a long edge, and lanes reused by sources whose vertical runs
    do not overlap, so a few long edges do not become a wall of lines."""
    span: dict[str, list[float]] = {}
    for k, e in far:
        i = piece_of[e.source]
        top = offsets[i][1] + placed[i].layout.height
        bottom = offsets[k][1]
        lo, hi = min(top, bottom), max(top, bottom)
        if e.source in span:
            span[e.source][0] = min(span[e.source][0], lo)
            span[e.source][1] = max(span[e.source][1], hi)
        else:
            span[e.source] = [lo, hi]
    lane_end: list[float] = []
    out = {}
    for number, (source, (lo, hi)) in enumerate(sorted(span.items(), key=lambda kv: kv[1][0])):
        free = next((j for j, end in enumerate(lane_end) if end + gap < lo), None)
        if free is None:
            free = len(lane_end)
            lane_end.append(hi)
        else:
            lane_end[free] = hi
        out[source] = (free, number)
    return out


def _s_curve(a: Point, c: Point) -> list[Point]:
    """One cubic from a down to c, leaving and arriving vertically."""
    mid = max((c[1] - a[1]) / 2, CORNER)
    return [a, (a[0], a[1] + mid), (c[0], c[1] - mid), c]
