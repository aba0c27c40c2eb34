"""Tree ensembles (ai.onnx.ml): TreeEnsembleRegressor, TreeEnsembleClassifier
(ml opsets 1 and 3) and TreeEnsemble (ml opset 5).

All three are turned into one flat forest: node arrays indexed by a global
node number, leaves being nodes too. Evaluation moves every (row, tree)
pair one level down per step with array indexing, so the Python loop runs
once per tree level, never per row or per node."""
from __future__ import annotations

import threading
from dataclasses import dataclass, field

import numpy as np

from ..registry import kernel
from ._ml_util import POST_TRANSFORM_CODES, as_2d_float, floats, labels_array
from ._ml_util import post_transform as apply_transform
from ._tensor_util import ints

ML = "ai.onnx.ml"
LEQ, LT, GTE, GT, EQ, NEQ, MEMBER, LEAF = range(8)
_MODE_NAMES = {"BRANCH_LEQ": LEQ, "BRANCH_LT": LT, "BRANCH_GTE": GTE, "BRANCH_GT": GT,
               "BRANCH_EQ": EQ, "BRANCH_NEQ": NEQ, "BRANCH_MEMBER": MEMBER, "LEAF": LEAF}
_COMPARE = {LEQ: np.less_equal, LT: np.less, GTE: np.greater_equal, GT: np.greater,
            EQ: np.equal, NEQ: np.not_equal}


@dataclass
class Forest:
    feature: np.ndarray       # int64 [nodes] (0 for leaves)
    split: np.ndarray         # threshold [nodes]
    mode: np.ndarray          # int8 [nodes], one of the codes above
    true_next: np.ndarray     # int64 [nodes] global index of the true child
    false_next: np.ndarray
    missing_true: np.ndarray  # bool [nodes]: NaN goes to the true child
    roots: np.ndarray         # int64 [trees]
    members: dict = field(default_factory=dict)   # node -> set values (MEMBER)

    def __post_init__(self):
        n = self.mode.size
        leaf = self.mode == LEAF
        # Leaves point at themselves, so walking a fixed number of levels
        # needs no "still active" masks.
        self.children = np.stack([np.where(leaf, np.arange(n), self.false_next),
                                  np.where(leaf, np.arange(n), self.true_next)], axis=1)
        self.branch_modes = [int(m) for m in np.unique(self.mode) if m != LEAF]
        self.track_nan = bool(self.missing_true.any())
        self.depth, frontier = 0, np.unique(self.roots)
        while frontier.size and not leaf[frontier].all():
            if self.depth > n:
                raise ValueError("tree ensemble has a cycle")
            frontier = np.unique(self.children[frontier[~leaf[frontier]]])
            self.depth += 1

    def leaves(self, x):
        """Global index of the leaf each row reaches in each tree: [rows, trees]."""
        rows = np.arange(x.shape[0])[:, None]
        cur = np.broadcast_to(self.roots, (x.shape[0], self.roots.size))
        for _ in range(self.depth):
            v = x[rows, self.feature[cur]]
            cur = self.children[cur, self._condition(cur, v).view(np.int8)]
        return cur

    def _condition(self, cur, v):
        modes = self.branch_modes
        if len(modes) == 1 and modes[0] != MEMBER:
            cond = _COMPARE[modes[0]](v, self.split[cur])
        else:
            mode = self.mode[cur]
            cond = np.zeros(cur.shape, dtype=bool)
            for m in modes:
                at = mode == m
                cond[at] = self._member(cur[at], v[at]) if m == MEMBER else _COMPARE[m](v[at], self.split[cur[at]])
        if self.track_nan:
            cond |= np.isnan(v) & self.missing_true[cur]
        return cond

    def _member(self, nodes, values):
        out = np.zeros(nodes.shape, dtype=bool)
        # One pass per distinct set-membership node, vectorised over rows.
        for n in np.unique(nodes):
            at = nodes == n
            out[at] = np.isin(values[at], self.members[int(n)])
        return out


_BUILT: dict = {}
_BUILT_LOCK = threading.Lock()


def _cached(kind, attrs, build):
    """build() once per set of attribute objects: the session passes the same
    decoded attribute lists on every run, so the forest is parsed once. The
    entry keeps the objects alive, so their ids cannot be reused meanwhile."""
    key = (kind,) + tuple(id(a) for a in attrs)
    hit = _BUILT.get(key)
    if hit is not None and all(a is b for a, b in zip(hit[0], attrs)):
        return hit[1]
    value = build()
    with _BUILT_LOCK:           # sessions may run in several threads
        while len(_BUILT) >= 16:
            _BUILT.pop(next(iter(_BUILT)))
        _BUILT[key] = (tuple(attrs), value)
    return value


def _legacy_forest(nodes_treeids, nodes_nodeids, nodes_featureids, nodes_modes, nodes_values,
                   nodes_values_as_tensor, nodes_truenodeids, nodes_falsenodeids,
                   nodes_missing_value_tracks_true):
    """Forest from the (tree id, node id) addressed attributes of ml opsets 1/3;
    returns it with a lookup turning (tree ids, node ids) into global indices."""
    tree = np.asarray(nodes_treeids, dtype=np.int64)
    node = np.asarray(nodes_nodeids, dtype=np.int64)
    keys = (tree << 32) | node
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]

    def lookup(tids, nids):
        k = (np.asarray(tids, dtype=np.int64) << 32) | np.asarray(nids, dtype=np.int64)
        pos = np.searchsorted(sorted_keys, k)
        if np.any(pos >= sorted_keys.size) or np.any(sorted_keys[np.minimum(pos, sorted_keys.size - 1)] != k):
            raise ValueError("tree ensemble refers to a node that does not exist")
        return order[pos]

    mode = np.array([_MODE_NAMES[m] for m in nodes_modes], dtype=np.int8)
    leaf = mode == LEAF
    true_next = np.where(leaf, 0, 0)
    false_next = true_next.copy()
    inner = ~leaf
    true_next[inner] = lookup(tree[inner], np.asarray(nodes_truenodeids, dtype=np.int64)[inner])
    false_next[inner] = lookup(tree[inner], np.asarray(nodes_falsenodeids, dtype=np.int64)[inner])
    # A root is a node nobody points at; take one per tree, in tree-id order.
    is_child = np.zeros(tree.size, dtype=bool)
    is_child[true_next[inner]] = True
    is_child[false_next[inner]] = True
    candidates = np.flatnonzero(~is_child)
    roots = candidates[np.unique(tree[candidates], return_index=True)[1]]
    missing = np.zeros(tree.size, dtype=bool)
    if nodes_missing_value_tracks_true:
        missing[:] = np.asarray(nodes_missing_value_tracks_true, dtype=bool)
    forest = Forest(feature=np.where(leaf, 0, np.asarray(nodes_featureids, dtype=np.int64)),
                    split=floats(nodes_values, nodes_values_as_tensor), mode=mode,
                    true_next=true_next, false_next=false_next, missing_true=missing, roots=roots)
    return forest, lookup


def _leaf_table(n_nodes, n_targets, nodes, targets, weights):
    """Dense [node, target] weights plus a mask of which entries exist."""
    table = np.zeros((n_nodes, n_targets), dtype=np.float64)
    present = np.zeros((n_nodes, n_targets), dtype=bool)
    np.add.at(table, (nodes, targets), weights)
    present[nodes, targets] = True
    return table, present


def _aggregate(leaf_idx, table, present, how):
    picked = table[leaf_idx]                     # [rows, trees, targets]
    if how in ("SUM", "AVERAGE"):
        total = picked.sum(axis=1)
        return total / leaf_idx.shape[1] if how == "AVERAGE" else total
    mask = present[leaf_idx]
    fill = np.inf if how == "MIN" else -np.inf
    reduced = (np.min if how == "MIN" else np.max)(np.where(mask, picked, fill), axis=1)
    # A target no tree contributed to stays 0 (before the base value).
    return np.where(mask.any(axis=1), reduced, 0.0)


def _evaluate(forest, x, table, present, how):
    """(scores [rows, targets], reached [rows, targets]) in row chunks, so the
    [rows, trees, targets] intermediates stay around 32 MB for big batches."""
    per_row = forest.roots.size * max(table.shape[1], 1)
    step = max(1, (1 << 22) // max(per_row, 1))
    scores, reached = [], []
    for start in range(0, x.shape[0], step):
        leaf_idx = forest.leaves(x[start:start + step])
        scores.append(_aggregate(leaf_idx, table, present, how))
        reached.append(present[leaf_idx].any(axis=1))
    if not scores:
        return np.zeros((0, table.shape[1])), np.zeros((0, table.shape[1]), bool)
    return np.concatenate(scores), np.concatenate(reached)


@kernel("TreeEnsembleRegressor", since=1, domain=ML)
def tree_ensemble_regressor(X, aggregate_function="SUM", base_values=None, base_values_as_tensor=None,
                            n_targets=1, nodes_falsenodeids=None, nodes_featureids=None,
                            nodes_hitrates=None, nodes_hitrates_as_tensor=None,
                            nodes_missing_value_tracks_true=None, nodes_modes=None, nodes_nodeids=None,
                            nodes_treeids=None, nodes_truenodeids=None, nodes_values=None,
                            nodes_values_as_tensor=None, post_transform="NONE", target_ids=None,
                            target_nodeids=None, target_treeids=None, target_weights=None,
                            target_weights_as_tensor=None):
    # Opset 3 only added the *_as_tensor (double precision) alternatives.
    x = as_2d_float(X)
    node_attrs = (nodes_treeids, nodes_nodeids, nodes_featureids, nodes_modes, nodes_values,
                  nodes_values_as_tensor, nodes_truenodeids, nodes_falsenodeids,
                  nodes_missing_value_tracks_true)
    leaf_attrs = (target_treeids, target_nodeids, target_ids, target_weights, target_weights_as_tensor)

    def build():
        forest, lookup = _legacy_forest(*node_attrs)
        return (forest,) + _leaf_table(forest.mode.size, n_targets, lookup(target_treeids, target_nodeids),
                                       ints(target_ids), floats(target_weights, target_weights_as_tensor))
    forest, table, present = _cached("regressor", node_attrs + leaf_attrs + (n_targets,), build)
    scores, reached = _evaluate(forest, x, table, present, aggregate_function)
    base = floats(base_values, base_values_as_tensor)
    if base is not None and base.size:
        # onnxruntime leaves a target that no leaf reached at 0, base and all.
        scores = np.where(reached, scores + base, 0.0)
    return apply_transform(scores, post_transform).astype(np.float32)


def _binary_classes(labels, scores, class_id, post, weights_positive):
    """Two classes scored by one column, the way onnxruntime reports them:
    the column is the second class's score s; the label is the second class
    when s passes 0.5 (all weights positive) or 0 (otherwise)."""
    s = scores[:, class_id]
    label = labels_array(labels, (s > (0.5 if weights_positive else 0.0)).astype(np.int64))
    if class_id == 1:
        # The first column simply stays at its base value.
        return label, apply_transform(scores, post).astype(np.float32)
    if post == "LOGISTIC":
        p = apply_transform(s, "LOGISTIC")
        both = [1 - p, p]
    elif post == "PROBIT":
        p = apply_transform(s, "PROBIT")
        both = [1 - p, p]
    else:
        both = [1 - s, s] if weights_positive else [-s, s]
    return label, np.stack(both, axis=1).astype(np.float32)


@kernel("TreeEnsembleClassifier", since=1, domain=ML)
def tree_ensemble_classifier(X, base_values=None, base_values_as_tensor=None, class_ids=None,
                             class_nodeids=None, class_treeids=None, class_weights=None,
                             class_weights_as_tensor=None, classlabels_int64s=None,
                             classlabels_strings=None, nodes_falsenodeids=None, nodes_featureids=None,
                             nodes_hitrates=None, nodes_hitrates_as_tensor=None,
                             nodes_missing_value_tracks_true=None, nodes_modes=None, nodes_nodeids=None,
                             nodes_treeids=None, nodes_truenodeids=None, nodes_values=None,
                             nodes_values_as_tensor=None, post_transform="NONE"):
    x = as_2d_float(X)
    labels = list(classlabels_strings) if classlabels_strings else ints(classlabels_int64s)
    n_classes = len(labels)
    node_attrs = (nodes_treeids, nodes_nodeids, nodes_featureids, nodes_modes, nodes_values,
                  nodes_values_as_tensor, nodes_truenodeids, nodes_falsenodeids,
                  nodes_missing_value_tracks_true)
    leaf_attrs = (class_treeids, class_nodeids, class_ids, class_weights, class_weights_as_tensor)
    ids = np.asarray(ints(class_ids), dtype=np.int64)

    def build():
        forest, lookup = _legacy_forest(*node_attrs)
        return (forest,) + _leaf_table(forest.mode.size, max(n_classes, int(ids.max(initial=0)) + 1),
                                       lookup(class_treeids, class_nodeids), ids,
                                       floats(class_weights, class_weights_as_tensor))
    forest, table, present = _cached("classifier", node_attrs + leaf_attrs + (n_classes,), build)
    scores = _evaluate(forest, x, table, present, "SUM")[0][:, :max(n_classes, 1)]
    base = floats(base_values, base_values_as_tensor)
    if base is not None and base.size:
        scores = scores + base[:scores.shape[1]]
    if n_classes == 2 and np.unique(ids).size == 1:
        return _binary_classes(labels, scores, int(ids[0]), post_transform,
                               bool(np.min(table[present], initial=0) >= 0))
    # The label is taken from float32 scores so that near-ties resolve to
    # the first class as in onnxruntime, which accumulates in float32.
    scores = apply_transform(scores, post_transform).astype(np.float32)
    return labels_array(labels, np.argmax(scores, axis=1)), scores


def _v5_forest(nodes_featureids, nodes_splits, nodes_modes, nodes_truenodeids, nodes_trueleafs,
               nodes_falsenodeids, nodes_falseleafs, nodes_missing_value_tracks_true, tree_roots,
               membership_values, n_leaves):
    n = len(nodes_featureids)
    # Leaves get global numbers after the interior nodes.
    true_next = np.asarray(nodes_truenodeids, np.int64) + n * np.asarray(nodes_trueleafs, bool)
    false_next = np.asarray(nodes_falsenodeids, np.int64) + n * np.asarray(nodes_falseleafs, bool)
    mode = np.concatenate([np.asarray(nodes_modes).reshape(-1).astype(np.int8),
                           np.full(n_leaves, LEAF, np.int8)])
    pad = np.zeros(n_leaves, np.int64)
    missing = np.zeros(n + n_leaves, bool)
    if nodes_missing_value_tracks_true:
        missing[:n] = np.asarray(nodes_missing_value_tracks_true, bool)
    splits = np.asarray(nodes_splits).reshape(-1)
    members = {}
    if membership_values is not None:
        # One NaN-terminated group of values per MEMBER node, in node order.
        values = np.asarray(membership_values, dtype=np.float64).reshape(-1)
        groups = np.split(values, np.flatnonzero(np.isnan(values)))
        groups = [g[~np.isnan(g)] for g in groups]
        for node, group in zip(np.flatnonzero(mode[:n] == MEMBER), groups):
            members[int(node)] = group
    return Forest(feature=np.concatenate([np.asarray(nodes_featureids, np.int64), pad]),
                  split=np.concatenate([splits, np.zeros(n_leaves, splits.dtype)]), mode=mode,
                  true_next=np.concatenate([true_next, pad]), false_next=np.concatenate([false_next, pad]),
                  missing_true=missing, roots=np.asarray(tree_roots, np.int64), members=members)


@kernel("TreeEnsemble", since=5, domain=ML)
def tree_ensemble(X, aggregate_function=1, leaf_targetids=None, leaf_weights=None,
                  membership_values=None, n_targets=None, nodes_falseleafs=None,
                  nodes_falsenodeids=None, nodes_featureids=None, nodes_hitrates=None,
                  nodes_missing_value_tracks_true=None, nodes_modes=None, nodes_splits=None,
                  nodes_trueleafs=None, nodes_truenodeids=None, post_transform=0, tree_roots=None):
    x = X if X.ndim == 2 else X.reshape(X.shape[0], -1)
    attrs = (leaf_targetids, leaf_weights, membership_values, n_targets, nodes_falseleafs,
             nodes_falsenodeids, nodes_featureids, nodes_missing_value_tracks_true, nodes_modes,
             nodes_splits, nodes_trueleafs, nodes_truenodeids, tree_roots)

    def build():
        targets = np.asarray(ints(leaf_targetids), np.int64)
        n_leaves, n_inner = targets.size, len(nodes_featureids)
        forest = _v5_forest(nodes_featureids, nodes_splits, nodes_modes, nodes_truenodeids,
                            nodes_trueleafs, nodes_falsenodeids, nodes_falseleafs,
                            nodes_missing_value_tracks_true, tree_roots, membership_values, n_leaves)
        n_out = n_targets if n_targets is not None else int(targets.max(initial=-1)) + 1
        return (forest,) + _leaf_table(n_inner + n_leaves, n_out, n_inner + np.arange(n_leaves), targets,
                                       np.asarray(leaf_weights, np.float64).reshape(-1))
    forest, table, present = _cached("v5", attrs, build)
    how = ["AVERAGE", "SUM", "MIN", "MAX"][aggregate_function]
    scores = _evaluate(forest, x, table, present, how)[0]
    return apply_transform(scores, POST_TRANSFORM_CODES[post_transform]).astype(X.dtype)
