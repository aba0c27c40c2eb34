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

from .geometry import LayoutEdge, LayoutNode, LayoutRequest
from .labels import group_label, io_label, op_label
from .scopes import default_expanded, raw_scope, tidy_scopes, visible_box
from .view import INPUT, OUTPUT, GraphView, GroupInfo, Measure, ViewEdge, ViewNode

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


def _short_value_name(name: str) -> str:
    for sep in ("/", ".", "::"):
        name = name.rsplit(sep, 1)[-1]
    return name or "?"


def build_view(graph, measure: Measure, expanded=None, *, model=None, rankdir: str = "TB",
               budget: int = DEFAULT_BOX_BUDGET) -> GraphView:
    """Boxes and arrows for `graph`; `expanded` = set of group paths to open
    (None: open groups level by level while at most `budget` boxes show)."""
    model = _root_model(graph, model)
    opsets = getattr(model, "opset_imports", None)
    nodes = list(graph.nodes)

    # Constant nodes, and Identity nodes copying a constant (exporters emit
    # them for shared weights), count as constants: their outputs are folded
    # into consumers and the nodes themselves get no box.
    constant_like: set[int] = set()

    graph_outputs = {id(v) for v in graph.outputs}

    def foldable(v) -> bool:
        """Shown as text inside consumers instead of as an arrow."""
        if v is None or id(v) in graph_outputs:
            return False
        if v.const is not None:
            return True
        return v.producer is not None and id(v.producer) in constant_like

    for n in nodes:   # topological order: producers are classified first
        if n.domain in ("", "ai.onnx") and (
                (n.op_type == "Constant" and not any(n.inputs))
                or (n.op_type == "Identity" and len(n.inputs) == 1 and foldable(n.inputs[0]))):
            constant_like.add(id(n))
    hidden = {id(n) for n in nodes
              if id(n) in constant_like and n.outputs and all(
                  o is not None and foldable(o) and o.uses for o in n.outputs)}
    shown = [n for n in nodes if id(n) not in hidden]
    paths = tidy_scopes([raw_scope(n.name or "") for n in shown])
    if expanded is None:
        expanded = default_expanded(paths, budget)
    expanded = set(expanded)

    view_nodes: dict[str, ViewNode] = {}
    request_nodes: list[LayoutNode] = []
    groups: dict = {}

    def add_box(box_id: str, vn: ViewNode, group) -> None:
        view_nodes[box_id] = vn
        w, h = measure(vn.label)
        request_nodes.append(LayoutNode(box_id, float(w), float(h), tuple(group)))

    # Graph inputs (constants among them are folded, not boxes).
    box_of_value: dict[int, str] = {}
    for i, v in enumerate(graph.inputs):
        if v.const is None:
            box_id = f"input:{i}:{v.name}"
            add_box(box_id, ViewNode(box_id, io_label(INPUT, v), value=v), ())
            box_of_value[id(v)] = box_id

    # Group statistics, for every group at every depth.
    for n, path in zip(shown, paths):
        for d in range(1, len(path) + 1):
            info = groups.get(path[:d])
            if info is None:
                info = groups[path[:d]] = GroupInfo(path[:d], path[:d] in expanded, 0, Counter())
            info.node_count += 1
            info.op_counts[n.op_type] += 1

    box_of_node: dict[int, str] = {}
    function_keys = set(getattr(model, "functions", {}) or {})
    for index, (n, path) in enumerate(zip(shown, paths)):
        closed = visible_box(path, expanded)
        if closed is not None:
            box_id = "group:" + "/".join(closed)
            if box_id not in view_nodes:
                info = groups[closed]
                label = group_label(closed, info.op_counts, info.node_count)
                add_box(box_id, ViewNode(box_id, label, group=closed), closed[:-1])
            box_of_node[id(n)] = box_id
            continue
        box_id = f"node:{n.index}"
        formals = _formal_names(n, opsets)
        folded = []
        for k, v in enumerate(n.inputs):
            if foldable(v):
                formal = (formals[min(k, len(formals) - 1)] if formals else _short_value_name(v.name))
                folded.append((formal, v, _constant_data(v)))
        key = (n.domain, n.op_type, getattr(n, "overload", ""))
        add_box(box_id, ViewNode(box_id, op_label(n, folded), node=n,
                                 folded=tuple(v for _, v, _ in folded),
                                 function_key=key if key in function_keys else None), path)
        box_of_node[id(n)] = box_id

    # Constants hidden in their consumers map to the first consumer's box
    # (reverse order: a Constant feeding a hidden Identity follows it).
    # A consumer inside a subgraph body counts as the node owning that body.
    for n in reversed(nodes):
        if id(n) in hidden:
            consumer = n.outputs[0].uses[0][0]
            while consumer.graph is not graph and consumer.graph is not None \
                    and consumer.graph.parent_node is not None:
                consumer = consumer.graph.parent_node
            if id(consumer) in box_of_node:
                box_of_node[id(n)] = box_of_node[id(consumer)]

    view_edges: dict[str, ViewEdge] = {}
    request_edges: list[LayoutEdge] = []
    seen_pairs: set = set()

    def source_box(v) -> str:
        if id(v) in box_of_value:
            return box_of_value[id(v)]
        if v.producer is not None and id(v.producer) in box_of_node:
            return box_of_node[id(v.producer)]
        # Captured from an enclosing graph, or not defined anywhere (a broken
        # model still opens): an input box that says so.
        note = "from enclosing graph" if v.graph is not graph and v.graph is not None else "not defined"
        box_id = _fresh(f"outer:{v.name}", view_nodes)
        add_box(box_id, ViewNode(box_id, io_label(INPUT, v, note), value=v), ())
        box_of_value[id(v)] = box_id
        return box_id

    def connect(v, target: str) -> None:
        src = source_box(v)
        if src == target or (src, target, id(v)) in seen_pairs:
            return   # inside one closed group, or the same value twice
        seen_pairs.add((src, target, id(v)))
        edge_id = _fresh(f"{v.name}|{src}|{target}", view_edges)
        view_edges[edge_id] = ViewEdge(edge_id, src, target, v)
        request_edges.append(LayoutEdge(edge_id, src, target))

    for n in shown:
        target = box_of_node[id(n)]
        for v in n.inputs:
            if v is not None and not foldable(v):
                connect(v, target)
        # Values a subgraph body reads from this graph arrive at the node
        # owning the body: draw that dependency too.
        for _, body in n.subgraphs():
            for v in _captured(body, graph):
                if not foldable(v):
                    connect(v, target)

    for i, v in enumerate(graph.outputs):
        box_id = f"output:{i}:{v.name}"
        note = "constant" if v.const is not None else ""
        add_box(box_id, ViewNode(box_id, io_label(OUTPUT, v, note), value=v), ())
        if v.const is None:
            connect(v, box_id)

    request = LayoutRequest(request_nodes, request_edges, rankdir=rankdir)
    return GraphView(graph, request, view_nodes, view_edges, groups, box_of_node)


def _fresh(name: str, taken: dict) -> str:
    """`name`, or `name#2`, `name#3`... if taken (values may share a name,
    e.g. "" in a model being edited)."""
    if name not in taken:
        return name
    k = 2
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"


def _captured(body, outer):
    """Values defined outside `body` (in `outer` or above) read anywhere in it."""
    found: dict[int, object] = {}
    inner_graphs = {id(g) for g in body.walk()}
    for g in body.walk():
        for n in g.nodes:
            for v in n.inputs:
                if v is not None and v.graph is not None and id(v.graph) not in inner_graphs:
                    found[id(v)] = v
    # Values from further out are "from enclosing graph" boxes in this view.
    return list(found.values())
