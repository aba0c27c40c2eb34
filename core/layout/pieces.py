"""Cutting a big graph into pieces dot can lay out quickly, and naming each
piece by its structure so identical blocks are laid out once.

dot slows down much faster than linearly (3,000 nodes: seconds; 10,000:
minutes), so no dot call sees more than `max_piece` nodes.  Pieces follow
the name-scope groups: a transformer layer is a natural piece, and its
structural key (sizes, nesting and wiring, no names) is the same for every
layer, so one layout serves them all.

Edges between pieces end at tiny "stub" nodes forced onto the first / last
rank of a piece; `stacking.py` joins the pieces' curves between stubs.
"""
from __future__ import annotations

import hashlib
import json
from collections import Counter
from dataclasses import dataclass, field

from .builtin_engine import acyclic_edges, longest_path_ranks
from .geometry import GroupPath, LayoutEdge, LayoutNode, LayoutRequest

STUB_SIZE = 1.0
MIN_GROUP_PIECE = 20     # a group this big is a piece of its own
# dot's time grows with the boxes plus the virtual boxes it threads long
# edges through (one per rank crossed): a piece's cost counts both.
COST_PER_NODE = 3
# Part of every cache key: bump when a change gives different layouts for
# the same input (DOT text, canonical form, piece planning).
KEY_VERSION = "piece-4"
PLAN_VERSION = "plan-4"


@dataclass
class Piece:
    nodes: list[LayoutNode]
    edges: list[LayoutEdge]                       # both ends inside this piece
    exit_sources: list[str] = field(default_factory=list)    # node ids with edges leaving
    entry_edges: list[LayoutEdge] = field(default_factory=list)  # edges arriving from elsewhere


@dataclass
class CanonicalPiece:
    """A piece with its names replaced by positions: what is laid out and cached."""
    request: LayoutRequest
    first_rank: list[str]
    last_rank: list[str]
    key: str
    node_ids: dict[str, str]          # canonical node id -> real node id
    edge_ids: dict[str, str]          # canonical edge id -> real edge id
    group_paths: dict[GroupPath, GroupPath]   # canonical -> real
    engine_tag: str = ""              # the engine (and version) `key` was made for
    # Real group path (at every depth) -> boxes of the piece inside it: which
    # piece a group frame moves with when pieces are pinned after an edit.
    group_sizes: dict = field(default_factory=dict, compare=False, repr=False)

    def fits(self, request: LayoutRequest, engine_tag: str) -> bool:
        """Whether this is canonical(piece, request, engine_tag) when it was
        made for a piece equal to `piece`: the same engine and options, and
        the same title widths for the piece's groups (the one thing a piece
        takes from the rest of the request). Comparing costs far less than
        canonical() (hashing) on each of a big graph's 160 pieces."""
        if engine_tag != self.engine_tag or request.options_key() != self.request.options_key():
            return False
        wanted, had = request.group_min_width, self.request.group_min_width
        for canon_path, path in self.group_paths.items():
            width = wanted.get(path)
            if (None if width is None else round(width, 2)) != had.get(canon_path):
                return False
        return True


def plan_pieces(request: LayoutRequest, max_piece: int) -> list[Piece]:
    """Split `request` into ordered pieces of at most `max_piece` nodes, and
    at most about COST_PER_NODE * max_piece boxes plus edge rank spans."""
    cost = _Cost(request, max_piece * COST_PER_NODE)
    units = _units(request.nodes, (), max_piece, cost)
    signature = [_unit_signature(nodes, cost.incoming) for _, nodes in units]
    repeated = {s for s, c in Counter(signature).items() if c > 1}
    groups: list[tuple[GroupPath, list[LayoutNode], bool]] = []
    for (parent, nodes), sig in zip(units, signature):
        # Merge small neighbours of one parent; a big group or a repeated
        # block stays alone (so all copies of a block share one layout).
        # (Tiny repeated units gain nothing from reuse and would only add
        # inter-piece edges.)
        alone = len(nodes) >= MIN_GROUP_PIECE and (sig in repeated or _is_group(nodes, parent))
        can_merge = (groups and not alone and groups[-1][0] == parent and not groups[-1][2]
                     and len(groups[-1][1]) + len(nodes) <= max_piece
                     and cost.fits(groups[-1][1] + nodes))
        if can_merge:
            groups[-1][1].extend(nodes)
        else:
            groups.append((parent, list(nodes), alone))
    piece_of: dict[str, int] = {}
    for k, (_, nodes, _) in enumerate(groups):
        for n in nodes:
            piece_of[n.id] = k
    pieces = [Piece(nodes, []) for _, nodes, _ in groups]
    exits: list[dict[str, None]] = [{} for _ in pieces]
    for e in request.edges:
        if e.source == e.target:
            continue    # self loops are not drawn (ONNX graphs have none)
        ps, pt = piece_of[e.source], piece_of[e.target]
        if ps == pt:
            pieces[ps].edges.append(e)
        else:
            exits[ps][e.source] = None
            pieces[pt].entry_edges.append(e)
    for p, ex in zip(pieces, exits):
        p.exit_sources = list(ex)
    return pieces


class _Cost:
    """Estimated dot work of a set of nodes: boxes plus the ranks their inner
    edges cross (ranks from a longest-path ranking of the whole graph)."""

    def __init__(self, request: LayoutRequest, budget: int):
        ids = [n.id for n in request.nodes]
        pairs = [(e.source, e.target) for e in request.edges if e.source != e.target]
        self.rank = _ranks_in_order(ids, pairs)
        if self.rank is not None:
            forward = pairs
        else:
            forward = acyclic_edges(ids, pairs)
            self.rank = longest_path_ranks(ids, forward, set(), set())
        self.incoming: dict[str, list[str]] = {}
        for s, t in forward:
            self.incoming.setdefault(t, []).append(s)
        self.budget = budget

    def span(self, source: str, target: str) -> int:
        return max(1, abs(self.rank[target] - self.rank[source]))

    def _node_cost(self, node_id: str, inside: set, top_rank: int) -> int:
        # An edge from outside enters through a stub on the piece's top rank,
        # so it crosses every rank down to its target.
        total = 1
        for s in self.incoming.get(node_id, ()):
            if s in inside:
                total += self.span(s, node_id) - 1
            else:
                total += max(0, self.rank[node_id] - top_rank)
        return total

    def of(self, nodes) -> int:
        inside = {n.id for n in nodes}
        top = min((self.rank[n.id] for n in nodes), default=0)
        return sum(self._node_cost(n.id, inside, top) for n in nodes)

    def fits(self, nodes) -> bool:
        return self.of(nodes) <= self.budget

    def chunks(self, nodes, max_piece: int):
        """Consecutive runs of `nodes` within both limits."""
        out, current, inside, total, top = [], [], set(), 0, 0
        for n in nodes:
            if not current:
                top = self.rank[n.id]
            add = self._node_cost(n.id, inside, min(top, self.rank[n.id]))
            if current and (len(current) >= max_piece or total + add > self.budget):
                out.append(current)
                current, inside, top = [], set(), self.rank[n.id]
                add = self._node_cost(n.id, inside, top)
                total = 0
            top = min(top, self.rank[n.id])
            current.append(n)
            inside.add(n.id)
            total += add
        if current:
            out.append(current)
        return out


def _ranks_in_order(ids: list, pairs: list) -> dict | None:
    """Longest-path ranks when every edge points forward in `ids` (an ONNX
    graph's boxes in node order nearly always do), else None. Then there is
    no cycle, so acyclic_edges would reverse nothing, and settling the
    boxes in list order gives longest_path_ranks's answer without its
    queue and in-degree counts (a tenth of a second on 10k boxes, after every edit)."""
    position = {i: k for k, i in enumerate(ids)}
    outs: dict = {}
    for s, t in pairs:
        if position[s] >= position[t]:
            return None
        outs.setdefault(s, []).append(t)
    rank = dict.fromkeys(ids, 0)
    for s in ids:
        targets = outs.get(s)
        if targets:
            r = rank[s] + 1
            for t in targets:
                if rank[t] < r:
                    rank[t] = r
    return rank


def _units(nodes: list[LayoutNode], path: GroupPath, max_piece: int, cost: _Cost):
    """[(parent path, nodes)]: child groups whole, direct nodes in runs;
    anything too big or holding side-by-side big groups is split further."""
    items = _items(nodes, len(path))
    if len(nodes) <= max_piece and cost.fits(nodes) and not _holds_big_siblings(items, len(path)):
        return [(path[:-1], nodes)]
    out = []
    for name, members in items:
        if name is not None:
            out.extend(_units(members, path + (name,), max_piece, cost))
        else:
            out.extend((path, chunk) for chunk in cost.chunks(members, max_piece))
    return out


def _is_group(nodes: list[LayoutNode], parent: GroupPath) -> bool:
    """All nodes inside one child group of `parent` (not a run of direct nodes)."""
    depth = len(parent)
    first = nodes[0].group[:depth + 1]
    return len(first) > depth and all(n.group[:depth + 1] == first for n in nodes)


def _items(nodes: list[LayoutNode], depth: int):
    """Child groups (name, members) in first-seen order and runs (None, nodes)."""
    items: list[tuple[str | None, list[LayoutNode]]] = []
    by_group: dict[str, list[LayoutNode]] = {}
    for n in nodes:
        if len(n.group) > depth:
            name = n.group[depth]
            if name not in by_group:
                by_group[name] = []
                items.append((name, by_group[name]))
            by_group[name].append(n)
        elif items and items[-1][0] is None:
            items[-1][1].append(n)
        else:
            items.append((None, [n]))
    return items


def _holds_big_siblings(items, depth: int) -> bool:
    """True when two big groups sit side by side at some level inside.

    In one dot call such groups (transformer layers, whose mask branches
    start at the top of the graph) overlap in rank and get drawn next to
    each other; as separate pieces they are stacked in order.
    """
    big = [members for name, members in items if name is not None and len(members) >= MIN_GROUP_PIECE]
    groups = sum(1 for name, _ in items if name is not None)
    # One open layer among (at least three) closed ones counts too: in one
    # dot call the open layer's mask branch starts at the top and the layer
    # is drawn beside the closed layers above it, not below them.  (A layer's
    # own attention / intermediate / output stay together.)
    if len(big) >= 2 or (big and groups >= 4):
        return True
    return any(_holds_big_siblings(_items(m, depth + 1), depth + 1) for m in big)


def _unit_signature(nodes: list[LayoutNode], incoming: dict[str, list[str]]) -> tuple:
    """Structure of a unit alone (inner edges only), to spot repeated blocks:
    compared, never stored, so a tuple (no text to write and hash for each
    of a big graph's few hundred units after every edit)."""
    index = {n.id: i for i, n in enumerate(nodes)}
    inner = tuple([(index[s], i) for i, n in enumerate(nodes) for s in incoming.get(n.id, ()) if s in index])
    paths: dict[GroupPath, int] = {}
    shape = tuple([(round(n.width, 2), round(n.height, 2), paths.setdefault(tuple(n.group), len(paths)))
                   for n in nodes])
    return shape, inner


def canonical(piece: Piece, request: LayoutRequest, engine_tag: str) -> CanonicalPiece:
    """The piece under positional names, with stubs, and its content key."""
    canon_path: dict[GroupPath, GroupPath] = {}

    def canon_group(path: GroupPath) -> GroupPath:
        # Each prefix gets the next number the first time it is seen, so two
        # blocks with the same nesting get the same canonical paths.
        known = canon_path.get(path)
        if known is not None:
            return known        # its prefixes were numbered before it (most boxes of a piece)
        for d in range(1, len(path) + 1):
            if path[:d] not in canon_path:
                canon_path[path[:d]] = canon_group(path[:d - 1]) + (str(len(canon_path)),)
        return canon_path.get(path, ())

    index = {n.id: str(i) for i, n in enumerate(piece.nodes)}
    nodes = [LayoutNode(index[n.id], round(n.width, 2), round(n.height, 2), canon_group(tuple(n.group)))
             for n in piece.nodes]
    # Stubs go inside the groups every box of the piece shares (a layer's
    # frame): outside them dot can only put a stub beside the outermost
    # frame, and the edges run along its border to reach their boxes.
    home = _common_prefix([n.group for n in nodes])
    edges, edge_ids = [], {}
    for k, e in enumerate(piece.edges):
        edges.append(LayoutEdge(f"e{k}", index[e.source], index[e.target]))
        edge_ids[f"e{k}"] = e.id
    last = []
    for k, src in enumerate(piece.exit_sources):
        nodes.append(LayoutNode(f"x{k}", STUB_SIZE, STUB_SIZE, home))
        edges.append(LayoutEdge(f"x{k}", index[src], f"x{k}"))
        edge_ids[f"x{k}"] = "\0exit:" + src
        last.append(f"x{k}")
    # One entry stub per outside source: a value feeding many boxes of this
    # piece comes in at one point and fans out, instead of a row of stubs.
    first, stub_of_source = [], {}
    for k, e in enumerate(piece.entry_edges):
        stub = stub_of_source.get(e.source)
        if stub is None:
            stub = stub_of_source[e.source] = f"s{len(stub_of_source)}"
            nodes.append(LayoutNode(stub, STUB_SIZE, STUB_SIZE, home))
            first.append(stub)
        edges.append(LayoutEdge(f"i{k}", stub, index[e.target]))
        edge_ids[f"i{k}"] = e.id
    wanted = request.group_min_width
    min_width = {c: round(wanted[p], 2) for p, c in canon_path.items() if p in wanted}
    req = LayoutRequest(nodes, edges, request.rankdir, request.node_sep, request.rank_sep,
                        request.group_padding, request.group_title, min_width)
    text = json.dumps([KEY_VERSION, engine_tag, req.options_key(),
                       sorted(min_width.items()),
                       [(n.width, n.height, n.group) for n in nodes],
                       [(e.source, e.target) for e in edges], first, last])
    key = hashlib.sha256(text.encode()).hexdigest()
    node_ids = {v: k for k, v in index.items()}
    return CanonicalPiece(req, first, last, key, node_ids, edge_ids,
                          {v: k for k, v in canon_path.items()}, engine_tag, group_sizes(piece))


def group_sizes(piece: Piece) -> dict:
    """Real group path (at every depth) -> how many of the piece's boxes it holds."""
    sizes: Counter = Counter()
    for group, n in Counter([tuple(node.group or ()) for node in piece.nodes]).items():
        for depth in range(1, len(group) + 1):
            sizes[group[:depth]] += n
    return dict(sizes)


def _common_prefix(paths) -> GroupPath:
    paths = list(paths)
    if not paths:
        return ()
    first = tuple(paths[0])
    end = len(first)
    for p in paths[1:]:
        end = min(end, len(p))
        for d in range(end):
            if p[d] != first[d]:
                end = d
                break
    return first[:end]


def request_key(request: LayoutRequest, engine_tag: str, max_piece: int, algorithm: str = "") -> str:
    """Content key of a whole request, names included (for the whole-result
    cache); `algorithm` names the versions of the steps after the pieces."""
    h = hashlib.sha256()
    h.update(json.dumps([KEY_VERSION, PLAN_VERSION, algorithm, MIN_GROUP_PIECE, COST_PER_NODE,
                         engine_tag, max_piece, request.options_key()]).encode())
    # One dumps call per list: the C encoder is fast on big lists, slow per call.
    h.update(json.dumps([[n.id, round(n.width, 2), round(n.height, 2), list(n.group)]
                         for n in request.nodes]).encode())
    h.update(json.dumps([[e.id, e.source, e.target] for e in request.edges]).encode())
    h.update(json.dumps(sorted([list(p), round(w, 2)] for p, w in request.group_min_width.items())).encode())
    return h.hexdigest()
