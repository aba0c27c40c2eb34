"""The tensor editor under the Properties summary: an initializer's values
or a node's tensor attribute, edited in place. It stays (refreshed) while
the same value or node stays shown, so an edit does not lose the slice
being looked at; showing anything else closes it.
"""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QScrollArea

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
    def __init__(self, splitter, initializer_values, selected_on_canvas):
        self.splitter = splitter            # summary, form, read-only tensor view, then this editor
        self.initializer_values = initializer_values
        self.selected_on_canvas = selected_on_canvas    # for the editor: see TensorEditor
        self.editor = None                  # the TensorEditor shown, if any
        self.holder = None                  # the scroll area holding it in the splitter
        self.sizes_before = None            # the splitter's sizes before the editor took most of it

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
            self.editor, holder, self.holder = None, self.holder, None
            holder.setParent(None)
            holder.deleteLater()        # and the editor with it
            self._give_back_room(form)

    def show(self, qdoc, source) -> None:
        self.keep_for(None)
        self.sizes_before = self.splitter.sizes()
        self.editor = TensorEditor(qdoc, source, self.selected_on_canvas)
        # Scrolled when the dock is shorter than its minimum (a dozen table
        # rows, the histogram: ~560 px): added bare, that minimum was added
        # to the form's and the summary's and the main window grew taller
        # than the screen of a laptop.
        self.holder = QScrollArea()
        self.holder.setWidgetResizable(True)
        self.holder.setFrameShape(QFrame.NoFrame)
        self.holder.setWidget(self.editor)
        self.splitter.addWidget(self.holder)
        self.initializer_values.setVisible(False)
        # The form gets what its rows need (up to a third): the editor's own
        # minimum (a dozen table rows, the histogram: ~560 px) left the form
        # a squeezed sliver when shares were fixed. The values get the rest
        # but a fifth for the summary, and never less than their minimum.
        # The room of the summary, the form and the editor: two handles between them.
        # The summary keeps a readable part (a fifth, or its first lines):
        # given the editor's whole minimum, at 1280x740 it was left no room
        # at all; the editor scrolls instead.
        total = self.splitter.height() - 2 * self.splitter.handleWidth()
        form = min(self._form_wants(), total // 3)
        summary = max(total // 5, self._summary_wants())
        values = max(total - form - summary, min(self.editor.minimumSizeHint().height(), total // 3))
        self.splitter.setSizes([max(0, total - form - values), form, 0, values])

    def _summary_wants(self, lines: int = 7) -> int:
        """The height of the summary's first `lines` lines (all of it when shorter)."""
        browser = self.splitter.widget(0)
        spacing = browser.fontMetrics().lineSpacing()
        content = int(browser.document().size().height()) if browser.document() is not None else 0
        frame = 2 * browser.frameWidth()
        return frame + min(content or lines * spacing, lines * spacing + spacing // 2)

    def _form_wants(self, form=None) -> int:
        """The height `form` (by default the one under the summary) needs to
        show all its rows; 0 when there is none."""
        area = self.splitter.widget(1)          # the EditorSlot
        form = form if form is not None else getattr(area, "editor", None)
        return form.sizeHint().height() + 2 * area.frameWidth() if form is not None else 0

    def fit_form(self) -> None:
        """The form just shown gets the height its rows need (up to three
        fifths of the dock), taken from the summary above it. Qt's first
        split left a form a ~60 px strip under a tall summary with its
        fields behind a scroll bar. Only ever grows the form, so a split the
        user dragged wider stays; beside the tensor editor `show` decides."""
        if self.editor is not None:
            return
        sizes = self.splitter.sizes()
        total = sum(sizes)
        if total <= 0 or len(sizes) < 2:
            return
        want = min(self._form_wants(), total * 3 // 5)
        if sizes[1] >= want:
            return
        sizes[0] = max(0, sizes[0] - (want - sizes[1]))
        sizes[1] = want
        self.splitter.setSizes(sizes)

    def _give_back_room(self, form) -> None:
        """The editor closed: its room goes back to the summary and the form
        as they were before it opened; the form gets at least what it needs
        (up to half), so a form is never left squeezed (it was left at the
        share it had beside the editor)."""
        before, self.sizes_before = self.sizes_before, None
        total = sum(self.splitter.sizes())
        if not before or total <= 0:
            return
        form = max(before[1], min(self._form_wants(form), total // 2))
        initializer_values = self.splitter.sizes()[2] if self.initializer_values.isVisible() else 0
        self.splitter.setSizes([max(0, total - form - initializer_values), form, initializer_values])

    def show_value(self, qdoc, value, tensor) -> None:
        """The tensor shown for `value`, when it can be edited (kept if shown already)."""
        if qdoc is None or value.graph is None:
            return
        source = tensor_source_for(value, tensor)
        if source is None:
            return
        if self.editor is None:
            self.show(qdoc, source)
        self.initializer_values.setVisible(False)

    def show_attribute(self, qdoc, node, attr) -> None:
        """A node's tensor attribute ("Edit tensor…")."""
        self.show(qdoc, TensorSource(node=node, attr_name=attr.name))
