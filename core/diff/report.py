"""A ModelDiff written out: JSON in the shape issue 24 gives, and the
summary `onnxstudio diff` prints."""
from __future__ import annotations

from ..ir import Node, type_name
from .changes import op_text
from .model_diff import ModelDiff


def node_label(node: Node) -> str:
    """The node's name, or op[index] when it has none; a node inside a body
    or function is prefixed with where that body is."""
    own = node.name or f"{node.op_type}[{node.index}]"
    g = node.graph
    if g is None:
        return own
    if g.parent_node is not None:
        return f"{node_label(g.parent_node)}/{g.attr_name}/{own}"
    if getattr(g.owner, "is_function", False):
        return f"{g.owner.name}/{own}"
    return own


def _float(x):
    return None if x is None else (x if x == x and abs(x) != float("inf") else str(x))


def _weight_json(c) -> dict:
    out = {"a": c.a.name, "b": c.b.name, "max_abs": _float(c.max_abs), "max_rel": _float(c.max_rel),
           "share_changed": _float(c.share_changed)}
    if c.dtype:
        out["dtype"] = [type_name(t) for t in c.dtype]
    if c.shape:
        out["shape"] = [list(s) for s in c.shape]
    if c.not_compared:
        out["values_not_compared"] = c.not_compared
    return out


def _not_compared_json(d: ModelDiff) -> list:
    """The weights and node tensor attributes whose values could not be
    compared, each with the reason (neither equal nor different by value)."""
    return ([{"weight": c.a.name, "a": c.a.name, "b": c.b.name, "reason": c.not_compared}
             for c in d.weights_not_compared]
            + [{"node": node_label(c.a), "a": node_label(c.a), "b": node_label(c.b), "attribute": name,
                "reason": reason} for c in d.nodes_not_compared for name, reason in c.not_compared])


def _io_json(d) -> dict:
    return {"added": [v.name for v in d.added], "removed": [v.name for v in d.removed],
            "changed": [{"a": x.name, "b": y.name, "a_type": str(x.type), "b_type": str(y.type)}
                        for x, y in d.changed],
            "repeats_added": [{"name": v.name, "position": i} for v, i in d.repeats_added],
            "repeats_removed": [{"name": v.name, "position": i} for v, i in d.repeats_removed]}


def is_constant_node(node) -> bool:
    """A Constant node of the ONNX domain: data, not a step of the computation
    (counted apart, and listed as a group when many are added or removed)."""
    return node.op_type == "Constant" and not getattr(node, "domain", "")


def _side_counts(nodes: list, partners: dict, rewritten: set) -> dict:
    """How one side's nodes divide: those a recognised rewrite explains
    (folded, fused, split), Constant nodes, and the rest, which compute on
    data; with how many of each kind are paired."""
    rewritten_here = [n for n in nodes if n in rewritten]
    constants = [n for n in nodes if n not in rewritten and is_constant_node(n)]
    computing = [n for n in nodes if n not in rewritten and not is_constant_node(n)]
    return {"computing": len(computing), "computing_matched": sum(n in partners for n in computing),
            "constants": len(constants), "constants_matched": sum(n in partners for n in constants),
            "rewritten": len(rewritten_here)}


def node_counts(d: ModelDiff) -> dict:
    """{"a": ..., "b": ...} as `_side_counts` gives them, over every graph paired."""
    m = d.matching
    nodes_a = [n for ga, _ in m.graphs for n in ga.nodes]
    nodes_b = [n for _, gb in m.graphs for n in gb.nodes]
    rewritten_a = {n for r in d.rewrites for n in r.a_nodes + r.a_constants}
    rewritten_b = {n for r in d.rewrites for n in r.b_nodes + r.b_constants}
    return {"a": _side_counts(nodes_a, m.nodes, rewritten_a), "b": _side_counts(nodes_b, m.nodes_back, rewritten_b)}


def shared_nodes(d: ModelDiff) -> tuple[int, int, int]:
    """(paired, A's, B's) computing nodes, or all nodes when a side has no
    computing node (a model of constants only)."""
    counts = node_counts(d)
    a, b = counts["a"], counts["b"]
    if a["computing"] and b["computing"]:
        return min(a["computing_matched"], b["computing_matched"]), a["computing"], b["computing"]
    return (d.matched, sum(len(ga.nodes) for ga, _ in d.matching.graphs),
            sum(len(gb.nodes) for _, gb in d.matching.graphs))


def may_be_unrelated(d: ModelDiff) -> bool:
    """Whether A and B pair fewer than a quarter of the smaller one's nodes.
    Versions of one model pair most of theirs (bert_small pairs all 227 of
    its computing nodes with bert_12layer_narrow, which only adds layers);
    unrelated models pair next to none (the shared models, pairwise, 0):
    their differences are every node, and a reader should be told why."""
    shared, a, b = shared_nodes(d)
    smaller = min(a, b)
    return smaller > 0 and shared * 4 < smaller


def _unrelated_line(d: ModelDiff) -> list[str]:
    if not may_be_unrelated(d):
        return []
    shared, a, b = shared_nodes(d)
    return [f"these models share {shared} of A's {a} and B's {b} computing nodes: "
            f"they may not be versions of one model"]


def to_json(d: ModelDiff) -> dict:
    total_a = sum(len(ga.nodes) for ga, _ in d.matching.graphs)
    total_b = sum(len(gb.nodes) for _, gb in d.matching.graphs)
    return {
        "matched": d.matched,
        "nodes_a": total_a, "nodes_b": total_b,
        "node_counts": node_counts(d),
        "nodes": {
            "added": [node_label(n) for n in d.added],
            "removed": [node_label(n) for n in d.removed],
            "changed": [{"a": node_label(c.a), "b": node_label(c.b),
                         "op": list(c.op) if c.op else op_text(c.a),
                         "attributes": c.attributes, "inputs": c.inputs,
                         **({"domain": list(c.domain)} if c.domain else {})} for c in d.changed],
        },
        "renamed": ([[node_label(x), node_label(y)] for x, y in d.renamed_nodes]
                    + [[x.name, y.name] for x, y in d.renamed_values]),
        "initializers": {"changed": [_weight_json(c) for c in d.weights_changed],
                         "added": [v.name for v in d.weights_added],
                         "removed": [v.name for v in d.weights_removed]},
        "io": {"inputs": _io_json(d.inputs), "outputs": _io_json(d.outputs)},
        "rewrites": [{"kind": r.kind, "text": r.text, "a": [node_label(n) for n in r.a_nodes],
                      "b": [node_label(n) for n in r.b_nodes],
                      "initializers_a": [v.name for v in r.a_values],
                      "initializers_b": [v.name for v in r.b_values]} for r in d.rewrites],
        "model": [{"field": c.field, **({"domain": c.domain} if c.field == "opset_import" else {}),
                   "a": c.a, "b": c.b} for c in d.model_fields],
        "values_not_compared": _not_compared_json(d),
        "equal": d.equal,
        "may_be_unrelated": may_be_unrelated(d),
    }


def rewrite_side(nodes: list, values: list, initializer: str = "initializer {name}") -> str:
    """One side of a rewrite as the lists show it: its nodes, or, where it has
    none (a cone of nodes folded into a constant), the constants it became:
    an initializer (said with `initializer`, which the app translates) or a
    Constant node; "" when there is neither."""
    return (", ".join(node_label(n) for n in nodes)
            or ", ".join(initializer.format(name=v.name) if v.producer is None
                         else f"Constant {node_label(v.producer)}" for v in values))


def _list(title: str, names: list, limit: int) -> list[str]:
    if not names:
        return []
    lines = [f"{title} ({len(names)}):"] + [f"  {n}" for n in names[:limit]]
    if len(names) > limit:
        lines.append(f"  ... and {len(names) - limit} more (--json lists all)")
    return lines


def summary_lines(d: ModelDiff, *, limit: int = 20) -> list[str]:
    j = to_json(d)
    lines = [_matched_line(j["node_counts"]),
             f"changed:  {len(d.changed)}   added: {len(d.added)}   removed: {len(d.removed)}   "
             f"renamed: {len(j['renamed'])}   rewrites: {len(d.rewrites)}",
             f"weights:  {len(d.weights_changed)} changed, {len(d.weights_added)} added, "
             f"{len(d.weights_removed)} removed"] + _unrelated_line(d) + model_line(d)
    if j["values_not_compared"]:
        lines.append(f"values not compared: {len(j['values_not_compared'])} (their data cannot be read; "
                     "neither the same nor different)")
    if d.equal:
        return lines + ["the models are the same"]
    if not d.differs:
        lines.append("no difference found in what could be compared")
    lines += _list("rewrites", [f"{r.text}: {rewrite_side(r.a_nodes, r.a_values) or '-'} -> "
                                f"{rewrite_side(r.b_nodes, r.b_values) or '-'}"
                                for r in d.rewrites], limit)
    changes = []
    for c in j["nodes"]["changed"]:
        what = []
        if isinstance(c["op"], list):
            what.append(f"op {c['op'][0]} -> {c['op'][1]}")
        if c["attributes"]:
            what.append("attributes " + ", ".join(c["attributes"]))
        if c["inputs"]:
            what.append("inputs rewired")
        if "domain" in c:
            what.append("domain")
        name = c["a"] if c["a"] == c["b"] else f"{c['a']} -> {c['b']}"
        changes.append(f"{name}: {'; '.join(what)}")
    lines += _list("changed nodes", changes, limit)
    # Nodes that compute before Constant nodes, which between two unrelated
    # models are hundreds and filled the shown part of the list.
    lines += _list("added nodes (in B)", _constants_last(d.added), limit)
    lines += _list("removed nodes (from A)", _constants_last(d.removed), limit)
    lines += _list("changed weights", [_weight_text(w) for w in j["initializers"]["changed"]], limit)
    lines += _list("added weights", j["initializers"]["added"], limit)
    lines += _list("removed weights", j["initializers"]["removed"], limit)
    for side in ("inputs", "outputs"):
        io = j["io"][side]
        lines += _list(f"{side} added", io["added"], limit)
        lines += _list(f"{side} removed", io["removed"], limit)
        lines += _list(f"{side} changed", [f"{c['a']}: {c['a_type']} -> {c['b']}: {c['b_type']}"
                                           for c in io["changed"]], limit)
        singular = side[:-1]
        lines += _list(f"{side} declared again in B only", [f"{r['name']} ({singular} {r['position']})"
                                                            for r in io["repeats_added"]], limit)
        lines += _list(f"{side} declared again in A only", [f"{r['name']} ({singular} {r['position']})"
                                                            for r in io["repeats_removed"]], limit)
    lines += _list("values not compared", [_not_compared_text(e) for e in j["values_not_compared"]], limit)
    lines += _list("renamed", [f"{x} -> {y}" for x, y in j["renamed"]], limit)
    return lines


def _not_compared_text(e: dict) -> str:
    name = e["a"] if e["a"] == e["b"] else f"{e['a']} -> {e['b']}"
    where = f"weight {name}" if "weight" in e else f"node {name}, attribute {e['attribute']}"
    return f"{where}: values not compared: {e['reason']}"


def model_line(d: ModelDiff) -> list[str]:
    """Opset imports and IR version: a re-export to another opset runs
    other versions of its operators, so it is said even when every node pairs."""
    return [f"model:    {', '.join(c.text for c in d.model_fields)}"] if d.model_fields else []


def _constants_last(nodes: list) -> list[str]:
    return [node_label(n) for n in sorted(nodes, key=is_constant_node)]


def _matched_line(counts: dict) -> str:
    """Paired computing nodes of each side out of that side's computing
    nodes: dividing by every node, Constant and folded ones included, would
    call a re-export that folds shape arithmetic half different. Short: the
    Compare window shows it in one line above the canvases."""
    a, b = counts["a"], counts["b"]
    return (f"matched:  {a['computing_matched']} of {a['computing']} computing nodes in A, "
            f"{b['computing_matched']} of {b['computing']} in B (apart, A/B: constants "
            f"{a['constants']}/{b['constants']}, rewritten {a['rewritten']}/{b['rewritten']})")


def _weight_text(w: dict) -> str:
    name = w["a"] if w["a"] == w["b"] else f"{w['a']} -> {w['b']}"
    if "dtype" in w or "shape" in w:
        parts = []
        if "dtype" in w:
            parts.append(f"dtype {w['dtype'][0]} -> {w['dtype'][1]}")
        if "shape" in w:
            parts.append(f"shape {w['shape'][0]} -> {w['shape'][1]}")
        if "values_not_compared" in w:
            parts.append(f"values not compared: {w['values_not_compared']}")
        return f"{name}: {', '.join(parts)}"
    return (f"{name}: max abs {w['max_abs']:.4g}, max rel {w['max_rel']:.4g}, "
            f"{100 * w['share_changed']:.3g} % of elements changed")

