"""What is selected on one canvas, named by the model's objects (a node, a
value, a collapsed group's key) so that it outlives the scene: a new layout
rebuilds every item, and what was selected is selected again.

A value read in many places (a weight shared by every layer) has many
edges: the one nearest to what was selected, else to the middle of the
view, is the one shown, not whichever the scene listed first. A selected
edge lights up the other edges of its value, so a mask or a residual read
by many layers can be followed across the canvas.
"""
from __future__ import annotations

from onnxstudio.core.ir import Node, Value
from .items import EdgeItem, NodeItem


class CanvasSelection:
    def __init__(self, scene, view):
        self.scene = scene
        self.view = view
        self._lit: list = []        # edges lit because another edge of their value is selected

    def light_value_edges(self) -> int:
        """Light every edge carrying the value of a selected edge (the
        selected ones are drawn as selected); the edges lit for the last
        selection go dark. Returns how many are lit."""
        for item in self._lit:
            try:
                item.highlighted = False
                item.update()
            except RuntimeError:       # gone with an earlier scene
                pass
        self._lit = []
        values = {id(item.ref.value): item.ref.value for item in self.scene.selectedItems()
                  if isinstance(item, EdgeItem) and item.ref is not None and item.ref.value is not None}
        for value in values.values():
            for edge in self.scene.edges_of_value(value):
                if not edge.isSelected():
                    edge.highlighted = True
                    edge.update()
                    self._lit.append(edge)
        return len(self._lit)

    def refs(self) -> list:
        """What is selected: a node, or a value (its edge or input/output
        box); a collapsed group's box has neither and is named by its key."""
        return [item.ref.value if isinstance(item, EdgeItem) else item.ref.node or item.ref.value or item.key
                for item in self.scene.selectedItems()
                if isinstance(item, (NodeItem, EdgeItem)) and item.ref is not None]

    def restore(self, refs) -> bool:
        """Select again the items of `refs` (from refs()) in the scene shown
        now; objects an edit removed are passed over. True when any was found."""
        found = [item for obj in refs if isinstance(obj, str) or obj.graph is not None
                 for item in ([self.scene.node_items.get(obj)] if isinstance(obj, str)
                              else [self.scene.item_for_node(obj)] if isinstance(obj, Node)
                              else self.scene.items_for_value(obj))]
        for item in found:
            if item is not None:
                item.setSelected(True)
        return any(found)

    def select(self, obj) -> bool:
        """Select `obj` (ir.Node or ir.Value) and centre the view on it; False
        when the scene shows no item for it."""
        items = []
        if isinstance(obj, Node):
            item = self.scene.item_for_node(obj)
            items = [item] if item is not None else []
        elif isinstance(obj, Value):
            items = self.scene.items_for_value(obj)
        if not items:
            return False
        anchor = self._anchor()
        nearest = min(items, key=lambda i: _distance(i.sceneBoundingRect().center(), anchor))
        self.scene.clearSelection()
        for item in items:
            item.setSelected(True)
        self.view.center_on_item(nearest, zoom=1.0)
        return True

    def reader_near(self, value):
        """Of the nodes reading `value` (a weight shared by many layers), the
        one nearest to the selected item, else to the middle of the view;
        None when none is on the canvas."""
        shown = [(n, self.scene.item_for_node(n)) for n, _slot in value.uses]
        shown = [(n, item) for n, item in shown if item is not None]
        if not shown:
            return None
        anchor = self._anchor()
        return min(shown, key=lambda p: _distance(p[1].sceneBoundingRect().center(), anchor))[0]

    def _anchor(self):
        """The point "near" is measured from: the first selected item, else the middle of the view."""
        selected = self.scene.selectedItems()
        return (selected[0].sceneBoundingRect().center() if selected
                else self.view.visible_scene_rect().center())


def _distance(a, b) -> float:
    return ((a.x() - b.x()) ** 2 + (a.y() - b.y()) ** 2) ** 0.5
