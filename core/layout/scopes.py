"""Name-scope groups: from exporter node names to a tidy group tree.

Exporters name nodes like "/m/encoder/layer.3/attention/self/MatMul": the
path before the last "/" is the module that emitted the node.  torch's
dynamo exporter records that path in the node's metadata instead
(`node_scope`).  Raw scopes are noisy, so we tidy them:

* a scope holding every scoped node of the graph ("/m/...") is dropped
  (unscoped nodes, and nodes alone in their top scope, do not count: a node
  the user adds by hand, named "Neg" or "/x/Neg", must not wrap the whole
  model in a new "m" group);
* a scope whose only content is one sub-scope is merged with it
  ("attention" holding only "self" becomes "attention/self");
* a scope with fewer than two nodes is dissolved into its parent.
"""
from __future__ import annotations

import functools
from collections import Counter

from .geometry import GroupPath


@functools.lru_cache(maxsize=1 << 17)      # every re-layout asks again for the same 10k names
def raw_scope(node_name: str) -> GroupPath:
    """("m", "encoder", "layer.3") for "/m/encoder/layer.3/MatMul"; () when unscoped."""
    if "/" not in node_name:
        return ()
    parts = node_name.split("/")[:-1]
    return tuple(p for p in parts if p)


# torch's dynamo exporter names nodes "node_MatMul_12", with no scope, and
# records the module each node came from in its metadata_props instead, as the
# repr of the module call stack: "['', 'net', 'net.layers.0', 'net.layers.0.mlp',
# 'gelu']" (the last entry is the node's own torch name). Without it a
# dynamo-exported vit_base showed 487 ungrouped boxes, laid out in 1.8 s cold
# (0.1 s for the legacy export of the same model, grouped by layer).
TORCH_NAME_SCOPES = "pkg.torch.onnx.name_scopes"
# What torch records for nodes of no module (the sizes of dynamic axes, read
# once for the whole model): not a scope, or "net" would no longer hold every
# node and stay as a group around the model.
NO_MODULE = "_empty_nn_module_stack"


def node_scope(node) -> GroupPath:
    """A node's raw scope: from its name, else from the module path torch's
    dynamo exporter recorded for it; () when it has neither."""
    name = node.name or ""
    if "/" in name:
        return raw_scope(name)
    props = node.metadata_props
    recorded = props.get(TORCH_NAME_SCOPES) if props else None
    return torch_scope(recorded) if recorded else ()


@functools.lru_cache(maxsize=1 << 17)
def torch_scope(recorded: str) -> GroupPath:
    """("net", "layers.0", "mlp") for "['', 'net', 'net.layers.0', 'net.layers.0.mlp', 'gelu']":
    each module named by what it adds to its parent's path, as the legacy
    exporter's names have it ("/net/layers.0/mlp/..."); an item of a called
    Sequential keeps the Sequential's name ("layer4.0" in "layer4", as
    "/layer4/layer4.0/relu/Relu"); () for anything but a list of module paths."""
    entries = module_paths(recorded)
    if entries is None:
        return ()
    path, parent = [], ""
    for entry in entries[:-1]:          # the last one is the node itself
        if not entry or entry.startswith(NO_MODULE):
            continue
        part = entry[len(parent) + 1:] if parent and entry.startswith(parent + ".") else entry
        if part.isdigit() and path:
            part = f"{path[-1]}.{part}"
        if part:
            path.append(part)
        parent = entry
    return tuple(path)


def module_paths(recorded: str):
    """The strings of a list's repr ("['', 'a', 'a.b']"), or None. Module paths
    hold no quotes or backslashes, so a split does; anything else is parsed
    properly (and refused unless it is a list of strings)."""
    if recorded.startswith("['") and recorded.endswith("']") and "\\" not in recorded \
            and recorded.count("'") == 2 * (recorded.count("', '") + 1):
        return recorded[2:-2].split("', '")
    import ast
    try:
        value = ast.literal_eval(recorded)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def tidy_scopes(raw: list[GroupPath]) -> list[GroupPath]:
    """Display group paths, one per entry of `raw` (the scopes of visible nodes)."""
    # Counted per distinct scope: a 10k-node model has a few thousand, and
    # walking every node's prefixes was a third of a re-layout's view. Plain
    # dicts, and a set only for a scope's first child (Counter's += on a new
    # key and setdefault's throwaway set cost more than the counting).
    direct: Counter = Counter(raw)
    tops: dict = {}
    for path, n in direct.items():
        if path:
            tops[path[0]] = tops.get(path[0], 0) + n
    total = sum(c for c in tops.values() if c >= 2)
    count: dict = {}
    children: dict[GroupPath, set] = {}
    for path, n in direct.items():
        parent: GroupPath = ()
        for d in range(1, len(path) + 1):
            prefix = path[:d]
            count[prefix] = count.get(prefix, 0) + n
            siblings = children.get(parent)
            if siblings is None:
                children[parent] = {prefix}
            else:
                siblings.add(prefix)
            parent = prefix
    memo: dict[GroupPath, GroupPath] = {(): ()}

    def display(path: GroupPath) -> GroupPath:
        if path in memo:
            return memo[path]
        parent_raw = path[:-1]
        parent = display(parent_raw)
        if count[path] < 2:
            out = parent                       # too small to be worth a box
        elif parent == () and count[path] == total:
            out = ()                           # holds every scoped node: says nothing
        elif parent_raw and direct.get(parent_raw, 0) == 0 and len(children[parent_raw]) == 1 \
                and len(parent) > len(display(parent_raw[:-1])):
            out = parent[:-1] + (parent[-1] + "/" + path[-1],)   # merge a single-child chain
        else:
            out = parent + (path[-1],)
        memo[path] = out
        return out

    shown = {p: display(p) for p in direct}
    return list(map(shown.__getitem__, raw))     # per node: the loop in C


def default_expanded(paths: list[GroupPath], budget: int) -> set[GroupPath]:
    """Open groups level by level while the number of boxes stays within budget.

    `paths` holds the display group of every visible node.  With everything
    opened the count is len(paths); each closed group shows as one box.
    """
    all_groups = {p[:d] for p in paths for d in range(1, len(p) + 1)}
    expanded: set[GroupPath] = set()
    depth = 1
    while True:
        level = {g for g in all_groups if len(g) == depth and g[:-1] in expanded | {()}}
        if not level:
            return expanded
        trial = expanded | level
        if _box_count(paths, trial) > budget:
            return expanded
        expanded = trial
        depth += 1


def _box_count(paths: list[GroupPath], expanded: set[GroupPath]) -> int:
    boxes = set()
    for i, p in enumerate(paths):
        boxes.add(visible_box(p, expanded) or ("node", i))
    return len(boxes)


def visible_box(path: GroupPath, expanded: set[GroupPath]):
    """The outermost closed group that hides a node with this path, or None."""
    for d in range(1, len(path) + 1):
        if path[:d] not in expanded:
            return path[:d]
    return None


def follow_expanded(expanded: set, old_paths: dict, nodes, new_paths) -> set:
    """The open groups after an edit moved group paths (a node renamed into or
    out of the scope every other node shares adds or drops a root level):
    a new group is open when it holds the same nodes as a group that was
    open before (or as the whole graph, which is always open). `old_paths`:
    id(node) -> display path before; `nodes`/`new_paths`: now. Unchanged
    paths stay as they are; the common case costs one set lookup per path."""
    new_groups = {p[:d] for p in set(new_paths) for d in range(1, len(p) + 1)}
    if all(p in new_groups for p in expanded):
        return expanded
    old_members: dict = {}
    new_members: dict = {}
    grouped = []
    for n, path in zip(nodes, new_paths):
        before = old_paths.get(id(n))
        if before is None:
            continue                # new node: it may not decide which groups stay open
        if path:
            grouped.append(id(n))
        for d in range(1, len(before) + 1):
            old_members.setdefault(before[:d], []).append(id(n))
        for d in range(1, len(path) + 1):
            new_members.setdefault(path[:d], []).append(id(n))
    was_open = {frozenset(old_members[p]) for p in expanded if p in old_members}
    # The whole graph is always open: a new group holding every grouped node was it.
    was_open.add(frozenset(grouped))
    out = {p for p in expanded if p in new_groups}
    out.update(p for p, members in new_members.items() if frozenset(members) in was_open)
    return out
