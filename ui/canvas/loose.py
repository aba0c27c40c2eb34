"""Nodes dropped from the palette that read and feed nothing yet: shown
where they were dropped, rather than where the layout puts them, until
they are wired."""
from __future__ import annotations

from PySide6.QtCore import QPointF

from ..canvas_edits import CanvasEdits


class LoosePlacements:
    def __init__(self):
        self._placed: dict = {}     # id(node) -> (node, scene point)

    def place(self, node, scene_pos) -> None:
        self._placed[id(node)] = (node, QPointF(scene_pos))

    def apply(self, scene, graph) -> None:
        """Move the boxes of the loose nodes of `graph` (shown in `scene`) to
        their drop points; forget nodes wired or removed since."""
        for key, (node, pos) in list(self._placed.items()):
            if node.graph is None or not CanvasEdits.is_loose(node):
                del self._placed[key]
                continue
            item = scene.item_for_node(node) if node.graph is graph else None
            if item is not None and item.ref is not None and item.ref.node is node:
                item.setPos(item.pos() + (pos - item.sceneBoundingRect().center()))
