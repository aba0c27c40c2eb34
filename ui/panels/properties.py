"""Read-only properties of whatever is selected: a node, a value, an
initializer, a collapsed group, or the model itself.

Rendered as HTML (built by summaries.py) in a QTextBrowser; links to other IR objects (producer,
consumers, subgraphs) are registered in `_links` and emitted as `navigate`
when clicked, so the main window can select them on the canvas.
"""
from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import Qt, QUrl, Signal
from PySide6.QtGui import QCursor, QDesktopServices
from PySide6.QtWidgets import QSplitter, QTextBrowser, QToolTip, QVBoxLayout, QWidget

from ...core.edits import graph_path, typed_output
from ...core.ir import Node, Value
from ...core.layout import ViewEdge, ViewNode
from .. import turns
from .editor_slot import EditorSlot
from .node_editor import NodeEditor
from .value_editor import ValueEditor
from .html import STYLE, esc
from .summaries import Summaries
from .tensor_slot import TensorSlot
from .initializer_values import InitializerValues


class PropertiesPanel(QWidget):
    navigate = Signal(object)        # an ir.Node, ir.Value or ir.Graph to show

    def __init__(self, prompter, selected_on_canvas, parent=None):
        """`prompter`: the window's Prompter, for the forms' questions;
        `selected_on_canvas()`: what the canvas has selected, for the tensor
        editor (see TensorEditor)."""
        super().__init__(parent)
        self.prompter = prompter
        self.model = None
        self.qdoc = None
        self.current = None              # the object shown (refreshed after edits)
        self.inferred = {}               # value -> type lookup (the document's)
        self._links: dict[str, object] = {}
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._clicked)
        self.browser.highlighted.connect(self._hovered)
        self.initializer_values = InitializerValues()
        self.initializer_values.setVisible(False)
        # The editable form of what is shown (node, value, model), under the summary.
        self.editor_area = EditorSlot()
        self._forms_later = 0             # see forms_later
        self._built_form = None           # a form built on one turn, shown on the next (see _form_due)
        # Not in a turn where other deferred work ran (the run's value tags: ui/turns.py).
        self._form_timer = turns.slice_timer(self, self._form_due)
        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(self.browser)
        splitter.addWidget(self.editor_area)
        splitter.addWidget(self.initializer_values)
        self.splitter = splitter
        # The initializer / tensor attribute being edited, under the form.
        self.tensor_slot = TensorSlot(splitter, self.initializer_values, selected_on_canvas)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    # -- entry points --------------------------------------------------------------

    def set_document(self, qdoc) -> None:
        """Show the document's model; redraw what is shown when it changes."""
        self.qdoc = qdoc
        qdoc.changed.connect(self._document_changed)
        qdoc.analysed.connect(self.refresh)
        self.set_model(qdoc.document.model, qdoc.types)

    @property
    def editor(self):
        """The form under the summary (None when what is shown has none)."""
        return self.editor_area.editor

    def _document_changed(self, event) -> None:
        if event.kind == "saved":
            return
        self.editor_area.drop_kept()
        editor = self.editor
        node = editor.node if isinstance(editor, NodeEditor) else None
        if node is not None and node is self.current and node.graph is not None \
                and editor.shape() == editor.built_shape:
            # Same fields as before: update them in place, keeping the focus
            # where the user is typing (rebuilding would drop it).
            self._render_node_summary(node)
            editor.sync()
            if self.tensor_editor is not None:
                self.tensor_editor.sync()
            return
        self.refresh()

    def refresh(self) -> None:
        """Show the current object again (new types, an edit)."""
        obj = self.current
        if isinstance(obj, ViewNode):
            obj = obj.node or obj.value     # a layout box: show what it stood for
        if isinstance(obj, (Node, Value)) and obj.graph is None:
            obj = None                      # removed by the edit
        from .model_editor import ModelEditor
        editor = self.editor
        if obj is None and self.current is None and isinstance(editor, ModelEditor) \
                and editor.qdoc is self.qdoc and editor.shape() == editor.built_shape:
            # The model stays shown: its form is updated in place and the
            # summary redrawn only when its text changed (an edit deep in the
            # graph, new types: usually neither).
            editor.sync()
            self._render_model_summary()
            return
        self.show_object(obj)

    def set_model(self, model, inferred=None) -> None:
        self.model = model
        self.inferred = inferred if inferred is not None else {}
        self.show_model()

    def show_object(self, obj) -> None:
        """Dispatch on what `obj` is: a layout ViewNode/ViewEdge or an IR object."""
        self.current = obj
        if obj is None:
            return self.show_model()
        if isinstance(obj, ViewNode):
            if obj.node is not None:
                return self.show_node(obj.node)
            if obj.value is not None:
                return self.show_value(obj.value)
            return self.show_group(obj)
        if isinstance(obj, ViewEdge):
            return self.show_value(obj.value)
        if isinstance(obj, Node):
            return self.show_node(obj)
        if isinstance(obj, Value):
            return self.show_value(obj)
        return self.show_model()

    # -- rendering -----------------------------------------------------------------

    def _render(self, body: str, tensor=None, tensor_name: str = "") -> None:
        muted = self.palette().color(self.palette().ColorRole.PlaceholderText).name()
        self.browser.setHtml((STYLE % {"muted": muted}) + body)
        self.initializer_values.setVisible(tensor is not None)
        if tensor is not None:
            self.initializer_values.set_tensor(tensor, tensor_name)

    def _link(self, obj, text: str) -> str:
        key = f"obj{len(self._links)}"
        self._links[key] = obj
        return f"<a href='internal:{key}'>{esc(text)}</a>"

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == "dim":         # an abbreviated dim: its full name shows on hover
            return
        if url.scheme() == "internal":
            target = self._links.get(url.path())
            if target is not None:
                self.navigate.emit(target)
        else:
            QDesktopServices.openUrl(url)

    def _summaries(self):
        """The summary HTML of the model shown, its links registered here."""
        return Summaries(self.model, self.inferred, self._links, self._link)

    def show_model(self) -> None:
        self.current = None
        if self.qdoc is not None and self.model is not None:
            from .model_editor import ModelEditor
            self._set_editor(ModelEditor(self.qdoc))
        else:
            self._set_editor(None)
        self._model_body = None
        self._render_model_summary()

    def _render_model_summary(self) -> None:
        links, self._links = self._links, {}
        if self.model is None:
            return self._render(self._summaries().model_html())
        body = self._summaries().model_html()
        if body == getattr(self, "_model_body", None) and self._links.keys() == links.keys() \
                and all(self._links[k] is links[k] or self._links[k] == links[k] for k in links):
            return          # nothing it shows changed: keep the page (and its scroll position)
        self._model_body = body
        self._render(body)

    def show_node(self, node) -> None:
        self.current = node
        self._render_node_summary(node)
        if self.qdoc is None or node.graph is None:
            return self._set_editor(None)
        self._keep_built_form()
        form = self.editor_area.kept_form(self.qdoc, node)
        if form is None and self._forms_later:
            self.tensor_slot.keep_for(None)
            self.editor_area.blank()
            self._form_timer.start()
            return
        self._set_editor(form or self._new_node_form(node))

    @contextmanager
    def forms_later(self):
        """Within it, a node form that has to be built is built on the next
        turn of the event loop, the summary shown at once: a step's stop
        (the canvas, the tags) and the form it needs are then two short
        pauses, not one long one; steps faster than forms build only the
        last one's."""
        self._forms_later += 1
        try:
            yield
        finally:
            self._forms_later -= 1

    def _form_due(self) -> None:
        self._keep_built_form()
        node = self.current
        if not (isinstance(node, Node) and self.editor is None and node.graph is not None and self.qdoc is not None):
            return
        form = self.editor_area.kept_form(self.qdoc, node)
        if form is not None:
            return self._set_editor(form)
        # A node of a kind no kept form fits: building its form and putting
        # it into the dock (laying out and polishing its widgets) are ~10 ms
        # each on an idle machine, several times that on a loaded one, while
        # a step's stop has just held the loop: one turn each.
        self._built_form = self._new_node_form(node)
        self._form_timer.start()

    def _keep_built_form(self) -> None:
        """A form built on the turn before (for the node shown or one stepped
        past since) goes to the kept forms, to be shown where it fits."""
        built, self._built_form = self._built_form, None
        if built is not None:
            self.editor_area.keep(built)

    def _new_node_form(self, node):
        editor = NodeEditor(self.qdoc, node)
        editor.navigate.connect(self.navigate)
        editor.open_tensor.connect(self.open_tensor_editor)
        return editor

    def extend_canvas_menu(self, item, menu) -> None:
        """Canvas context menu: "Make Graph Output" on an edge or a node's outputs."""
        if self.qdoc is None:
            return
        ref = getattr(item, "ref", None)       # canvas items without one: the background, titles
        values = []
        if isinstance(ref, ViewNode) and ref.node is not None:
            values = [v for v in ref.node.outputs if v is not None]
        elif isinstance(ref, (ViewNode, ViewEdge)) and ref.value is not None:
            values = [ref.value]
        for value in values:
            if value.graph is not None and not value.is_graph_output:
                menu.addAction(self.tr("Make {name} a Graph Output").format(name=value.name),
                               lambda v=value: self._make_output(v, graph_path(v.graph)))

    def _make_output(self, value, gpath) -> None:
        # Declared with its inferred type when the file gives it none, as the
        # value and model forms do: an output without a type is a file
        # onnx's checker refuses.
        self.qdoc.apply(typed_output(value, self.qdoc.document.type_of(value), gpath))

    def _set_editor(self, editor) -> None:
        """Put `editor` (a form widget, or None) under the summary."""
        self.tensor_slot.keep_for(editor)
        if editor is not None:
            editor.built_shape = editor.shape()
        self.editor_area.put(editor)
        if editor is not None:
            self.tensor_slot.fit_form()

    # -- the tensor editor (initializers, tensor attributes) -------------------------------

    @property
    def tensor_editor(self):
        """The tensor editor shown under the form (None when none is)."""
        return self.tensor_slot.editor

    def open_tensor_editor(self, node, attr) -> None:
        """A node's tensor attribute ("Edit tensor…") in the tensor editor."""
        self.tensor_slot.show_attribute(self.qdoc, node, attr)

    def _hovered(self, url: QUrl) -> None:
        if url.scheme() == "dim" and isinstance(self._links.get(url.path()), str):
            QToolTip.showText(QCursor.pos(), self._links[url.path()], self.browser)
        else:
            QToolTip.hideText()

    def _render_node_summary(self, node) -> None:
        self._links.clear()
        self._render(self._summaries().node_html(node))

    def show_value(self, value) -> None:
        self.current = value
        if self.qdoc is not None and value.graph is not None:
            self._set_editor(ValueEditor(self.qdoc, value, self.prompter))
        else:
            self._set_editor(None)
        self._links.clear()
        body, tensor = self._summaries().value_html(value)
        self._render(body, tensor, value.name)
        self.tensor_slot.show_value(self.qdoc, value, tensor)

    def show_group(self, vnode) -> None:
        self._set_editor(None)
        self._links.clear()
        body = self._summaries().group_html(vnode)
        self._render(body)

