"""Primitive edits of one node in place: its fields and its attributes."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Optional

from ..ir import Attr, IRError
from .attr_values import check_attr_value
from .base import Changes, Edit, EditError, register
from .graph_edit import GraphEdit
from .refs import GraphPath, NodeRef, find_node, node_ref

@register
@dataclass
class SetNodeField(GraphEdit):
    """Set one of a node's string fields: name, op_type, domain, overload, doc_string."""
    kind: ClassVar[str] = "set_node_field"
    node: NodeRef
    field: str
    value: str
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        old = getattr(node, self.field, None)
        try:
            node.set_field(self.field, self.value)
        except IRError as e:
            raise EditError(str(e)) from None
        changes.node(node)
        # The node may now be found under its new name.
        return SetNodeField(node_ref(node), self.field, old, self.graph)

    def describe(self) -> str:
        return f"Set {self.field} of node {self.node if isinstance(self.node, str) else self.node}"

    def merge_key(self):
        return ("node-field", self.graph, str(self.node), self.field)


@register
@dataclass
class SetAttribute(GraphEdit):
    """Add, replace or (with `type=None`) remove the attribute `name` of a node.

    `value` is the attribute's Python value (int, float, str, list of those,
    numpy array for TENSOR, ...); `ref_attr_name` makes it a reference to an
    attribute of the enclosing function instead. `restore` is only set on
    inverses: the exact Attr object to put back, so undo is lossless."""
    kind: ClassVar[str] = "set_attribute"
    node: NodeRef
    name: str
    type: Optional[int] = None
    value: Any = None
    ref_attr_name: str = ""
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata={"json": False})

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        if not self.name:
            raise EditError(f"{node.path}: an attribute needs a name")
        position = None
        if self.restore is not None:
            new, position = self.restore if isinstance(self.restore, tuple) else (self.restore, None)
        elif self.type is None:
            new = None
            if self.name not in node.attributes:
                raise EditError(f'{node.path}: no attribute "{self.name}" to remove')
        else:
            new = make_attr(node, self.name, self.type, self.value, self.ref_attr_name)
        if new is None:
            old = node.remove_attribute(self.name)
        else:
            old = node.set_attribute(new, position)
        changes.node(node)
        ref = node_ref(node)
        if old is None:
            return SetAttribute(ref, self.name, None, graph=self.graph)
        # The exact Attr goes back, in its place among the others.
        return SetAttribute(ref, self.name, old[0].type, None, old[0].ref_attr_name, self.graph, restore=old)

    def describe(self) -> str:
        verb = "Remove" if self.type is None and self.restore is None else "Set"
        return f"{verb} attribute {self.name}"

    def as_script_edit(self) -> Optional[Edit]:
        """The attribute put back by its type and value (its place among the
        others and its doc string are not kept)."""
        if self.restore is None:
            return self
        attr = self.restore[0] if isinstance(self.restore, tuple) else self.restore
        return SetAttribute(self.node, self.name, attr.type, attr.value, attr.ref_attr_name, self.graph)

    def merge_key(self):
        return ("attr", self.graph, str(self.node), self.name)


def make_attr(node, name: str, type: int, value, ref_attr_name: str = "") -> Attr:  # noqa: A002  (Attr's own name)
    """A new Attr for `node`, the value checked against `type` (EditError naming the place)."""
    if ref_attr_name:
        return Attr(name, int(type), None, ref_attr_name=ref_attr_name)
    try:
        value = check_attr_value(int(type), value)
    except (TypeError, ValueError) as e:
        raise EditError(f'{node.path}/attribute "{name}": {e}') from None
    return Attr(name, int(type), value)
