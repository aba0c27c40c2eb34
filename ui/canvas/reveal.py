"""Revealing an object the user asked for (a search hit, a problem, a node
an edit just made): the target waits until the canvas shows its level, and
each collapsed group hiding it is opened on the way, one layout at a time.
"""
from __future__ import annotations

from onnxstudio.core.ir import Node, Value

MAX_REVEAL_STEPS = 32     # nested groups opened while revealing one target


def target_node(obj):
    """Initializers and values are revealed through the node that uses or makes them."""
    if isinstance(obj, Node):
        return obj
    if isinstance(obj, Value) and obj.is_initializer and obj.uses:
        return obj.uses[0][0]
    return None


class PendingReveal:
    """The object to select once the next layout is shown (None: nothing)."""

    def __init__(self):
        self.target = None
        self.asked = None       # what was asked for: an initializer, where the target is its reader
        self._steps = 0

    def set(self, obj, asked=None) -> None:
        self.target = obj
        self.asked = asked if asked is not None else obj
        self._steps = 0

    def take(self):
        target, self.target = self.target, None
        return target

    def open_hiding_group(self, view_model, level) -> bool:
        """If the target sits in a collapsed group of `view_model`, mark that
        group (and its parents) open on `level` and return True: the level
        must be laid out again before the target can be shown."""
        anchor = _anchor(self.target)
        if anchor is None or self._steps >= MAX_REVEAL_STEPS:
            return False
        box_id = view_model.box_for(anchor)
        vnode = view_model.nodes.get(box_id) if box_id else None
        if vnode is None or vnode.kind != "group":
            return False
        self._steps += 1
        path = tuple(vnode.group)
        expanded = set(level.expanded or ())
        expanded.update(path[:i] for i in range(1, len(path) + 1))
        level.expanded = expanded
        level.view_state = None
        return True


def _anchor(target):
    """The node whose box must show for `target` to show: the node itself;
    for a value its producer, else (a graph input) its first reader, so
    that the value's edge is drawn."""
    if isinstance(target, Node):
        return target
    if isinstance(target, Value):
        if target.producer is not None:
            return target.producer
        if target.uses:
            return target.uses[0][0]
    return None
