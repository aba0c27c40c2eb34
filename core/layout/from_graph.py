"""From an ir.Graph to the boxes and arrows the viewer lays out and draws.

* Graph inputs and outputs are boxes of their own.
* Initializers and Constant-node outputs are folded into each consuming
  node's box as a line of text, not drawn as hundreds of extra boxes.
* Nodes are grouped by name scope (see scopes.py); a closed group is one box
  with its op counts, an open group is drawn as a frame around its content.
* Values captured by a subgraph from an enclosing graph appear as input
  boxes marked "from enclosing graph".
* If/Loop/Scan bodies and function bodies are separate graphs: the viewer
  calls build_view() on them when the user goes inside.
"""
from __future__ import annotations

from collections import Counter

from ..ir.graph import AttrType
from ..ir.nesting import outer_values
from .geometry import LayoutEdge, LayoutNode, LayoutRequest
from .labels import group_label, io_label, op_label
from .scopes import default_expanded, follow_expanded, node_scope, tidy_scopes, visible_box
from .view import GROUP_TITLE, INPUT, OUTPUT, GraphView, GroupInfo, Measure, NodeLabel, ViewEdge, ViewNode

DEFAULT_BOX_BUDGET = 600   # boxes shown at first; more groups open on demand


def _constant_data(v, depth: int = 0):
    """The data behind a folded value: the initializer's tensor, or the
    Constant node's value attribute (followed through Identity copies)."""
    if v.const is not None:
        return v.const
    n = v.producer
    if n is None or depth > 16:
        return None
    if n.op_type == "Identity" and n.inputs and n.inputs[0] is not None:
        return _constant_data(n.inputs[0], depth + 1)
    for attr in n.attributes.values():   # a Constant node has exactly one
        return attr.value
    return None


def _root_model(graph, model):
    if model is not None:
        return model
    g = graph
    while g.parent_node is not None and g.parent_node.graph is not None:
        g = g.parent_node.graph
    owner = getattr(g, "owner", None)
    return owner if hasattr(owner, "functions") else None


def _formal_names(node, opsets):
    """The schema's input names (X, W, B) when we know the op; else None."""
    if opsets is None:
        return None
    try:
        from .. import schemas
        schema = schemas.bind(node.domain, node.op_type, opsets)
    except Exception:  # noqa: BLE001 - labels fall back to value names
        return None
    return [f.name for f in schema.inputs] if schema is not None else None


# The group of constants nothing reads (a name no exporter's scope has).
# This name and the notes on input/output boxes ("not defined", "from
# enclosing graph", "constant") are matched by exact text in
# ui/canvas/words.py, which shows them translated: change both together.
UNUSED_GROUP = ("⟨unused constants⟩",)


def _short_value_name(name: str) -> str:
    for sep in ("/", ".", "::"):
        name = name.rsplit(sep, 1)[-1]
    return name or "?"


def build_view(graph, measure: Measure, expanded=None, *, model=None, rankdir: str = "TB",
               budget: int = DEFAULT_BOX_BUDGET, previous: GraphView | None = None,
               stale: set | None = None) -> GraphView:
    """Boxes and arrows for `graph`; `expanded` = set of group paths to open
    (None: open groups level by level while at most `budget` boxes show).
    `previous`: the view of the same graph before an edit; when the edit
    moved group paths, the groups holding what was open stay open
    (GraphView.expanded says which were opened). With `stale` too (ids of
    the nodes and values the edits since `previous` touched), every other
    node keeps its label and measured size from `previous` instead of being
    labelled and measured again (most of the cost on a big graph)."""
    builder = _Builder(graph, measure, _root_model(graph, model))
    if previous is not None and stale is not None:
        builder.reuse_from(previous, stale)
    return builder.build(expanded, rankdir, budget, previous)


class _Builder:
    def __init__(self, graph, measure: Measure, model):
        self.graph = graph
        self.measure = measure
        self.opsets = getattr(model, "opset_imports", None)
        self.function_keys = set(getattr(model, "functions", {}) or {})
        self.nodes = list(graph.nodes)
        self.graph_outputs = {id(v) for v in graph.outputs}
        self.constant_like: set[int] = set()
        self.view_nodes: dict[str, ViewNode] = {}
        self.request_nodes: list[LayoutNode] = []
        self.view_edges: dict[str, ViewEdge] = {}
        self.request_edges: list[LayoutEdge] = []
        self.seen_pairs: set = set()
        self.box_of_value: dict[int, str] = {}
        self.box_of_node: dict[int, str] = {}
        self.group_box: dict = {}
        self.op_ids: dict[str, int] = {}            # box id base -> boxes given it (repeated node names)
        self.formals: dict = {}
        self.old_nodes: dict[str, ViewNode] = {}      # the previous view's boxes
        self.old_boxes: dict[int, ViewNode] | None = None   # id(ir.Node) -> its op box there, when asked
        self.old_request_nodes: dict[str, LayoutNode] = {}   # previous box id -> its LayoutNode
        self.old_edges: dict[str, ViewEdge] = {}    # the previous view's edges
        self.old_request_edges: dict[str, LayoutEdge] = {}
        self.old_titles: dict = {}                  # open group path -> (node count, title width)
        self.old_groups: dict = {}                  # closed group path -> (its ViewNode, LayoutNode)
        self.stale: set = set()

    def reuse_from(self, previous: GraphView, stale: set) -> None:
        self.stale = stale
        self.old_nodes = previous.nodes
        self.old_request_nodes = {n.id: n for n in previous.request.nodes}
        # What did not change is handed on as the very same objects: the
        # canvas and the layout tell an unchanged box or edge by identity.
        self.old_edges = previous.edges
        self.old_request_edges = {e.id: e for e in previous.request.edges}
        widths = previous.request.group_min_width
        self.old_titles = {p: (g.node_count, widths[p]) for p, g in previous.groups.items() if p in widths}
        sizes = self.old_request_nodes
        self.old_groups = {vn.group: (vn, sizes[vn.id]) for vn in previous.nodes.values()
                           if vn.group is not None and vn.id in sizes}

    def build(self, expanded, rankdir: str, budget: int, previous=None) -> GraphView:
        hidden = self._find_constants()
        shown = [n for n in self.nodes if id(n) not in hidden]
        paths = self._with_unused_group(shown, tidy_scopes([node_scope(n) for n in shown]))
        if expanded is None:
            expanded = default_expanded(paths, budget) - {UNUSED_GROUP}
        elif previous is not None and previous.path_of_node:
            expanded = follow_expanded(set(expanded), previous.path_of_node, shown, paths)
        expanded = set(expanded)
        groups = _group_infos(shown, paths, expanded)
        if previous is not None:
            _keep_unchanged_groups(groups, previous.groups)
        for i, v in enumerate(self.graph.inputs):
            if v.const is None:   # an initializer listed as input is a constant
                box_id = f"input:{i}:{v.name}"
                self._add_box(box_id, ViewNode(box_id, io_label(INPUT, v), value=v), ())
                self.box_of_value[id(v)] = box_id
        closed_of: dict = {}        # per distinct path: thousands, not one per node
        for n, path in zip(shown, paths):
            closed = closed_of.get(path, False)
            if closed is False:
                closed = closed_of[path] = visible_box(path, expanded)
            if closed is None:
                self._add_op_box(n, path)
            else:
                box_id = self.group_box.get(closed)
                self.box_of_node[id(n)] = box_id if box_id is not None else \
                    self._closed_group_box(closed, groups[closed])
        self._map_hidden_constants(hidden)
        self._connect_all(shown)
        for i, v in enumerate(self.graph.outputs):
            box_id = f"output:{i}:{v.name}"
            note = "constant" if v.const is not None else ""
            self._add_box(box_id, ViewNode(box_id, io_label(OUTPUT, v, note), value=v), ())
            if v.const is None:
                self._connect(v, box_id)
        request = LayoutRequest(self.request_nodes, self.request_edges, rankdir=rankdir,
                                group_min_width=self._title_widths(groups))
        return GraphView(self.graph, request, self.view_nodes, self.view_edges, groups, self.box_of_node,
                         {id(n): p for n, p in zip(shown, paths)}, expanded)

    def _title_widths(self, groups) -> dict:
        """Width of each open group's title, as the caller measures it."""
        out = {}
        for path, info in groups.items():
            if info.expanded:
                old = self.old_titles.get(path)
                out[path] = old[1] if old is not None and old[0] == info.node_count else \
                    float(self.measure(NodeLabel(GROUP_TITLE, path[-1], (str(info.node_count),)))[0])
        return out

    # -- constants ---------------------------------------------------------------------

    def foldable(self, v) -> bool:
        """Shown as text inside consumers instead of as an arrow."""
        if v is None or id(v) in self.graph_outputs:
            return False
        if v.const is not None:
            return True
        return v.producer is not None and id(v.producer) in self.constant_like

    def _find_constants(self) -> set[int]:
        """Constant nodes, and Identity nodes copying a constant (exporters
        emit them for shared weights), count as constants: their outputs are
        folded into consumers.  Returns the ids of those that get no box."""
        for n in self.nodes:   # topological order: producers are classified first
            if n.domain in ("", "ai.onnx") and (
                    (n.op_type == "Constant" and not any(n.inputs))
                    or (n.op_type == "Identity" and len(n.inputs) == 1 and self.foldable(n.inputs[0]))):
                self.constant_like.add(id(n))
        return {id(n) for n in self.nodes
                if id(n) in self.constant_like and n.outputs and all(
                    o is not None and self.foldable(o) and o.uses for o in n.outputs)}

    def _with_unused_group(self, shown, paths) -> list:
        """Constants nothing reads (quantizers and optimizers leave dozens)
        would all sit on the first rank, one wide row above the graph: they
        go into one group of their own instead, closed unless asked for."""
        unused = [id(n) in self.constant_like and all(o is None or (not o.uses and id(o) not in self.graph_outputs)
                                                    for o in n.outputs) for n in shown]
        if sum(unused) < 2:
            return paths
        return [UNUSED_GROUP if u else p for u, p in zip(unused, paths)]

    def _map_hidden_constants(self, hidden: set[int]) -> None:
        """A hidden constant maps to its first consumer's box (in reverse
        order, so a Constant feeding a hidden Identity follows it); a consumer
        inside a subgraph body counts as the node owning that body."""
        for n in reversed(self.nodes):
            if id(n) in hidden:
                consumer = n.outputs[0].uses[0][0]
                while consumer.graph is not self.graph and consumer.graph is not None \
                        and consumer.graph.parent_node is not None:
                    consumer = consumer.graph.parent_node
                if id(consumer) in self.box_of_node:
                    self.box_of_node[id(n)] = self.box_of_node[id(consumer)]

    # -- boxes --------------------------------------------------------------------------

    def _add_box(self, box_id: str, vn: ViewNode, group) -> None:
        self.view_nodes[box_id] = vn
        w, h = self.measure(vn.label)
        self.request_nodes.append(LayoutNode(box_id, float(w), float(h), tuple(group)))

    def _reused(self, n, box_id: str, path, folded_values: tuple, function_key) -> bool:
        """Take n's label and size from the previous view when nothing it
        shows can have changed (see build_view's `stale`)."""
        old = self.old_nodes.get(box_id)        # box ids follow names: nearly always there
        if old is None or old.node is not n:
            if self.old_boxes is None:
                self.old_boxes = {id(vn.node): vn for vn in self.old_nodes.values() if vn.node is not None}
            old = self.old_boxes.get(id(n))
        stale = self.stale
        # Folded values are compared by identity (Values have no __eq__); most
        # are initializers, which no node produces.
        if old is None or old.node is not n or id(n) in stale or old.function_key != function_key \
                or old.folded != folded_values \
                or any(id(v) in stale or (v.producer is not None and self._stale_value(v)) for v in folded_values):
            return False
        request_node = self.old_request_nodes.get(old.id)
        if request_node is None:
            return False
        if old.id == box_id:
            self.view_nodes[box_id] = old       # unchanged: the same object
            if request_node.group != path:
                request_node = LayoutNode(box_id, request_node.width, request_node.height, tuple(path))
        else:
            self.view_nodes[box_id] = ViewNode(box_id, old.label, node=n, folded=folded_values,
                                               function_key=function_key)
            request_node = LayoutNode(box_id, request_node.width, request_node.height, tuple(path))
        self.request_nodes.append(request_node)
        self.box_of_node[id(n)] = box_id
        return True

    def _stale_value(self, v, depth: int = 0) -> bool:
        """A folded value shows its data: stale when it or a constant it
        copies (through Identity nodes) was touched."""
        if id(v) in self.stale:
            return True
        n = v.producer
        if n is None or depth > 16:
            return False
        if id(n) in self.stale:
            return True
        return n.op_type == "Identity" and bool(n.inputs) and n.inputs[0] is not None \
            and self._stale_value(n.inputs[0], depth + 1)

    def _op_box_id(self, n) -> str:
        """A box id named after the node, not after its position: an insert
        shifts the position of every node after it, and with ids that stay
        the pieces, edges and canvas items an edit did not touch stay equal
        (reused whole after an edit). Unnamed nodes go by position."""
        base = f"node:{n.name}" if n.name else f"node@{n.index}"
        seen = self.op_ids.get(base, 0) + 1
        self.op_ids[base] = seen
        box_id = base if seen == 1 else f"{base}#{seen}"
        return _fresh(box_id, self.view_nodes) if box_id in self.view_nodes else box_id

    def _add_op_box(self, n, path) -> None:
        # _op_box_id() written out for the common case (a name met once).
        name = n.name
        box_id = "node:" + name if name else None
        if box_id is None or box_id in self.op_ids or box_id in self.view_nodes:
            box_id = self._op_box_id(n)
        else:
            self.op_ids[box_id] = 1
        function_key = None
        if self.function_keys:          # a model with local functions
            key = (n.domain, n.op_type, getattr(n, "overload", ""))
            function_key = key if key in self.function_keys else None
        if self.old_nodes:
            # foldable() written out: 10k nodes after every edit with every box shown.
            outputs, constant_like = self.graph_outputs, self.constant_like
            folded_values = tuple([v for v in n.inputs if v is not None and id(v) not in outputs and (
                v.const is not None or (v.producer is not None and id(v.producer) in constant_like))])
            if self._reused(n, box_id, path, folded_values, function_key):
                return
        op_key = (n.domain, n.op_type)
        if op_key not in self.formals:   # one schema lookup per op type
            self.formals[op_key] = _formal_names(n, self.opsets)
        formals = self.formals[op_key]
        folded = []
        for k, v in enumerate(n.inputs):
            if self.foldable(v):
                formal = formals[min(k, len(formals) - 1)] if formals else _short_value_name(v.name)
                folded.append((formal, v, _constant_data(v)))
        self._add_box(box_id, ViewNode(box_id, op_label(n, folded), node=n,
                                       folded=tuple(v for _, v, _ in folded),
                                       function_key=function_key), path)
        self.box_of_node[id(n)] = box_id

    def _closed_group_box(self, closed, info: GroupInfo) -> str:
        box_id = self.group_box.get(closed)
        if box_id is None:
            # Merged scope names may contain "/": keep ids unique regardless.
            box_id = self.group_box[closed] = _fresh("group:" + "/".join(closed), self.view_nodes)
            label = group_label(closed, info.op_counts, info.node_count)
            old = self.old_groups.get(closed)
            if old is not None and old[0].label == label:
                # The same text as before: its measured size too (measuring
                # a few hundred closed groups after every edit added up),
                # and the very objects when the id is the same.
                vn, request_node = old
                parent = tuple(closed[:-1])
                if vn.id != box_id or request_node.group != parent:
                    vn = ViewNode(box_id, label, group=closed)
                    request_node = LayoutNode(box_id, request_node.width, request_node.height, parent)
                self.view_nodes[box_id] = vn
                self.request_nodes.append(request_node)
            else:
                self._add_box(box_id, ViewNode(box_id, label, group=closed), closed[:-1])
        return box_id

    # -- arrows -------------------------------------------------------------------------

    def _source_box(self, v) -> str:
        if id(v) in self.box_of_value:
            return self.box_of_value[id(v)]
        if v.producer is not None and id(v.producer) in self.box_of_node:
            return self.box_of_node[id(v.producer)]
        # Captured from an enclosing graph, or not defined anywhere (a broken
        # model still opens): an input box that says so.
        outer = v.graph is not None and v.graph is not self.graph
        box_id = _fresh(f"outer:{v.name}", self.view_nodes)
        label = io_label(INPUT, v, "from enclosing graph" if outer else "not defined")
        self._add_box(box_id, ViewNode(box_id, label, value=v), ())
        self.box_of_value[id(v)] = box_id
        return box_id

    def _connect(self, v, target: str) -> None:
        src = self._source_box(v)
        if src == target or (src, target, id(v)) in self.seen_pairs:
            return   # inside one closed group, or the same value twice
        self.seen_pairs.add((src, target, id(v)))
        edge_id = _fresh(f"{v.name}|{src}|{target}", self.view_edges)
        self.view_edges[edge_id] = ViewEdge(edge_id, src, target, v)
        self.request_edges.append(LayoutEdge(edge_id, src, target))

    def _connect_all(self, shown) -> None:
        """The arrows into every shown node, in node order: _connect() with
        foldable() and _source_box() written out for the common case (10k
        nodes, most of whose inputs stay inside one closed group)."""
        box_of_node, box_of_value, seen = self.box_of_node, self.box_of_value, self.seen_pairs
        get_node_box, get_value_box = box_of_node.get, box_of_value.get
        outputs, constant_like = self.graph_outputs, self.constant_like
        old_edges, old_request_edges = self.old_edges, self.old_request_edges
        view_edges, add_request_edge = self.view_edges, self.request_edges.append
        body_types = (AttrType.GRAPH, AttrType.GRAPHS)
        for n in shown:
            target = box_of_node[id(n)]
            for v in n.inputs:
                if v is None:
                    continue
                producer = v.producer
                if v.const is not None or (producer is not None and id(producer) in constant_like):
                    if id(v) not in outputs:
                        continue    # folded into the box
                vid = id(v)
                src = get_value_box(vid)
                if src is None:
                    src = get_node_box(id(producer)) if producer is not None else None
                    if src is None:
                        src = self._source_box(v)
                if src == target or (src, target, vid) in seen:
                    continue        # inside one closed group, or the same value twice
                seen.add((src, target, vid))
                edge_id = f"{v.name}|{src}|{target}"
                if edge_id in view_edges:
                    edge_id = _fresh(edge_id, view_edges)
                old = old_edges.get(edge_id)
                if old is not None and old.value is v and old.source == src and old.target == target:
                    view_edges[edge_id] = old      # unchanged: the same objects
                    add_request_edge(old_request_edges[edge_id])
                    continue
                view_edges[edge_id] = ViewEdge(edge_id, src, target, v)
                add_request_edge(LayoutEdge(edge_id, src, target))
            # Only bodies read values from this graph: a quarter of the nodes
            # have attributes, nearly none a graph among them.
            if n.attributes and any(a.type in body_types for a in n.attributes.values()):
                self._connect_bodies(n, target)

    def _connect_bodies(self, n, target: str) -> None:
        # Values a subgraph body reads from this graph arrive at the node
        # owning the body: draw that dependency too.
        for _, body in n.subgraphs():
            # Values from further out are "from enclosing graph" boxes in this
            # view; a value attached to no graph has nowhere to be drawn from.
            for v in outer_values(body):
                if v.graph is not None and not self.foldable(v):
                    self._connect(v, target)


def _group_infos(shown, paths, expanded) -> dict:
    """Node count and op counts of every group, at every depth."""
    groups: dict = {}
    # Counted per distinct (path, op type) first, in C; in the order first
    # met, so groups and their op counts keep the order of the nodes
    # (labels break ties in op counts by it). Each distinct path looks up
    # its prefixes' op-count dicts once: nearly every pair has a path of its
    # own, and slicing and hashing every prefix per pair was most of the cost.
    pairs = Counter(zip(paths, [n.op_type for n in shown]))
    counts_of: dict = {}        # distinct path -> op-count dicts of its prefixes, outermost first
    for (path, op_type), count in pairs.items():
        op_dicts = counts_of.get(path)
        if op_dicts is None:
            op_dicts = counts_of[path] = []
            for d in range(1, len(path) + 1):
                prefix = path[:d]
                info = groups.get(prefix)
                if info is None:
                    info = groups[prefix] = GroupInfo(prefix, prefix in expanded, 0, {})
                op_dicts.append(info.op_counts)
        for op_counts in op_dicts:
            op_counts[op_type] = op_counts.get(op_type, 0) + count
    for info in groups.values():    # every node counts once under each op type
        info.node_count = sum(info.op_counts.values())
    return groups


def _keep_unchanged_groups(groups: dict, before: dict) -> None:
    """Hand on the previous view's GroupInfo where a group is as it was (the
    canvas keeps its frame by identity; thousands of new objects after every
    edit only fed the garbage collector)."""
    for path, info in groups.items():
        old = before.get(path)
        # Equal counts, then the same order (labels break ties by it).
        if old is not None and old.expanded == info.expanded and old.node_count == info.node_count \
                and old.op_counts == info.op_counts and list(old.op_counts) == list(info.op_counts):
            groups[path] = old


def _fresh(name: str, taken: dict) -> str:
    """`name`, or `name#2`, `name#3`... if taken (values may share a name,
    e.g. "" in a model being edited)."""
    if name not in taken:
        return name
    k = 2
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"
