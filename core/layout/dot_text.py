"""Turning a request into DOT text, and Graphviz's json0 answer into a Layout.

Shared by the `dot` executable engine and the pygraphviz engine.
"""
from __future__ import annotations

import math

from .geometry import EdgePath, GroupBox, Layout, LayoutRequest, NodeBox, Point

# Measured on Graphviz 2.43 (see issue 6): these cut network-simplex and
# crossing-minimisation work ~2x on 3,000-node graphs and keep layouts
# narrower, with no visible loss of quality.
SPEED_OPTIONS = {"nslimit": "0.2", "nslimit1": "0.2", "mclimit": "0.1"}

POINTS_PER_INCH = 72.0


def _inches(points: float) -> str:
    # dot rejects zero-sized fixed boxes; keep stubs tiny but positive.
    return f"{max(points, 0.5) / POINTS_PER_INCH:.4f}"


def to_dot(request: LayoutRequest, first_rank=(), last_rank=()) -> str:
    """DOT text for `request`; node i is called n<i>, edge j carries id=e<j>.

    `first_rank` / `last_rank` are node ids forced onto the top / bottom rank
    (the pieces machinery uses them for the ends of edges leaving a piece).
    """
    index = {n.id: i for i, n in enumerate(request.nodes)}
    lines = [
        "digraph G {",
        "graph [" + " ".join(
            [f"rankdir={request.rankdir}",
             f"nodesep={request.node_sep / POINTS_PER_INCH:.4f}",
             f"ranksep={request.rank_sep / POINTS_PER_INCH:.4f}"]
            # Global ranking: without it a cluster is ranked as a unit and
            # a stub forced to rank=min pushes whole clusters far down.
            + ["newrank=true"]
            + [f"{k}={v}" for k, v in SPEED_OPTIONS.items()]) + "];",
        'node [shape=box fixedsize=true label="" margin=0];',
        # Undirected drawing clips the curve at both box borders without
        # arrow heads; the viewer draws its own.
        "edge [dir=none];",
    ]
    tree = _group_tree(request)
    _emit_cluster(lines, tree, (), request, index, counter=[0])
    for name, ids in (("min", first_rank), ("max", last_rank)):
        if ids:
            lines.append("{rank=%s; %s}" % (name, " ".join(f"n{index[i]}" for i in ids)))
    for j, e in enumerate(request.edges):
        lines.append(f"n{index[e.source]} -> n{index[e.target]} [id=e{j}];")
    lines.append("}")
    return "\n".join(lines)


def _group_tree(request: LayoutRequest) -> dict:
    """{path: (child group paths in first-seen order, node indices directly inside)}."""
    tree: dict = {(): ([], [])}
    for i, n in enumerate(request.nodes):
        path = tuple(n.group)
        for depth in range(1, len(path) + 1):
            sub = path[:depth]
            if sub not in tree:
                tree[sub] = ([], [])
                tree[path[:depth - 1]][0].append(sub)
        tree[path][1].append(i)
    return tree


def _emit_cluster(lines, tree, path, request, index, counter) -> None:
    children, members = tree[path]
    for i in members:
        n = request.nodes[i]
        lines.append(f"n{i} [width={_inches(n.width)} height={_inches(n.height)}];")
    for child in children:
        counter[0] += 1
        # The group's title strip is reserved with a fixed-size, empty HTML
        # table: dot's own font metrics never decide our sizes.
        title = (f'<<table border="0" cellpadding="0" cellspacing="0" fixedsize="true" '
                 f'width="{_title_width(request, child)}" height="{max(1, round(request.group_title))}">'
                 f'<tr><td></td></tr></table>>')
        lines.append(f"subgraph cluster_{counter[0]} {{")
        lines.append(f'id="g{_encode_path(child)}"; margin={request.group_padding:g}; label={title};')
        _emit_cluster(lines, tree, child, request, index, counter)
        lines.append("}")


def _title_width(request: LayoutRequest, path) -> int:
    """Width of the title strip: dot makes a cluster at least as wide as its
    label, so a group is never narrower than its title."""
    return max(1, math.ceil(request.group_min_width.get(path, 0.0)))


def _encode_path(path) -> str:
    # Group names are arbitrary text; hex keeps the id DOT-safe and reversible.
    return ".".join(part.encode("utf-8").hex() for part in path)


def _decode_path(text: str) -> tuple[str, ...]:
    return tuple(bytes.fromhex(p).decode("utf-8") for p in text.split(".")) if text else ()


def _floats(text: str) -> list[float]:
    return [float(v) for v in text.split(",")]


def parse_json0(data: dict, request: LayoutRequest, engine: str) -> Layout:
    """Convert dot's json0 (y up, node centres) into a Layout (y down, top-left)."""
    llx, lly, urx, ury = _floats(data["bb"])
    top = ury

    def flip(x: float, y: float) -> Point:
        return (x - llx, top - y)

    nodes: dict[str, NodeBox] = {}
    groups: dict = {}
    gvid_to_id: dict[int, str] = {}
    for obj in data.get("objects", []):
        name = obj.get("name", "")
        if name.startswith("cluster_") and "bb" in obj:
            x0, y0, x1, y1 = _floats(obj["bb"])
            path = _decode_path(obj.get("id", "g")[1:])
            groups[path] = GroupBox(path, x0 - llx, top - y1, x1 - x0, y1 - y0)
        elif "pos" in obj and name.startswith("n"):
            req = request.nodes[int(name[1:])]
            cx, cy = flip(*_floats(obj["pos"]))
            nodes[req.id] = NodeBox(req.id, cx - req.width / 2, cy - req.height / 2,
                                    req.width, req.height)
            gvid_to_id[obj["_gvid"]] = req.id
    if len(nodes) != len(request.nodes):
        raise ValueError(f"Graphviz placed {len(nodes)} of {len(request.nodes)} boxes")
    edges: dict[str, EdgePath] = {}
    for e in data.get("edges", []):
        req = request.edges[int(e["id"][1:])]
        points = [flip(*_floats(p)) for p in e["pos"].split() if not p.startswith(("s,", "e,"))]
        points = snap_ends(points, nodes[req.source], nodes[req.target])
        edges[req.id] = EdgePath(req.id, req.source, req.target, tuple(points))
    if len(edges) != sum(1 for e in request.edges if e.source != e.target):
        raise ValueError(f"Graphviz routed {len(edges)} of {len(request.edges)} edges")
    return Layout(nodes, edges, groups, urx - llx, ury - lly, engine=engine)


def snap_ends(points: list[Point], source: NodeBox, target: NodeBox) -> list[Point]:
    """Move the first/last point exactly onto the box borders.

    dot rounds to 1/100 pt and clips a little inside or outside the box;
    the viewer (and its tests) want the ends exactly on the border.
    """
    if len(points) < 2:
        return points
    points = list(points)
    points[0] = nearest_on_border(points[0], source)
    points[-1] = nearest_on_border(points[-1], target)
    return points


def nearest_on_border(p: Point, box: NodeBox) -> Point:
    x = min(max(p[0], box.x), box.right)
    y = min(max(p[1], box.y), box.bottom)
    inside = box.x < p[0] < box.right and box.y < p[1] < box.bottom
    if not inside:
        return (x, y)
    # Inside: push out through the nearest side.
    d = {"l": p[0] - box.x, "r": box.right - p[0], "t": p[1] - box.y, "b": box.bottom - p[1]}
    side = min(d, key=d.get)
    if side == "l":
        return (box.x, p[1])
    if side == "r":
        return (box.right, p[1])
    if side == "t":
        return (p[0], box.y)
    return (p[0], box.bottom)


def distance_to_border(p: Point, box: NodeBox) -> float:
    q = nearest_on_border(p, box)
    return math.hypot(p[0] - q[0], p[1] - q[1])
