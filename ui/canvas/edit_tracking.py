"""What the edits since the last layout did to the shown level: which
boxes are stale (the next pinned re-layout labels and measures only those)
and whether an edit can be shown by relabelling boxes in place, with no
re-layout at all.
"""
from __future__ import annotations

from onnxstudio.core.layout.labels import op_label

from .scene import measure_label
from .words import shown_label


class EditTracker:
    def __init__(self):
        # ids of nodes/values edited since the shown view was built (None: all of
        # them may be): the next pinned re-layout labels and measures only those.
        self._stale: set | None = set()
        self._names: dict = {}      # id(node) -> name when the shown level was laid out
        self._inputs: dict = {}     # id(node) -> its inputs then
        self._graph = None          # the graph those are of
        self._touched: list = []    # nodes the edits since then changed or added

    def laid_out(self, graph) -> None:
        """The shown view of `graph` is up to date."""
        stale, self._stale = self._stale, set()
        touched, self._touched = self._touched, []
        if stale is not None and graph is self._graph:
            # Only what the edits since the last layout touched can differ:
            # reading all 10k nodes again cost ~15 ms after every edit.
            for node in touched:
                if node.graph is graph:
                    self._names[id(node)] = node.name
                    self._inputs[id(node)] = tuple(node.inputs)
            return
        self._graph = graph
        # Names decide groups: an edit of a hidden node that keeps its name needs no re-layout.
        self._names = {id(n): n.name for n in graph.nodes}
        # Inputs decide edges and folded constants: a node whose inputs changed is laid out again.
        self._inputs = {id(n): tuple(n.inputs) for n in graph.nodes}

    def stale_ids(self) -> set | None:
        """A copy of the stale ids (None: everything may be stale)."""
        return None if self._stale is None else set(self._stale)

    def note(self, changes) -> None:
        if self._stale is None:
            return
        if changes.values_renamed or changes.graph_io or changes.functions or changes.model_fields:
            self._stale = None          # names, foldable values or schemas may differ: label everything
            return
        stale = self._stale
        for node in changes.nodes_changed | changes.nodes_added:
            self._touched.append(node)
            stale.add(id(node))
            stale.update(id(v) for v in node.outputs if v is not None)
        stale.update(id(v) for v in changes.values_retyped | changes.initializers)
        for graph in changes.graphs:    # a body edited: the node holding it may show it
            while graph is not None and graph.parent_node is not None:
                stale.add(id(graph.parent_node))
                graph = graph.parent_node.graph

    def relabel_in_place(self, changes, scene, graph) -> bool:
        """Relabel the boxes of the nodes `changes` touched in `graph` (shown
        in `scene`) if every one keeps its size and its wiring; False (and
        nothing changed) when the level must be laid out again."""
        if changes.structural or changes.values_retyped or changes.value_info:
            return False
        updates = []
        for node in changes.nodes_changed:
            if node.graph is not graph:
                continue
            item = scene.item_for_node(node)
            if item is not None and item.kind == "group" and item.ref is not None and item.ref.node is None \
                    and self._names.get(id(node)) == node.name:
                continue        # inside a collapsed group, same name (same scope): its box stays as it is
            if item is None or item.ref is None or item.ref.node is not node \
                    or not _same_objects(self._inputs.get(id(node)), node.inputs):
                return False
            if self._names.get(id(node)) != node.name:
                return False    # a name decides the box's group (its scope) and its box id: lay out again
            old = item.ref.label
            folded = len(item.ref.folded)
            label = op_label(node, [])
            label = type(old)(old.kind, label.title, label.lines + (old.lines[-folded:] if folded else ()))
            width, height = measure_label(label)
            if abs(height - item.rect.height()) > 0.5 or width > item.rect.width() + 0.5:
                return False
            updates.append((item, label))
        for item, label in updates:
            item.ref.label = label
            shown = shown_label(label)
            item.title, item.lines = shown.title, list(shown.lines)
            item.update()
        return True


def _same_objects(before, now) -> bool:
    return before is not None and len(before) == len(now) and all(a is b for a, b in zip(before, now))
