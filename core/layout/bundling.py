"""Bundling a box's long fan-out edges into one trunk with short branches.

A value read by every layer (an attention mask feeding twelve collapsed
layers) comes out of dot as a wall of parallel lines beside the graph, one
per reader.  Here the edges of one source follow the longest of them (the
trunk, which dot routed clear of every box) and leave it for their own
curve only in the free band just above their target's rank: the hop between
the two lines crosses no box, because no box reaches into that band.
"""
from __future__ import annotations

from .geometry import EdgePath, Layout, Point, cut_after, cut_before

MIN_FAN = 3          # bundle only sources with at least this many edges
MIN_SPAN = 3.0       # ... that run at least this many rank gaps down
CURVE_STEPS = 24


def bundle_fan_outs(layout: Layout, rank_sep: float) -> None:
    """Rewrite (in place, top-to-bottom layouts) the edges of every source
    with at least MIN_FAN long edges so they share their first stretch."""
    by_source: dict[str, list[EdgePath]] = {}
    for e in layout.edges.values():
        by_source.setdefault(e.source, []).append(e)
    bands = _free_bands(layout)
    for source, edges in by_source.items():
        box = layout.nodes.get(source)
        if box is None:
            continue
        long_edges = [e for e in edges if e.points and _is_downward_long(e, layout, rank_sep * MIN_SPAN)]
        if len(long_edges) < MIN_FAN:
            continue
        trunk = max(long_edges, key=lambda e: layout.nodes[e.target].y)
        for e in long_edges:
            if e is trunk:
                continue
            new = _branch(trunk.points, e.points, layout.nodes[e.target], bands)
            if new is not None:
                layout.edges[e.id] = EdgePath(e.id, e.source, e.target, tuple(new))


def _is_downward_long(e: EdgePath, layout: Layout, span: float) -> bool:
    s, t = layout.nodes.get(e.source), layout.nodes.get(e.target)
    return s is not None and t is not None and t.y - s.bottom >= span


def _free_bands(layout: Layout) -> list[tuple[float, float]]:
    """Horizontal strips (y0, y1) no box reaches into, top to bottom."""
    spans = sorted((b.y, b.bottom) for b in layout.nodes.values())
    bands, reach = [], None
    for top, bottom in spans:
        if reach is not None and top > reach:
            bands.append((reach, top))
        reach = bottom if reach is None else max(reach, bottom)
    return bands


def _band_above(bands, y: float):
    best = None
    for y0, y1 in bands:
        if y1 <= y + 0.01:
            best = (y0, y1)
        else:
            break
    return best


def _branch(trunk: tuple[Point, ...], own: tuple[Point, ...], target, bands):
    """trunk's start down to the free band above `target`, a hop across the
    band onto the edge's own curve, then its own curve to the target."""
    band = _band_above(bands, target.y)
    if band is None:
        return None
    y0, y1 = band
    if y1 - y0 < 8.0:
        return None
    a_y, c_y = y0 + (y1 - y0) * 0.2, y0 + (y1 - y0) * 0.8
    head = cut_before(list(trunk), a_y)
    tail = cut_after(list(own), c_y)
    if len(head) < 4 or len(tail) < 1 or abs(head[-1][1] - a_y) > 0.5 or abs(tail[0][1] - c_y) > 0.5:
        return None     # a curve that does not pass through the band there
    a, c = head[-1], tail[0]
    mid = (c[1] - a[1]) / 2
    hop = [(a[0], a[1] + mid), (c[0], c[1] - mid), c]
    return head + hop + tail[1:]
