"""A small layered layout used when no Graphviz is installed.

Never as pretty as dot, but always available so a model always opens:
longest-path ranking, virtual nodes on long edges, barycentre ordering,
a simple coordinate pass that pulls boxes under their neighbours, and edges as
vertical-tangent Bezier curves threaded through the virtual nodes (so they
seldom cross boxes).  Group frames are the bounds of their members; ordering
keeps each group's members together within a rank and spacing leaves room
for the frames, but unlike dot's clusters two frames can still overlap when
their groups interleave across ranks.  There is no time limit: pieces keep calls small.
"""
from __future__ import annotations

from collections import defaultdict

from .geometry import CancelToken, EdgePath, GroupBox, Layout, LayoutRequest, NodeBox

ORDER_SWEEPS = 6
COORD_SWEEPS = 6
VIRTUAL_WIDTH = 4.0


def layout_builtin(request: LayoutRequest, first_rank=(), last_rank=(), *,
                   cancel: CancelToken | None = None, time_limit: float | None = None) -> Layout:
    lr = request.rankdir == "LR"
    # Work top-to-bottom; for LR swap each box's extents and transpose at the end.
    sizes = {n.id: ((n.height, n.width) if lr else (n.width, n.height)) for n in request.nodes}
    ids = [n.id for n in request.nodes]
    edges = [(e.source, e.target) for e in request.edges if e.source != e.target]
    forward = acyclic_edges(ids, edges)
    rank = longest_path_ranks(ids, forward, set(first_rank), set(last_rank))
    if cancel:
        cancel.raise_if_cancelled()

    # Chains of (possibly virtual) nodes, one per edge.
    width = dict((k, v[0]) for k, v in sizes.items())
    chains: list[list[str]] = []
    succ: dict[str, list[str]] = defaultdict(list)
    pred: dict[str, list[str]] = defaultdict(list)
    for k, (s, t) in enumerate(forward):
        chain = [s]
        for r in range(rank[s] + 1, rank[t]):
            v = f"\0v{k}.{r}"
            rank[v] = r
            width[v] = VIRTUAL_WIDTH
            chain.append(v)
        chain.append(t)
        for a, b in zip(chain, chain[1:]):
            succ[a].append(b)
            pred[b].append(a)
        chains.append(chain)

    group_of = _groups_with_virtual(request, chains)
    layers = _order(ids, rank, succ, pred, cancel, group_of)

    def gap(a: str, b: str) -> float:
        # Room for the frames closing after a and opening before b.
        pa, pb = group_of[a], group_of[b]
        k = _common(pa, pb)
        return request.node_sep + request.group_padding * (len(pa) + len(pb) - 2 * k)

    x = _x_coords(layers, width, succ, pred, gap)
    heights = [max((sizes[v][1] for v in layer if v in sizes), default=0.0) for layer in layers]
    above, below = _frame_room(request, rank, len(layers))
    y_mid, top = [], 0.0
    for r, h in enumerate(heights):
        top += above[r]
        y_mid.append(top + h / 2)
        top += h + below[r] + request.rank_sep
    y = {v: y_mid[rank[v]] for v in rank}

    boxes = {i: NodeBox(i, x[i] - sizes[i][0] / 2, y[i] - sizes[i][1] / 2, *sizes[i]) for i in ids}
    paths = _edge_paths(request, forward, chains, boxes, x, y)
    if lr:
        boxes = {i: NodeBox(i, b.y, b.x, b.height, b.width) for i, b in boxes.items()}
        paths = {k: EdgePath(p.id, p.source, p.target, tuple((py, px) for px, py in p.points))
                 for k, p in paths.items()}
    groups = _group_boxes(request, boxes)
    return Layout(boxes, paths, groups, 0.0, 0.0, engine="builtin").normalised()


def _frame_room(request, rank, n_layers):
    """Extra space above/below each rank for the frames of the groups that
    start/end there (nested frames stack their title strips and padding)."""
    first: dict = {}
    last: dict = {}
    for n in request.nodes:
        for d in range(1, len(n.group) + 1):
            g = tuple(n.group[:d])
            first[g] = min(first.get(g, rank[n.id]), rank[n.id])
            last[g] = max(last.get(g, rank[n.id]), rank[n.id])
    above, below = [0.0] * n_layers, [0.0] * n_layers
    for n in request.nodes:
        r = rank[n.id]
        paths = [tuple(n.group[:d]) for d in range(1, len(n.group) + 1)]
        opening = sum(1 for g in paths if first[g] == r)
        closing = sum(1 for g in paths if last[g] == r)
        above[r] = max(above[r], opening * (request.group_padding + request.group_title))
        below[r] = max(below[r], closing * request.group_padding)
    return above, below


def acyclic_edges(ids, edges):
    """Edges with back edges (found by depth-first search) reversed."""
    out = defaultdict(list)
    for s, t in edges:
        out[s].append(t)
    state: dict[str, int] = {}
    back = set()
    for root in ids:
        if root in state:
            continue
        stack = [(root, iter(out[root]))]
        state[root] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                back.add((node, nxt))
            elif nxt not in state:
                state[nxt] = 1
                stack.append((nxt, iter(out[nxt])))
    return [(t, s) if (s, t) in back else (s, t) for s, t in edges]


def longest_path_ranks(ids, forward, first, last):
    indeg = {i: 0 for i in ids}
    outs = defaultdict(list)
    for s, t in forward:
        indeg[t] += 1
        outs[s].append(t)
    queue = [i for i in ids if indeg[i] == 0]
    rank = {}
    # Each node's rank is pushed to its successors as it is settled (one
    # more than its deepest predecessor): no predecessor lists to walk.
    reach: dict = {}
    while queue:
        n = queue.pop()
        r = rank[n] = reach.get(n, 0)
        for t in outs[n]:
            if reach.get(t, 0) < r + 1:
                reach[t] = r + 1
            indeg[t] -= 1
            if indeg[t] == 0:
                queue.append(t)
    # Entry stubs are sources, so longest-path already puts them on rank 0;
    # exit stubs go one rank below everything else.
    for n in first:
        rank[n] = 0
    if last:
        bottom = max((r for n, r in rank.items() if n not in last), default=-1) + 1
        for n in last:
            rank[n] = bottom
    return rank


def _groups_with_virtual(request, chains) -> dict:
    """Group path of every node; a virtual node lies inside the innermost
    group holding both ends of its edge, so it does not split that group."""
    group_of = {n.id: tuple(n.group) for n in request.nodes}
    for chain in chains:
        a, b = group_of[chain[0]], group_of[chain[-1]]
        inner = a[:_common(a, b)]
        for v in chain[1:-1]:
            group_of[v] = inner
    return group_of


def _common(a: tuple, b: tuple) -> int:
    k = 0
    while k < min(len(a), len(b)) and a[k] == b[k]:
        k += 1
    return k


def _order(ids, rank, succ, pred, cancel, group_of):
    n_layers = max(rank.values(), default=-1) + 1
    layers: list[list[str]] = [[] for _ in range(n_layers)]
    # Initial order: depth-first from the sources keeps chains together.
    seen = set()
    real = set(ids)
    for root in ids + sorted(v for v in rank if v not in real):
        stack = [root]
        while stack:
            v = stack.pop()
            if v in seen:
                continue
            seen.add(v)
            layers[rank[v]].append(v)
            stack.extend(reversed(succ[v]))
    for sweep in range(ORDER_SWEEPS):
        if cancel:
            cancel.raise_if_cancelled()
        down = sweep % 2 == 0
        span = range(1, n_layers) if down else range(n_layers - 2, -1, -1)
        for r in span:
            ref = layers[r - 1] if down else layers[r + 1]
            pos = {v: i for i, v in enumerate(ref)}
            nbrs = pred if down else succ
            bary = {}
            for i, v in enumerate(layers[r]):
                ps = [pos[u] for u in nbrs[v] if u in pos]
                bary[v] = sum(ps) / len(ps) if ps else i
            layers[r].sort(key=_group_contiguous_key(layers[r], bary, group_of))
    return layers


def _group_contiguous_key(layer, bary, group_of):
    """Sort key keeping the members of every group (at every depth) next to
    each other in a rank, groups ordered by their mean barycentre."""
    sums: dict = defaultdict(lambda: [0.0, 0])
    for v in layer:
        path = group_of.get(v, ())
        for d in range(1, len(path) + 1):
            acc = sums[path[:d]]
            acc[0] += bary[v]
            acc[1] += 1
    depth = max((len(group_of.get(v, ())) for v in layer), default=0)

    def key(v):
        path = group_of.get(v, ())
        return tuple(sums[path[:d]][0] / sums[path[:d]][1] if d <= len(path) else bary[v]
                     for d in range(1, depth + 1)) + (bary[v],)
    return key


def _x_coords(layers, width, succ, pred, gap):
    x = {}
    for layer in layers:
        pos = 0.0
        for v in layer:
            x[v] = pos + width[v] / 2
            pos += width[v] + gap(v, v)
    for sweep in range(COORD_SWEEPS):
        nbrs = pred if sweep % 2 == 0 else succ
        order = layers if sweep % 2 == 0 else list(reversed(layers))
        for layer in order:
            want = {}
            for v in layer:
                xs = sorted(x[u] for u in nbrs[v])
                want[v] = xs[len(xs) // 2] if xs else x[v]
            for v, pos in zip(layer, _closest_spaced(layer, want, width, gap)):
                x[v] = pos
    return x


def _closest_spaced(layer, want, width, gap):
    """Positions as close as possible (least squares) to `want`, keeping the
    order and the spacing.  With offsets c_i (the minimum distance from the
    first box) this is isotonic regression of want_i - c_i: pool adjacent
    violators."""
    offsets, c = [], 0.0
    for i, v in enumerate(layer):
        if i:
            c += width[layer[i - 1]] / 2 + gap(layer[i - 1], v) + width[v] / 2
        offsets.append(c)
    blocks: list[list[float]] = []   # [mean, count]
    for v, c in zip(layer, offsets):
        blocks.append([want[v] - c, 1])
        while len(blocks) > 1 and blocks[-2][0] >= blocks[-1][0]:
            m2, n2 = blocks.pop()
            m1, n1 = blocks[-1]
            blocks[-1] = [(m1 * n1 + m2 * n2) / (n1 + n2), n1 + n2]
    out = []
    for mean, count in blocks:
        out += [mean] * count
    return [y + c for y, c in zip(out, offsets)]


def _edge_paths(request, forward, chains, boxes, x, y):
    """Curves with vertical tangents through the chain points."""
    ports = _spread_ports(forward, chains, x, boxes)
    paths = {}
    k = -1
    for e in request.edges:
        if e.source == e.target:
            continue
        k += 1   # index into forward/chains, which skip self loops
        s, t = forward[k]
        chain = chains[k]
        pts = [(ports[(k, s)], boxes[s].bottom)]
        pts += [(x[v], y[v]) for v in chain[1:-1]]
        pts.append((ports[(k, t)], boxes[t].y))
        curve = [pts[0]]
        for (ax, ay), (bx, by) in zip(pts, pts[1:]):
            dy = (by - ay) / 2
            curve += [(ax, ay + dy), (bx, by - dy), (bx, by)]
        if (e.source, e.target) != (s, t):
            curve.reverse()
        paths[e.id] = EdgePath(e.id, e.source, e.target, tuple(curve))
    return paths


def _spread_ports(forward, chains, x, boxes):
    """Where each edge leaves/enters a box: spread along the side, ordered by
    the x of the far end so neighbouring edges do not cross at the box."""
    ends = defaultdict(list)
    for k, (s, t) in enumerate(forward):
        chain = chains[k]
        ends[(s, "out")].append((x[chain[1]], k))
        ends[(t, "in")].append((x[chain[-2]], k))
    ports = {}
    for (node, _side), lst in ends.items():
        lst.sort()
        w = boxes[node].width * 0.8   # keep clear of the rounded corners
        for j, (_, k) in enumerate(lst):
            ports[(k, node)] = x[node] + w * ((j + 1) / (len(lst) + 1) - 0.5)
    return ports


def _group_boxes(request, boxes):
    pad, title = request.group_padding, request.group_title
    members: dict = defaultdict(list)
    for n in request.nodes:
        for d in range(1, len(n.group) + 1):
            members[tuple(n.group[:d])].append(boxes[n.id])
    groups = {}
    # Deepest first so a parent can include its children's padding.
    for path in sorted(members, key=len, reverse=True):
        bs = members[path]
        inner = [g for p, g in groups.items() if p[:len(path)] == path and len(p) == len(path) + 1]
        x0 = min([b.x for b in bs] + [g.x for g in inner]) - pad
        y0 = min([b.y for b in bs] + [g.y for g in inner]) - pad - title
        x1 = max([b.right for b in bs] + [g.right for g in inner]) + pad
        y1 = max([b.bottom for b in bs] + [g.bottom for g in inner]) + pad
        # Never narrower than the title: widen evenly about the centre.
        grow = max(0.0, request.group_min_width.get(path, 0.0) - (x1 - x0)) / 2
        groups[path] = GroupBox(path, x0 - grow, y0, x1 - x0 + 2 * grow, y1 - y0)
    return groups

