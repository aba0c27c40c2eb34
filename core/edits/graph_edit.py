"""The edits that work inside one graph, named by its path (refs.py)."""
from __future__ import annotations

from typing import Optional

from .base import Changes, Edit
from .refs import find_graph


class GraphEdit(Edit):
    """An edit of the graph at path `self.graph`: `apply` finds the graph
    (EditError naming the step that does not resolve) and hands it to
    `edit_graph`, which does the edit and returns the inverse."""

    def apply(self, model, changes: Optional[Changes] = None) -> Edit:
        g = find_graph(model, self.graph)
        return self.edit_graph(model, g, changes if changes is not None else Changes())

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        raise NotImplementedError
