"""Keep the picture still after an edit: only the edited piece may change.

A big graph is laid out in pieces (core/layout/pieces.py) that are stacked
one under the other. After an edit, the new layout reuses every unchanged
piece from the cache, but stacking may shift them (the edited piece grew, a
piece appeared). `pin` moves each piece of the new layout back to where its
boxes were before: an unchanged piece lands exactly on its old place, the
edited piece is aligned on the top and centre of the boxes it kept. Edges
inside a piece move with it; an edge between two pieces keeps the path
it had on screen, its ends moved with its boxes (a new one is one curve
between its pinned ends), and group frames are fitted around their
pinned boxes. Pure geometry on core.layout objects: no Qt.
"""
from __future__ import annotations

from collections import Counter
from operator import itemgetter
from typing import Callable

from onnxstudio.core.layout.geometry import EdgePath, GroupBox, Layout, NodeBox
from onnxstudio.core.layout.pieces import group_sizes


def pin(old: Layout, new: Layout, pieces, old_id=None) -> tuple[Layout, set]:
    """(pinned layout, ids of the boxes that moved or changed). `pieces` is
    plan_pieces() of the new request; `old_id` maps a new box id to the id
    the same thing had before (ids may follow node positions, which an
    insertion shifts)."""
    old_edge = _old_edges(old, old_id)
    shown = old
    if old_id:
        old = Layout({k: old.nodes[o] for k, o in old_id.items() if o in old.nodes},
                     old.edges, old.groups, old.width, old.height, old.engine)
    piece_of: dict[str, int] = {}
    deltas: list[tuple[float, float]] = []
    for k, piece in enumerate(pieces):
        ids = [n.id for n in piece.nodes]
        for i in ids:
            piece_of[i] = k
        deltas.append(_piece_delta(old, new, ids))
    kept = _kept_as_shown(shown, new, pieces, old_id)
    nodes = {}
    changed = set()
    old_nodes = old.nodes
    for box_id, b in new.nodes.items():
        k = piece_of.get(box_id)
        if k in kept:
            nodes[box_id] = old_nodes[box_id]       # an unchanged piece: exactly where it was
            continue
        dx, dy = deltas[k] if k is not None else (0.0, 0.0)
        x, y = b.x + dx, b.y + dy
        before = old_nodes.get(box_id)
        if before is not None and before.x == x and before.y == y and before.width == b.width \
                and before.height == b.height and before.id == box_id:
            nodes[box_id] = before      # where it was: the very box shown (the scene keeps its item)
            continue
        nodes[box_id] = NodeBox(box_id, x, y, b.width, b.height)
        if before is None or abs(before.x - x) > 0.5 or abs(before.y - y) > 0.5 \
                or abs(before.width - b.width) > 0.5 or abs(before.height - b.height) > 0.5:
            changed.add(box_id)
    edges = {}
    for edge_id, e in new.edges.items():
        ks, kt = piece_of.get(e.source), piece_of.get(e.target)
        if ks is not None and ks == kt:
            dx, dy = deltas[ks]
            points = tuple([(x + dx, y + dy) for x, y in e.points])
            before = shown.edges.get(edge_id)
            same = before is not None and before.points == points and before.source == e.source \
                and before.target == e.target
            edges[edge_id] = before if same else EdgePath(edge_id, e.source, e.target, points)
        else:
            edges[edge_id] = _kept_or_direct(edge_id, e, nodes, old.nodes, old_edge)
    for k, deferred in (new.deferred or {}).items():
        if k in kept:
            for e in pieces[k].edges:
                edges[e.id] = shown.edges[e.id]
            continue
        dx, dy = deltas[k]      # kept only by the layout: drawn now, moved as the piece's boxes
        for edge_id, e in deferred.edges().items():
            edges[edge_id] = EdgePath(edge_id, e.source, e.target, tuple([(x + dx, y + dy) for x, y in e.points]))
    for piece in pieces:      # edges between pieces the layout left to us (layout(between_pieces=False))
        for e in piece.entry_edges:
            if e.id not in edges and e.source in nodes and e.target in nodes:
                edges[e.id] = _kept_or_direct(e.id, e, nodes, old.nodes, old_edge)
    groups = _fit_groups(new, pieces, deltas, new.canons, shown.groups)
    xs = [b.x + b.width for b in nodes.values()] or [0.0]
    ys = [b.y + b.height for b in nodes.values()] or [0.0]
    out = Layout(nodes, edges, groups, max(new.width, max(xs)), max(new.height, max(ys)),
                 new.engine, list(new.warnings), new.from_cache)
    out.pieces, out.canons = pieces, new.canons     # what the next edit's layout compares with
    return out, changed


def _kept_as_shown(shown: Layout, new: Layout, pieces, old_id) -> set:
    """Indices of the pieces the layout left undrawn (Layout.deferred: equal
    to a piece of the layout on screen) whose boxes are the same things as
    before (box ids of unnamed nodes follow positions) with every box and
    edge on screen: those stay exactly as they are shown."""
    kept = set()
    for k in (new.deferred or ()):
        piece = pieces[k]
        ids = [n.id for n in piece.nodes]
        # Written as list and map calls (run in C): 10k boxes after every edit.
        if (not old_id or list(map(old_id.get, ids)) == ids) and all(map(shown.nodes.__contains__, ids)) \
                and all(map(shown.edges.__contains__, [e.id for e in piece.edges])):
            kept.add(k)
    return kept


def _piece_delta(old: Layout, new: Layout, ids) -> tuple[float, float]:
    """The shift that puts this piece back where its surviving boxes were:
    the most common per-box shift (exact for an unchanged piece); for an
    edited piece whose boxes all moved differently, align top and centre."""
    old_nodes, new_nodes = old.nodes, new.nodes
    kept = [(a, b) for a, b in zip(map(old_nodes.get, ids), map(new_nodes.get, ids))
            if a is not None and b is not None]
    if not kept:
        return (0.0, 0.0)
    dxs, dys = {a.x - b.x for a, b in kept}, {a.y - b.y for a, b in kept}
    if len(dxs) == 1 and len(dys) == 1:
        # Every box moved alike (an unchanged piece, most of them): that shift
        # is the most common one, found without rounding and counting each box.
        return (round(dxs.pop(), 1), round(dys.pop(), 1))
    shifts = Counter([(round(a.x - b.x, 1), round(a.y - b.y, 1)) for a, b in kept])
    kept_old, kept_new = [a for a, _ in kept], [b for _, b in kept]
    best, count = _most_common(shifts)
    if count * 2 >= len(kept_old):
        return best
    top_old = min(b.y for b in kept_old)
    top_new = min(b.y for b in kept_new)
    mid_old = (min(b.x for b in kept_old) + max(b.x + b.width for b in kept_old)) / 2
    mid_new = (min(b.x for b in kept_new) + max(b.x + b.width for b in kept_new)) / 2
    return (mid_old - mid_new, top_old - top_new)


def _most_common(counts: Counter) -> tuple:
    """counts.most_common(1)[0] (the first counted on a tie), without the
    `import heapq` that most_common runs on every call: under PySide's
    import hook that was a third of the pinning's time on 2k groups."""
    return max(counts.items(), key=itemgetter(1))


def _old_edges(old: Layout, old_id) -> Callable:
    """old_edge(new edge id, new source, new target) -> the old layout's path
    of the same edge (the same value between the same two boxes), or None."""
    def old_edge(edge_id, source, target):
        if not old_id:
            found = old.edges.get(edge_id)
            return found if found is not None and found.source == source and found.target == target else None
        tail = f"|{source}|{target}"
        old_s, old_t = old_id.get(source), old_id.get(target)
        if old_s is None or old_t is None or not edge_id.endswith(tail):
            return None
        found = old.edges.get(f"{edge_id[:-len(tail)]}|{old_s}|{old_t}")
        return found if found is not None and found.source == old_s and found.target == old_t else None
    return old_edge


def _kept_or_direct(edge_id, e, nodes, old_nodes, old_edge) -> EdgePath:
    """An edge between two pieces follows the path the layout on screen
    routed for it (around the boxes between them), its ends moved with its
    boxes; one curve between the ends (_direct) would cut straight through
    whatever lies between. A new edge gets that curve."""
    before = old_edge(edge_id, e.source, e.target)
    s, t = nodes.get(e.source), nodes.get(e.target)
    s0, t0 = old_nodes.get(e.source), old_nodes.get(e.target)
    if before is None or s is None or t is None or s0 is None or t0 is None or len(before.points) < 4:
        return _direct(edge_id, e, nodes)
    dsx = s.x + s.width / 2 - (s0.x + s0.width / 2)
    dsy = s.y + s.height - (s0.y + s0.height)
    dtx = t.x + t.width / 2 - (t0.x + t0.width / 2)
    dty = t.y - t0.y
    if dsx == dsy == dtx == dty == 0.0 and (before.id, before.source, before.target) == (edge_id, e.source, e.target):
        return before       # both ends where they were: the very curve shown (the scene keeps its item)
    points = list(before.points)
    for k in (0, 1):                      # the start and its control point follow the source
        x, y = points[k]
        points[k] = (x + dsx, y + dsy)
    for k in (-2, -1):                    # the end and its control point follow the target
        x, y = points[k]
        points[k] = (x + dtx, y + dty)
    return EdgePath(edge_id, e.source, e.target, tuple(points))


def _direct(edge_id, e, nodes) -> EdgePath:
    """One cubic from the bottom of the source box to the top of the target."""
    s, t = nodes.get(e.source), nodes.get(e.target)
    if s is None or t is None:
        return e
    sx, sy = s.x + s.width / 2, s.y + s.height
    tx, ty = t.x + t.width / 2, t.y
    bend = max(20.0, abs(ty - sy) / 3)
    return EdgePath(edge_id, e.source, e.target, ((sx, sy), (sx, sy + bend), (tx, ty - bend), (tx, ty)))


def _fit_groups(new: Layout, pieces, deltas, canons=None, before=None) -> dict:
    """Each group frame moves with the piece most of its boxes belong to
    (the first such piece on a tie). A piece's counts come with its
    canonical form when there is one (a piece kept from before: counted then).
    A frame where it was (`before`: the groups on screen) is the very box shown."""
    votes: dict = {}
    for k, piece in enumerate(pieces):
        sizes = canons[k].group_sizes if canons and len(canons) == len(pieces) else group_sizes(piece)
        for path, n in sizes.items():
            votes.setdefault(path, Counter())[k] += n
    groups = {}
    for path, g in new.groups.items():
        count = votes.get(tuple(path))
        dx, dy = deltas[_most_common(count)[0]] if count else (0.0, 0.0)
        box = GroupBox(path, g.x + dx, g.y + dy, g.width, g.height)
        old = before.get(path) if before else None
        groups[path] = old if old == box else box
    return groups


def same_boxes(old_vm, new_vm) -> dict:
    """New box id -> old box id of the box showing the same node, value or group."""
    if old_vm is None:
        return {}
    old_values = None
    old_nodes = old_vm.nodes
    old_box_of = old_vm.box_of_node         # old_vm.box_for, looked up 10k times
    out = {}
    for k, v in new_vm.nodes.items():
        if v.node is not None and old_nodes.get(k) is v:
            out[k] = k          # the op box handed on from the old view (core.layout.build_view)
            continue
        if v.node is not None:
            found = old_box_of.get(id(v.node))
        elif v.value is not None:
            if old_values is None:
                old_values = {id(o.value): j for j, o in old_nodes.items() if o.value is not None}
            found = old_values.get(id(v.value))
        else:
            found = k if k in old_vm.nodes else None
        if found is not None:
            out[k] = found
    return out


def moves_between_groups(old_view_model, view_model) -> bool:
    """Whether a node's box sits in another group than on screen (a rename
    changed its scope). Pinning keeps the shown pieces and group frames, which
    would then no longer fit their boxes: edges ran through boxes, a frame
    covered a box (QA of issue 25). Such a view is laid out whole."""
    old_group = {n.id: n.group for n in old_view_model.request.nodes}
    old_box_of = {id(v.node): k for k, v in old_view_model.nodes.items() if v.node is not None}
    new_nodes = view_model.nodes
    for n in view_model.request.nodes:
        v = new_nodes.get(n.id)
        if v is None or v.node is None:
            continue
        before = old_box_of.get(id(v.node))
        if before is not None and old_group.get(before) != n.group:
            return True
    return False


def pin_to_shown(old_layout: Layout, old_view_model, view_model, result: Layout):
    """(pinned layout, new box id -> old box id, ids that moved or changed):
    a new layout of the shown level pinned to the one on screen. Pure
    geometry, run in the layout worker so the UI thread pays nothing."""
    from onnxstudio.core.layout.api import MAX_PIECE
    from onnxstudio.core.layout.pieces import plan_pieces
    same = same_boxes(old_view_model, view_model)
    pieces = result.pieces or plan_pieces(view_model.request, MAX_PIECE)    # planned once
    pinned, changed = pin(old_layout, result, pieces, same)
    return pinned, same, changed
