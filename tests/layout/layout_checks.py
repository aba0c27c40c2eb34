"""Geometry checks every layout must pass, whatever engine made it."""
from __future__ import annotations

import math

TOL = 0.05   # points


def overlap(a, b, margin=0.0) -> bool:
    return (a.x < b.x + b.width - margin and b.x < a.x + a.width - margin
            and a.y < b.y + b.height - margin and b.y < a.y + a.height - margin)


def on_border(p, box, tol=TOL) -> bool:
    x, y = p
    inside_x = box.x - tol <= x <= box.x + box.width + tol
    inside_y = box.y - tol <= y <= box.y + box.height + tol
    near_v = min(abs(x - box.x), abs(x - box.x - box.width)) <= tol
    near_h = min(abs(y - box.y), abs(y - box.y - box.height)) <= tol
    return inside_x and inside_y and (near_v or near_h)


def check_layout(request, result, clusters_exact=True):
    """Assert the layout is sound; returns a list of problems (empty = fine)."""
    problems = []
    want = {n.id: n for n in request.nodes}
    if set(result.nodes) != set(want):
        problems.append(f"node ids differ: missing {set(want) - set(result.nodes)}, "
                        f"extra {set(result.nodes) - set(want)}")
    for nid, box in result.nodes.items():
        n = want.get(nid)
        if n and (abs(box.width - n.width) > 0.01 or abs(box.height - n.height) > 0.01):
            problems.append(f"{nid}: size {box.width}x{box.height}, asked {n.width}x{n.height}")
        if box.x < -TOL or box.y < -TOL or box.right > result.width + TOL or box.bottom > result.height + TOL:
            problems.append(f"{nid}: box outside the drawing")
    boxes = sorted(result.nodes.values(), key=lambda b: b.x)
    # Sweep over x so big layouts stay fast to check.
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b.x >= a.right:
                break
            if overlap(a, b, margin=TOL):
                problems.append(f"boxes overlap: {a.id} and {b.id}")
    ids = {e.id for e in request.edges if e.source != e.target}
    if set(result.edges) != ids:
        problems.append(f"edge ids differ: missing {len(ids - set(result.edges))}, "
                        f"extra {len(set(result.edges) - ids)}")
    for e in result.edges.values():
        if len(e.points) < 4 or (len(e.points) - 1) % 3:
            problems.append(f"edge {e.id}: {len(e.points)} points is not 3n+1")
            continue
        if any(not (math.isfinite(x) and math.isfinite(y)) for x, y in e.points):
            problems.append(f"edge {e.id}: non-finite point")
        if not on_border(e.points[0], result.nodes[e.source]):
            problems.append(f"edge {e.id}: start {e.points[0]} not on source {result.nodes[e.source]}")
        if not on_border(e.points[-1], result.nodes[e.target]):
            problems.append(f"edge {e.id}: end {e.points[-1]} not on target {result.nodes[e.target]}")
    expected_groups = {tuple(n.group[:d]) for n in request.nodes for d in range(1, len(n.group) + 1)}
    if set(result.groups) != expected_groups:
        problems.append(f"groups differ: missing {expected_groups - set(result.groups)}, "
                        f"extra {set(result.groups) - expected_groups}")
    for n in request.nodes:
        box = result.nodes.get(n.id)
        for d in range(1, len(n.group) + 1):
            g = result.groups.get(tuple(n.group[:d]))
            if box and g and not (g.x - TOL <= box.x and box.right <= g.right + TOL
                                  and g.y - TOL <= box.y and box.bottom <= g.bottom + TOL):
                problems.append(f"{n.id} sticks out of its group {g.path}")
    if clusters_exact:
        # A node outside a group never sits on that group's box; sibling
        # groups never overlap.
        for n in request.nodes:
            box = result.nodes.get(n.id)
            for path, g in result.groups.items():
                if box and tuple(n.group[:len(path)]) != path and overlap(box, g, margin=TOL):
                    problems.append(f"{n.id} lies on foreign group {path}")
        paths = list(result.groups)
        for i, p in enumerate(paths):
            for q in paths[i + 1:]:
                nested = p[:len(q)] == q or q[:len(p)] == p
                if not nested and overlap(result.groups[p], result.groups[q], margin=TOL):
                    problems.append(f"groups {p} and {q} overlap")
    return problems


def random_request(n, seed, *, fan_in=2, window=12, depth=3, rankdir="TB", cycles=0):
    """A seeded random DAG shaped like a model export: mostly short edges,
    random label-like sizes, and nested groups by contiguous ranges."""
    import random

    from onnxstudio.core.layout import LayoutEdge, LayoutNode, LayoutRequest
    rnd = random.Random(seed)
    nodes, edges = [], []
    for i in range(n):
        path = tuple(f"g{(i // (40 * 3 ** (depth - d - 1))) % 7}" for d in range(rnd.randint(0, depth)))
        nodes.append(LayoutNode(f"n{i}", rnd.choice([30, 55, 80, 120]), rnd.choice([20, 28, 44]), path))
        if i:
            sources = {rnd.randint(max(0, i - window), i - 1) for _ in range(rnd.randint(1, fan_in))}
            for j in sorted(sources):
                edges.append(LayoutEdge(f"e{len(edges)}", f"n{j}", f"n{i}"))
    for _ in range(cycles):
        a, b = sorted(rnd.sample(range(n), 2))
        edges.append(LayoutEdge(f"e{len(edges)}", f"n{b}", f"n{a}"))
    return LayoutRequest(nodes, edges, rankdir=rankdir)
