"""The tensor editor under the Properties summary: an initializer's values
or a node's tensor attribute, edited in place. It stays (refreshed) while
the same value or node stays shown, so an edit does not lose the slice
being looked at; showing anything else closes it.
"""
from __future__ import annotations

from .node_editor import NodeEditor
from .tensor_editor import TensorEditor, TensorSource
from .value_editor import ValueEditor


def tensor_source_for(value, tensor):
    """Where `tensor`, shown for `value`, is edited: the initializer itself, or
    the attribute of the Constant producing it; None when it is neither."""
    if tensor is None:
        return None
    if value.is_initializer:            # dense or sparse
        return TensorSource(value=value)
    attrs = value.producer.attributes    # a Constant's value or sparse_value
    name = next((n for n in ("value", "sparse_value") if n in attrs and attrs[n].value is tensor), None)
    return None if name is None else TensorSource(node=value.producer, attr_name=name)


class TensorSlot:
    def __init__(self, splitter, tensor_view):
        self.splitter = splitter            # summary, form, read-only tensor view, then this editor
        self.tensor_view = tensor_view
        self.editor = None                  # the TensorEditor shown, if any

    def keep_for(self, form) -> None:
        """Keep the editor when `form` (the form shown next: a NodeEditor,
        ValueEditor, other or None) shows the same value or node; else close it."""
        te = self.editor
        if te is None:
            return
        src = te.source
        shown_value = form.value if isinstance(form, ValueEditor) else None
        keep = form is not None and src.alive and (
            (src.value is not None and shown_value is src.value and src.value.is_initializer)
            or (src.node is not None and src.attr_name in src.node.attributes
                and ((isinstance(form, NodeEditor) and form.node is src.node)
                     or (shown_value is not None and shown_value.producer is src.node))))
        if keep:
            te.sync()
        else:
            self.editor = None
            te.setParent(None)
            te.deleteLater()

    def show(self, qdoc, source) -> None:
        self.keep_for(None)
        self.editor = TensorEditor(qdoc, source)
        self.splitter.addWidget(self.editor)
        self.tensor_view.setVisible(False)
        # The values get most of the dock: the table was squeezed to four rows.
        total = max(self.splitter.height(), 600)
        self.splitter.setSizes([int(total * 0.22), int(total * 0.14), 0, int(total * 0.64)])

    def show_value(self, qdoc, value, tensor) -> None:
        """The tensor shown for `value`, when it can be edited (kept if shown already)."""
        if qdoc is None or value.graph is None:
            return
        source = tensor_source_for(value, tensor)
        if source is None:
            return
        if self.editor is None:
            self.show(qdoc, source)
        self.tensor_view.setVisible(False)

    def show_attribute(self, qdoc, node, attr) -> None:
        """A node's tensor attribute ("Edit tensor…")."""
        self.show(qdoc, TensorSource(node=node, attr_name=attr.name))
