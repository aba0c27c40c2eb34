"""Read-only properties of whatever is selected: a node, a value, an
initializer, a collapsed group, or the model itself.

Rendered as HTML in a QTextBrowser; links to other IR objects (producer,
consumers, subgraphs) are registered in `_links` and emitted as `navigate`
when clicked, so the main window can select them on the canvas.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QSplitter, QTextBrowser, QToolTip, QVBoxLayout, QWidget
from PySide6.QtGui import QCursor
from PySide6.QtCore import Qt

from ...core.edits import graph_path, typed_output
from ...core.exec.tensor_stats import tensor_stats
from ...core.ir import AttrType, Node, SparseTensor, Value
from ...core.layout import ViewEdge, ViewNode
from ...core.layout.labels import element_type_named, int_limit_named, limits_legend
from ...core.summary import human_bytes
from .. import turns
from ..canvas.scene import value_type_text
from ..canvas.words import group_path_text, shown_label
from .editor_slot import EditorSlot
from .node_editor import NodeEditor
from .value_editor import ValueEditor
from .html import STYLE, esc, operator_url, section, short_type, table
from .tensor_slot import TensorSlot
from .tensor_view import TensorView

MAX_LIST = 200          # consumers listed before "… and N more"
MAX_ATTR_ITEMS = 64     # list attribute items shown before "… (N items)"
# Larger initializers get no statistics in the summary: they cost ~17 ms a MB
# (bert_small's 30 MB embedding about half a second, llama_2gb's 250 MB 4 s).
# Above the tensor editor's LOAD_NOW_BYTES, so its "Load values" reads them.
STATS_NOW_BYTES = 32 << 20
ATTR_TYPE_NAMES = {1: "float", 2: "int", 3: "string", 4: "tensor", 5: "graph", 6: "floats",
                   7: "ints", 8: "strings", 9: "tensors", 10: "graphs", 11: "sparse tensor",
                   12: "sparse tensors", 13: "type", 14: "types"}   # the spec's names: not translated
STAT_NAMES = {"min": QT_TRANSLATE_NOOP("PropertiesPanel", "min"),
              "max": QT_TRANSLATE_NOOP("PropertiesPanel", "max"),
              "mean": QT_TRANSLATE_NOOP("PropertiesPanel", "mean"),
              "std": QT_TRANSLATE_NOOP("PropertiesPanel", "std")}


def stat_rows(stats) -> list[tuple[str, str]]:
    """(name, text) rows for a tensor's statistics, core's one definition
    (as the tensor editor and the run inspector show them): min, max, mean
    and std over the finite elements, then how many are NaN or infinite;
    none for strings, an empty tensor or one not read."""
    if stats is None or not stats.numeric or not stats.count:
        return []
    rows = [(k, f"{getattr(stats, k):.6g}") for k in ("min", "max", "mean", "std")
            if getattr(stats, k) is not None]
    rows += [(what, str(n)) for what, n in (("NaN", stats.nan), ("+Inf", stats.posinf), ("-Inf", stats.neginf))
             if n]
    return rows


class PropertiesPanel(QWidget):
    navigate = Signal(object)        # an ir.Node, ir.Value or ir.Graph to show

    def __init__(self, parent=None):
        super().__init__(parent)
        self.model = None
        self.qdoc = None
        self.current = None              # the object shown (refreshed after edits)
        self.inferred = {}               # value -> type lookup (the document's)
        self._links: dict[str, object] = {}
        self.browser = QTextBrowser()
        self.browser.setOpenLinks(False)
        self.browser.anchorClicked.connect(self._clicked)
        self.browser.highlighted.connect(self._hovered)
        self.tensor_view = TensorView()
        self.tensor_view.setVisible(False)
        # The editable form of what is shown (node, value, model), under the summary.
        self.editor_area = EditorSlot()
        self._forms_later = 0             # see forms_later
        self._built_form = None           # a form built on one turn, shown on the next (see _form_due)
        # Not in a turn where other deferred work ran (the run's value tags: ui/turns.py).
        self._form_timer = turns.slice_timer(self, self._form_due)
        splitter = QSplitter(Qt.Vertical)
        splitter.addWidget(self.browser)
        splitter.addWidget(self.editor_area)
        splitter.addWidget(self.tensor_view)
        self.splitter = splitter
        # The initializer / tensor attribute being edited, under the form.
        self.tensor_slot = TensorSlot(splitter, self.tensor_view)
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
        self.tensor_view.setVisible(tensor is not None)
        if tensor is not None:
            self.tensor_view.set_tensor(tensor, tensor_name)

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

    def _value_row(self, value) -> tuple[str, str]:
        if value is None:
            return ("", "<span class='muted'>" + self.tr("(omitted)") + "</span>")
        kind = self.tr(" · initializer") if value.is_initializer else ""
        text = value_type_text(value, self.inferred)
        return (self._link(value, value.name), short_type(value, self.inferred, self._links, text) + kind)

    def _value_list(self, values) -> str:
        """Name on one line, type below it: long names and long symbolic shapes
        both fit a narrow dock this way."""
        lines = []
        for value in values:
            name, detail = self._value_row(value)
            lines.append(f"{name}<br><span class='muted'>&nbsp;&nbsp;{detail}</span>" if name else detail)
        return "<br>".join(lines) or "—"

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
        m = self.model
        if m is None:
            return self._render("<p class='muted'>" + esc(self.tr("No model open.")) + "</p>")
        graph = m.graph
        rows = [(self.tr("file"), esc(m.path) if m.path else "—"), (self.tr("IR version"), m.ir_version),
                (self.tr("opsets"), esc(", ".join(f"{d or 'ai.onnx'} {v}" for d, v in m.opset_imports.items()))),
                (self.tr("producer"), esc(f"{m.producer_name} {m.producer_version}".strip() or "—")),
                (self.tr("domain"), esc(m.domain or "—")), (self.tr("model version"), m.model_version),
                (self.tr("graph"), esc(graph.name or "—")), (self.tr("nodes"), len(graph.nodes)),
                (self.tr("initializers"), len(graph.initializers)),
                (self.tr("training info"), self.tr("present") if m.training_info else self.tr("none"))]
        body = "<h2>" + esc(self.tr("Model")) + "</h2>" + table(rows)
        if m.doc_string:
            body += section(self.tr("Documentation"), f"<pre style='white-space: pre-wrap'>{esc(m.doc_string)}</pre>")
        if m.metadata_props:
            body += section(self.tr("Metadata"), table((esc(k), esc(v)) for k, v in m.metadata_props.items()))
        body += section(self.tr("Inputs"), self._value_list(graph.inputs))
        body += section(self.tr("Outputs"), self._value_list(graph.outputs))
        if m.functions:
            body += section(self.tr("Functions"), table(
                (esc(f"{d}::{n}" + (f":{o}" if o else "")),
                 self._link(f.graph, (self.tr("{n} node") if len(f.graph.nodes) == 1
                                      else self.tr("{n} nodes")).format(n=len(f.graph.nodes))))
                for (d, n, o), f in m.functions.items()))
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
        url = operator_url(node.op_type, node.domain)
        title = f"<a href='{url}'>{esc(node.op_type)}</a>" if url else esc(node.op_type)
        rows = [(self.tr("name"), esc(node.name or self.tr("(unnamed)"))),
                (self.tr("domain"), esc(node.domain or "ai.onnx")), (self.tr("location"), esc(node.path))]
        if self.model is not None and (node.domain, node.op_type, node.overload) in self.model.functions:
            function = self.model.functions[(node.domain, node.op_type, node.overload)]
            rows.append((self.tr("function"), self._link(function.graph, self.tr("open body"))))
        body = f"<h2>{title}</h2>{table(rows)}"
        body += section(self.tr("Inputs"), self._value_list(node.inputs))
        body += section(self.tr("Outputs"), self._value_list(node.outputs))
        if node.attributes:
            # Name over value, like inputs: long lists (tree ensembles carry
            # thousands of numbers) would squeeze a two-column table to slivers.
            body += section(self.tr("Attributes"), "<br>".join(
                f"<b>{esc(a.name)}</b><br>&nbsp;&nbsp;{self._attr_text(a)}"
                for a in node.attributes.values()))
        if node.doc_string:
            body += section(self.tr("Documentation"),
                            f"<pre style='white-space: pre-wrap'>{esc(node.doc_string)}</pre>")
        self._render(body)

    def _attr_text(self, attr) -> str:
        kind = ATTR_TYPE_NAMES.get(int(attr.type), str(attr.type))
        if attr.ref_attr_name:
            return f"→ {esc(attr.ref_attr_name)} <span class='muted'>{kind}</span>"
        value = attr.value
        if int(attr.type) == AttrType.GRAPH:
            n = len(value.nodes)
            text = self._link(value, (self.tr("graph {name} ({n} node)") if n == 1
                                      else self.tr("graph {name} ({n} nodes)")).format(
                name=value.name or "", n=n).replace("  ", " "))
        elif int(attr.type) == AttrType.GRAPHS:
            text = ", ".join(self._link(g, g.name or self.tr("graph {i}").format(i=i)) for i, g in enumerate(value))
        elif int(attr.type) == AttrType.TENSOR:
            text = esc(f"{getattr(value.dtype, 'name', value.dtype)}"
                       f"{list(value.shape)}") + self._small_tensor(value)
        elif int(attr.type) == AttrType.SPARSE_TENSOR and value is not None:
            dtype = value.values.dtype
            text = esc(f"{getattr(dtype, 'name', dtype)}{list(value.dims)} " + self.tr(
                "(sparse: {stored} of {total} elements stored)").format(
                stored=value.values.size, total=int(np.prod(value.dims, dtype=np.int64))))
        elif (named := element_type_named(attr)) is not None:
            text = esc(f"{named} ({value})")     # as on the box: "to = bool"
        elif isinstance(value, (list, tuple)):
            shown = ", ".join(_short(v) for v in value[:MAX_ATTR_ITEMS])
            more = (self.tr(", … ({n} items)").format(n=len(value))
                    if len(value) > MAX_ATTR_ITEMS else "")
            text = esc(f"[{shown}{more}]") + _limits_note(value[:MAX_ATTR_ITEMS])
        elif (named := int_limit_named(value)) is not None:
            text = esc(f"{named} ({value})")     # as on the box: "ends = INT64_MAX"
        else:
            text = esc(_short(value))
        return f"{text} <span class='muted'>{kind}</span>"

    @staticmethod
    def _small_tensor(tensor) -> str:
        try:
            if tensor.nbytes <= 256:
                array = tensor.numpy()
                text = str(array.tolist())
                if array.dtype.kind in "iu":       # INT64_MAX named, as on the box
                    text = np.array2string(array, separator=", ", threshold=array.size + 1,
                                           formatter={"int": lambda v: int_limit_named(int(v)) or str(v)})
                    return " = " + esc(text) + _limits_note(array.reshape(-1).tolist())
                if array.dtype == np.bool_:       # true/false, as the box and the tensor editor write them
                    text = text.replace("True", "true").replace("False", "false")
                return " = " + esc(text)
        except Exception:   # noqa: BLE001 - a value we cannot decode is shown without data
            pass
        return ""

    def show_value(self, value) -> None:
        self.current = value
        if self.qdoc is not None and value.graph is not None:
            self._set_editor(ValueEditor(self.qdoc, value))
        else:
            self._set_editor(None)
        self._links.clear()
        vtype = value_type_text(value, self.inferred)
        declared = value.type is not None or value.is_initializer   # typed by its data
        rows = [(self.tr("type"), short_type(value, self.inferred, self._links, vtype or self.tr("unknown"))
                 + ("" if declared or not vtype
                    else " <span class='muted'>" + esc(self.tr("(inferred)")) + "</span>"))]
        producer = value.producer
        if producer is not None:
            rows.append((self.tr("producer"), self._link(producer, producer.display_name)))
        elif value.is_graph_input:
            rows.append((self.tr("producer"), self.tr("graph input")))
        uses = value.uses
        consumers = ", ".join(self._link(n, f"{n.display_name}[{i}]") for n, i in uses[:MAX_LIST])
        if len(uses) > MAX_LIST:
            consumers += self.tr(" … and {n} more").format(n=len(uses) - MAX_LIST)
        rows.append((self.tr("consumers"), consumers or "—"))
        if value.is_graph_output:
            rows.append((self.tr("graph output"), self.tr("yes")))
        tensor = value.const if value.is_initializer else None
        title = self.tr("Initializer") if tensor is not None else self.tr("Value")
        if tensor is None and producer is not None and producer.op_type == "Constant":
            # Exporters often store weights as Constant nodes: show them like initializers.
            for name, attr_type in (("value", AttrType.TENSOR), ("sparse_value", AttrType.SPARSE_TENSOR)):
                attr = producer.attributes.get(name)
                if attr is not None and int(attr.type) == attr_type and attr.value is not None:
                    tensor, title = attr.value, "Constant"     # the op's name
                    break
        body = f"<h2>{title} {esc(value.name)}</h2>{table(rows)}"
        if tensor is not None:
            body += self._initializer_section(tensor)
        if value.doc_string:
            body += section(self.tr("Documentation"),
                            f"<pre style='white-space: pre-wrap'>{esc(value.doc_string)}</pre>")
        self._render(body, tensor, value.name)
        self.tensor_slot.show_value(self.qdoc, value, tensor)

    def _initializer_section(self, tensor) -> str:
        from .tensor_editor import LOAD_NOW_BYTES
        sparse = isinstance(tensor, SparseTensor)   # values, indices, dims
        values = tensor.values if sparse else tensor
        shape = list(tensor.dims if sparse else tensor.shape)
        rows = [(self.tr("dtype"), esc(getattr(values.dtype, "name", values.dtype))),
                (self.tr("shape"), esc(shape))]
        if sparse:
            size = int(np.prod(shape, dtype=np.int64))
            rows.append((self.tr("stored"), esc(self.tr("sparse: {stored} of {total} elements ({size})").format(
                stored=values.size, total=size, size=human_bytes(values.nbytes + tensor.indices.nbytes)))))
        else:
            rows.append((self.tr("size"), human_bytes(tensor.nbytes)))
        if values.is_external:
            rows.append((self.tr("stored in"), esc(values.external_location)))
        try:
            if sparse:      # densified only when small: the tensor editor reads large ones on request
                small = values.size == 0 or size * values.nbytes // values.size <= LOAD_NOW_BYTES
                stats = tensor_stats(tensor.to_dense()) if small else None
            elif tensor.unreadable is not None:
                tensor.numpy()      # refused at once, naming it: not "not read yet"
            elif tensor.nbytes > STATS_NOW_BYTES:
                # Selecting must stay quick: a 250 MB embedding took 4 s here.
                # The tensor editor below reads the values when asked.
                stats = None
                rows.append((self.tr("statistics"), esc(self.tr(
                    "not read yet ({size}): “Load values” in the editor below reads them").format(
                        size=human_bytes(tensor.nbytes)))))
            else:
                stats = tensor_stats(tensor.numpy())
        except Exception as exc:   # noqa: BLE001 - e.g. external file missing
            stats = None
            rows.append((self.tr("data"), esc(self.tr("cannot be read: {error}").format(error=exc))))
        rows.extend((self.tr(STAT_NAMES.get(k, k)), v) for k, v in stat_rows(stats))
        return section(self.tr("Tensor"), table(rows))

    def show_group(self, vnode) -> None:
        self._set_editor(None)
        self._links.clear()
        path = group_path_text(vnode.group or ())
        title = self.tr("Group {path}").format(path=path)
        hint = self.tr("Double-click the box to expand it.")
        body = f"<h2>{esc(title)}</h2><p class='muted'>{esc(hint)}</p>"
        lines = shown_label(vnode.label).lines      # "12 nodes" in the UI's language, as on the box
        body += section(self.tr("Contents"), table((esc(line), "") for line in lines))
        self._render(body)


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    named = int_limit_named(value)
    if named is not None:
        return named
    if isinstance(value, bytes):
        return repr(value)
    text = str(value)
    return text if len(text) <= 200 else text[:200] + "…"


def _limits_note(values) -> str:
    """The exact numbers behind the names a list shows: " (INT64_MAX =
    9223372036854775807)" after [0, INT64_MAX]."""
    legend = limits_legend({int_limit_named(v) for v in values})
    return f" <span class='muted'>({esc(legend)})</span>" if legend else ""
