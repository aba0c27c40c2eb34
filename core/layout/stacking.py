"""Putting laid-out pieces one below the other and drawing the edges between them.

Everything is done top-to-bottom; a left-to-right request is transposed
before and after.  An edge between consecutive pieces leaves its source
piece through its exit stub (bottom rank) and drops straight into the entry
stub (top rank) of the next piece.  Any other inter-piece edge runs down (or
up) a lane to the right of all pieces: it never crosses a box.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .geometry import EdgePath, GroupBox, Layout, LayoutRequest, NodeBox, Point
from .pieces import CanonicalPiece, Piece

LANE_SEP = 8.0
CORNER = 10.0
STACK_VERSION = "stack-2"   # bump when stacking or routing gives other results


@dataclass
class PlacedPiece:
    """One piece's layout under real names, in its own coordinates."""
    layout: Layout                                      # real nodes, inner edges, groups
    exit_paths: dict[str, list[Point]] = field(default_factory=dict)    # source id -> curve to stub
    entry_paths: dict[str, list[Point]] = field(default_factory=dict)   # edge id -> curve from stub


def realise(canon: CanonicalPiece, result: Layout, lr: bool, dx: float = 0.0,
            dy: float = 0.0) -> PlacedPiece:
    """Rename a canonical result back to the piece's real ids (TB space),
    moved by (dx, dy): renaming and moving in one pass keeps 10k boxes fast."""
    if lr:
        result = transpose(result)
    ids = canon.node_ids
    nodes = {ids[k]: NodeBox(ids[k], b.x + dx, b.y + dy, b.width, b.height)
             for k, b in result.nodes.items() if k in ids}
    placed = PlacedPiece(Layout(nodes, {}, {}, result.width, result.height, result.engine,
                                list(result.warnings)))
    edges = placed.layout.edges
    for k, p in result.edges.items():
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
          request: LayoutRequest) -> Layout:
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

    placed = [realise(c, r, lr, dx, dy) for c, r, (dx, dy) in zip(canons, results, offsets)]
    nodes, edges, groups = {}, {}, {}
    piece_of = {}
    for k, p in enumerate(placed):
        nodes.update(p.layout.nodes)
        edges.update(p.layout.edges)
        for path, g in p.layout.groups.items():
            groups[path] = _union(groups.get(path), g)
        for n in p.layout.nodes:
            piece_of[n] = k

    lanes: dict[str, float] = {}          # source id -> x of its lane
    lane_number: dict[str, int] = {}
    for k, piece in enumerate(pieces):
        for e in piece.entry_edges:
            i = piece_of[e.source]
            a = placed[i].exit_paths[e.source]
            c = placed[k].entry_paths[e.id]
            below_i = offsets[i][1] + placed[i].layout.height
            above_k = offsets[k][1]
            if k == i + 1:
                route = [a[-1], (a[-1][0], below_i), (c[0][0], above_k), c[0]]
                middle = _vertical_s(route)
            else:
                if e.source not in lanes:
                    lane_number[e.source] = len(lanes)
                    lanes[e.source] = width + request.node_sep + LANE_SEP * len(lanes)
                lane_x = lanes[e.source]
                # Different lanes cross the gaps at slightly different heights
                # so their horizontal runs do not lie on top of each other.
                shift = (lane_number[e.source] % 5 - 2) * gap / 12
                y_out = below_i + gap / 2 + shift
                y_in = above_k - gap / 2 + shift
                middle = _rounded([a[-1], (a[-1][0], y_out), (lane_x, y_out),
                                   (lane_x, y_in), (c[0][0], y_in), c[0]])
            points = a + middle[1:] + c[1:]
            edges[e.id] = EdgePath(e.id, e.source, e.target, tuple(points))
    total_w = width + (request.node_sep + LANE_SEP * len(lanes) if lanes else 0.0)
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


def _vertical_s(route: list[Point]) -> list[Point]:
    """stub -> straight down out of the piece -> S-curve across the gap -> straight into the stub."""
    a, b, c, d = route
    mid = (c[1] - b[1]) / 2
    return [a] + _line(a, b) + [(b[0], b[1] + mid), (c[0], c[1] - mid), c] + _line(c, d)


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
