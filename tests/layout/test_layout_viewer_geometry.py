"""Geometry the viewer relies on (issue 14): frames as wide as their titles,
edges between pieces short and smooth, long skip edges bundled."""
from __future__ import annotations

import pytest
from layout_checks import check_layout

from onnxstudio.core import layout as lay
from onnxstudio.core.layout import LayoutEdge, LayoutNode, LayoutRequest

GRAPHVIZ = [e for e in ("dot", "pygraphviz") if e in lay.available_engines()]
ENGINES = GRAPHVIZ + ["builtin"]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rankdir", ["TB", "LR"])
def test_a_group_is_at_least_as_wide_as_its_title(engine, rankdir):
    nodes = [LayoutNode("in", 60, 20), LayoutNode("a", 40, 20, ("intermediate",)),
             LayoutNode("b", 40, 20, ("intermediate", "act")), LayoutNode("out", 60, 20)]
    edges = [LayoutEdge("1", "in", "a"), LayoutEdge("2", "a", "b"), LayoutEdge("3", "b", "out")]
    titles = {("intermediate",): 260.0, ("intermediate", "act"): 180.0}
    req = LayoutRequest(nodes, edges, rankdir=rankdir, group_min_width=titles)
    out = lay.layout(req, engine=engine, cache=False)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []
    for path, width in titles.items():
        g = out.groups[path]
        # "Width" is across the page: x in TB, the frame's title runs along x in LR too.
        assert g.width >= width - 0.5, (path, g)


def test_title_widths_are_part_of_the_cache_key():
    from onnxstudio.core.layout.pieces import request_key
    nodes = [LayoutNode("a", 40, 20, ("g",))]
    narrow = LayoutRequest(nodes, [], group_min_width={("g",): 50.0})
    wide = LayoutRequest(nodes, [], group_min_width={("g",): 300.0})
    assert request_key(narrow, "t", 400) != request_key(wide, "t", 400)


def _sample(points, steps=12):
    """The curve (start + cubic triples) as a dense polyline."""
    out = [points[0]]
    for s in range(0, len(points) - 3, 3):
        p0, p1, p2, p3 = points[s:s + 4]
        for j in range(1, steps + 1):
            t = j / steps
            u = 1 - t
            out.append(tuple(u ** 3 * a + 3 * u * u * t * b + 3 * u * t * t * c + t ** 3 * d
                             for a, b, c, d in zip(p0, p1, p2, p3)))
    return out


def _length(poly):
    return sum(((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) ** 0.5 for a, b in zip(poly, poly[1:]))


def _pieced(engine, layers=4):
    from onnxstudio.core.layout.pieces import plan_pieces
    from onnxstudio.core.layout.synthetic import BLOCK_SIZE, transformer_request
    req = transformer_request(layers)
    max_piece = BLOCK_SIZE + 5
    out = lay.layout(req, engine=engine, cache=False, max_piece=max_piece)
    pieces = plan_pieces(req, max_piece)
    piece_of = {n.id: k for k, p in enumerate(pieces) for n in p.nodes}
    return req, out, pieces, piece_of


@pytest.mark.parametrize("engine", ENGINES)
def test_edges_between_consecutive_pieces_are_short_and_smooth(engine):
    """Between the last box of one piece and the first box of the next an
    edge is one sweep down: no run along a frame border or the stub rank."""
    req, out, pieces, piece_of = _pieced(engine)
    assert len(pieces) >= 4
    bottom = {k: max(out.nodes[n.id].bottom for n in p.nodes) for k, p in enumerate(pieces)}
    top = {k: min(out.nodes[n.id].y for n in p.nodes) for k, p in enumerate(pieces)}
    checked = 0
    for k, piece in enumerate(pieces):
        for e in piece.entry_edges:
            i = piece_of[e.source]
            if k != i + 1:
                continue
            poly = _sample(out.edges[e.id].points)
            band = [p for p in poly if bottom[i] + 1 < p[1] < top[k] - 1]
            assert band, e.id
            ys = [p[1] for p in band]
            assert all(b >= a - 0.5 for a, b in zip(ys, ys[1:])), f"{e.id} turns back up between pieces"
            straight = ((band[-1][0] - band[0][0]) ** 2 + (band[-1][1] - band[0][1]) ** 2) ** 0.5
            assert _length(band) <= 1.15 * straight + 12, (e.id, _length(band), straight)
            checked += 1
    assert checked >= 3


@pytest.mark.parametrize("engine", ENGINES)
def test_long_skip_edges_of_one_source_share_one_trunk(engine):
    """The attention mask feeds every layer: its long edges run down one
    lane, each leaving it with a short branch, not one line per layer."""
    req, out, pieces, piece_of = _pieced(engine, layers=5)
    far = [e for k, p in enumerate(pieces) for e in p.entry_edges if k > piece_of[e.source] + 1]
    assert len(far) >= 3 and {e.source for e in far} == {"/mask/sub"}
    lanes = set()
    for e in far:
        poly = _sample(out.edges[e.id].points)
        # The lane: the longest vertical run of the curve.
        best, run_x, run = 0.0, None, 0.0
        for a, b in zip(poly, poly[1:]):
            if abs(b[0] - a[0]) < 0.01:
                run += abs(b[1] - a[1])
                if run > best:
                    best, run_x = run, round(a[0], 1)
            else:
                run = 0.0
        lanes.add(run_x)
    assert len(lanes) == 1, lanes


def test_lanes_are_reused_by_long_edges_that_do_not_overlap():
    """a0 skips piece B, c0 skips piece D: their runs do not overlap, so
    they share one lane instead of standing side by side."""
    nodes, edges = [], []
    for g in "ABCDE":
        for j in range(22):
            nodes.append(LayoutNode(f"{g.lower()}{j}", 50, 20, (g,)))
            if j:
                edges.append(LayoutEdge(f"{g}{j}", f"{g.lower()}{j - 1}", f"{g.lower()}{j}"))
    for g, h in zip("ABCD", "BCDE"):
        edges.append(LayoutEdge(f"{g}>{h}", f"{g.lower()}21", f"{h.lower()}0"))
    edges += [LayoutEdge("skip1", "a0", "c5"), LayoutEdge("skip2", "c0", "e5")]
    req = LayoutRequest(nodes, edges)
    out = lay.layout(req, engine="builtin", cache=False, max_piece=30)
    right = max(b.right for b in out.nodes.values())
    xs = {round(max(x for x, _ in out.edges[k].points), 1) for k in ("skip1", "skip2")}
    assert len(xs) == 1 and min(xs) > right, (xs, right)


def _x_at(points, y):
    poly = _sample(points, 24)
    for a, b in zip(poly, poly[1:]):
        if (a[1] - y) * (b[1] - y) <= 0 and a[1] != b[1]:
            return a[0] + (b[0] - a[0]) * (y - a[1]) / (b[1] - a[1])
    return None


@pytest.mark.parametrize("engine", ENGINES)
def test_a_value_read_far_down_by_many_boxes_is_one_trunk_not_a_wall(engine):
    """A mask read by every collapsed layer: dot drew one line per reader,
    side by side down the whole graph. They now share one trunk."""
    nodes = [LayoutNode("mask", 60, 20)] + [LayoutNode(f"c{j}", 80, 24) for j in range(30)]
    edges = [LayoutEdge(f"c{j}", f"c{j - 1}", f"c{j}") for j in range(1, 30)]
    readers = [f"c{j}" for j in range(6, 30, 4)]
    # Read near the top too, so the mask sits at the top as a graph input does.
    edges += [LayoutEdge(f"m{t}", "mask", t) for t in ["c1"] + readers]
    req = LayoutRequest(nodes, edges)
    out = lay.layout(req, engine=engine, cache=False)
    assert check_layout(req, out, clusters_exact=engine != "builtin") == []
    first = out.nodes[readers[0]]
    y = (out.nodes["mask"].bottom + first.y) / 2
    xs = {round(_x_at(out.edges[f"m{t}"].points, y), 1) for t in readers}
    assert len(xs) == 1, xs
    # Lower down, the edges still sharing the trunk are the ones not yet arrived.
    y = (out.nodes[readers[2]].bottom + out.nodes[readers[3]].y) / 2
    xs = {round(_x_at(out.edges[f"m{t}"].points, y), 1) for t in readers[3:]}
    assert len(xs) == 1, xs
