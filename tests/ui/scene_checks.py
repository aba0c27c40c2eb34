"""Geometric checks on a populated GraphScene, shared by the viewer tests."""
from __future__ import annotations

TOLERANCE = 2.0     # points: an edge end may sit this far from the box border


def distance_to_border(x: float, y: float, rect) -> float:
    left, top, right, bottom = rect.left(), rect.top(), rect.right(), rect.bottom()
    if left <= x <= right and top <= y <= bottom:
        return min(x - left, right - x, y - top, bottom - y)
    dx = max(left - x, 0.0, x - right)
    dy = max(top - y, 0.0, y - bottom)
    return (dx * dx + dy * dy) ** 0.5


def overlapping_pairs(rects: dict) -> list[tuple[str, str]]:
    """Pairs of keys whose rectangles overlap by more than a hair (sweep on x)."""
    items = sorted(rects.items(), key=lambda kv: kv[1].left())
    bad = []
    active: list = []
    for key, rect in items:
        active = [(k, r) for k, r in active if r.right() > rect.left() + 0.5]
        for other_key, other in active:
            inter = rect.intersected(other)
            if inter.width() > 0.5 and inter.height() > 0.5:
                bad.append((other_key, key))
        active.append((key, rect))
    return bad


def check_scene(scene) -> dict:
    """Assert the viewer's promises about a laid-out scene; returns counts."""
    view_model = scene.view_model
    assert view_model is not None
    missing = [box_id for box_id in view_model.nodes if box_id not in scene.node_items]
    assert not missing, f"boxes without an item: {missing[:5]}"
    rects = {key: item.scene_rect() for key, item in scene.node_items.items()}
    for key, rect in rects.items():
        assert rect.width() > 0 and rect.height() > 0, f"{key} has an empty box"
    overlaps = overlapping_pairs(rects)
    assert not overlaps, f"{len(overlaps)} overlapping boxes, e.g. {overlaps[:3]}"
    # Boxes sit inside the frame of the group they belong to.
    for request_node in view_model.request.nodes:
        frame = scene.group_frames.get(tuple(request_node.group)) if request_node.group else None
        if frame is not None and request_node.id in rects:
            outer = frame.scene_rect().adjusted(-TOLERANCE, -TOLERANCE, TOLERANCE, TOLERANCE)
            assert outer.contains(rects[request_node.id]), \
                f"{request_node.id} lies outside its group frame {request_node.group}"
    drawn = 0
    for edge_id, vedge in view_model.edges.items():
        item = scene.edge_items.get(edge_id)
        assert item is not None, f"edge {edge_id} ({vedge.source} -> {vedge.target}) not drawn"
        src, dst = rects[vedge.source], rects[vedge.target]
        sx, sy = item.points[0]
        ex, ey = item.points[-1]
        assert distance_to_border(sx, sy, src) <= TOLERANCE, \
            f"edge {edge_id} starts at {(sx, sy)}, off its producer box {src}"
        assert distance_to_border(ex, ey, dst) <= TOLERANCE, \
            f"edge {edge_id} ends at {(ex, ey)}, off its consumer box {dst}"
        drawn += 1
    return {"boxes": len(rects), "edges": drawn}
