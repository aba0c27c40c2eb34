"""Search across node names (with the module path a dynamo export records
for each node), op types, value and initializer names and the values'
types and shapes — in the main graph, in every If/Loop/Scan body
and in model-local functions.

The index is a flat list built on the first query (0.3-0.35 s for the
10k-node synthetic model on a shared 2-core machine; types and shapes have
an index of their own, built on the first query holding a "["), so each
keystroke is a simple scan; the widget shows ranked hits and Enter
activates the current one.
"""
from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Qt, Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ..core.ir import Function
from ..core.layout.scopes import node_scope
from .canvas.scene import value_type_text

MAX_HITS = 500
# What the list calls each kind of hit (SearchHit.kind stays the English key).
KIND_NAMES = {"node": QT_TRANSLATE_NOOP("Search", "node"),
              "value": QT_TRANSLATE_NOOP("Search", "value"),
              "initializer": QT_TRANSLATE_NOOP("Search", "initializer")}


def _tr(text: str) -> str:
    return QCoreApplication.translate("Search", text)


@dataclass
class SearchHit:
    kind: str          # "node", "value", "initializer"
    text: str          # what matched (name or op type)
    label: str         # what the list shows
    graph: object      # the ir.Graph holding the object
    obj: object        # ir.Node or ir.Value
    where: str         # "main graph", "Loop body", "function f"...


def graph_location(graph) -> str:
    owner = graph.owner
    if isinstance(owner, Function):
        return QCoreApplication.translate("Search", "function {name}").format(name=owner.name)
    parent = graph.parent_node
    if parent is None:
        return QCoreApplication.translate("Search", "main graph")
    # The attribute, as the breadcrumbs: exporters give both If branches one graph name.
    body = graph.attr_name or graph.name or QCoreApplication.translate("Search", "body")
    return f"{parent.op_type} {parent.name or ''} › {body}".replace("  ", " ")


def all_graphs(model):
    """The main graph, its subgraphs, and every function body with its subgraphs."""
    yield from model.graph.walk()
    for function in model.functions.values():
        yield from function.graph.walk()


def build_index(model) -> list[tuple[str, SearchHit]]:
    entries: list[tuple[str, SearchHit]] = []
    for graph in all_graphs(model):
        where = graph_location(graph)
        for node in graph.nodes:
            if node.name:
                entries.append((node.name.lower(), SearchHit("node", node.name,
                                f"{node.name}  ({node.op_type})", graph, node, where)))
            scope = _recorded_module(node)
            if scope:
                module = "/".join(scope + (node.name or node.op_type,))
                hit = SearchHit("node", module, f"{module}  ({node.op_type})", graph, node, where)
                entries.append((module.lower(), hit))
                # torch's own spelling of the module too: "transformer.h.0.ln_1"
                entries.append((".".join(scope).lower(), hit))
            entries.append((node.op_type.lower(), SearchHit("node", node.op_type,
                            f"{node.op_type}  {node.name or ''}", graph, node, where)))
        for value in graph.values().values():
            kind = "initializer" if value.is_initializer else "value"
            entries.append((value.name.lower(), SearchHit(kind, value.name, value.name,
                                                          graph, value, where)))
    return entries


def _recorded_module(node) -> tuple:
    """The module path torch's dynamo exporter recorded for a node it named
    without one (("m", "transformer", "h.0", "ln_1") for "node_layer_norm":
    the canvas groups it by that path), so a search by module finds it as
    it finds a legacy export's "/m/transformer/h.0/ln_1/LayerNormalization";
    () for a node whose name holds its scope already, or that has none."""
    return () if "/" in (node.name or "") else node_scope(node)


def build_type_index(model, types=None) -> list[tuple[str, SearchHit]]:
    """Every value by its type and shape as its edge shows them
    ("float[1,64,56,56]"): declared types, and with `types` (the document's
    inferred types, `types.get(value)`) the inferred ones. Built apart from
    the names' index, for queries holding a "[" only: it costs as much
    again (~0.2 s on 10k nodes), which a search by name need not wait for."""
    entries: list[tuple[str, SearchHit]] = []
    for graph in all_graphs(model):
        where = graph_location(graph)
        for value in graph.values().values():
            shape = value_type_text(value, types)
            if shape:
                kind = "initializer" if value.is_initializer else "value"
                entries.append((shape.lower(), SearchHit(kind, shape, f"{value.name}  {shape}",
                                                         graph, value, where)))
    return entries


def is_type_query(text: str) -> bool:
    """A query that searches types and shapes too ("[1,64", "float16[")."""
    return "[" in text


def search(index, query: str, limit: int = MAX_HITS) -> list[SearchHit]:
    """Hits for `query`, best first: the whole key, then its start, then
    anywhere in it. Several words must all be found, in a node's name and op
    type together ("layer.2 softmax" finds /encoder/layer.2/attention/Softmax)."""
    q = query.strip().lower()
    if not q:
        return []
    terms = q.split()
    ranked = []
    for key, hit in index:
        if len(terms) > 1:
            obj = hit.obj
            hay = f"{key} {obj.op_type}".lower() if hit.kind == "node" else key
            if all(t in hay for t in terms):
                # The words describe a node ("layer.2 softmax"): it comes before the value it makes.
                ranked.append((2 if hit.kind == "node" else 3, len(hay), len(ranked), hit))
            continue
        pos = key.find(q)
        if pos < 0:
            continue
        rank = 0 if key == q else 1 if pos == 0 else 2
        ranked.append((rank, len(key), len(ranked), hit))
    ranked.sort(key=lambda r: r[:3])
    seen, hits = set(), []
    for *_, hit in ranked:
        marker = (id(hit.obj), hit.kind)
        if marker in seen:
            continue
        seen.add(marker)
        hits.append(hit)
        if len(hits) >= limit:
            break
    return hits


class SearchPanel(QWidget):
    activated = Signal(object)       # SearchHit

    def __init__(self, parent=None):
        super().__init__(parent)
        self._index: list | None = []
        self._type_index: list | None = []
        self._model = None
        self._types = None                # the document's inferred types (qdoc.types)
        self.edit = QLineEdit()
        self.edit.setPlaceholderText(self.tr("Search nodes, ops, values, initializers…"))
        self.edit.setClearButtonEnabled(True)
        self.results = QListWidget()
        # A dynamo node's hit starts with its module path, often wider than the
        # dock ("m/transformer/h.0/attn/node_view_4  (Reshape)"): cut in the
        # middle, each hit keeps its node name and op type in sight; they were
        # behind a horizontal scroll bar. The tooltip holds the whole text.
        self.results.setTextElideMode(Qt.ElideMiddle)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.status = QLabel("")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.edit)
        layout.addWidget(self.status)
        layout.addWidget(self.results)
        self.edit.textChanged.connect(self._refresh)
        self.edit.returnPressed.connect(self.activate_current)
        self.results.itemActivated.connect(lambda item: self.activated.emit(item.data(Qt.UserRole)))
        self.edit.installEventFilter(self)

    def set_document(self, qdoc) -> None:
        """Search the document's model; the index is rebuilt after edits that
        add, remove or rename things (lazily, on the next query)."""
        qdoc.changed.connect(self._document_changed)
        qdoc.analysed.connect(self._types_ready)
        self._types = qdoc.types
        self.set_model(qdoc.document.model)

    def _types_ready(self) -> None:
        # Inferred shapes are searchable once the analysis is in.
        self._type_index = None
        if self.edit.text():
            self._refresh(self.edit.text())

    def _document_changed(self, event) -> None:
        changes = event.changes
        if changes.structural or changes.nodes_changed or changes.values_retyped:
            self._index = self._type_index = None
            if self.edit.text():
                self._refresh(self.edit.text())

    def set_model(self, model) -> None:
        # The index is built on the first query, not while the model opens:
        # opening a 10k-node graph should not wait for a search nobody asked for.
        self._model = model
        self._index = self._type_index = None
        if self.edit.text():
            self._refresh(self.edit.text())

    def focus_search(self) -> None:
        self.edit.setFocus()
        self.edit.selectAll()

    def _refresh(self, text: str) -> None:
        self.results.clear()
        if self._index is None:
            self._index = build_index(self._model) if self._model is not None else []
        index = self._index
        if is_type_query(text):
            if self._type_index is None:
                self._type_index = (build_type_index(self._model, self._types)
                                    if self._model is not None else [])
            index = index + self._type_index
        hits = search(index, text)
        for hit in hits:
            kind = _tr(KIND_NAMES.get(hit.kind, hit.kind))
            item = QListWidgetItem(f"{hit.label}\n    {kind} · {hit.where}")
            # The whole label: the list cuts a long one in the middle.
            item.setToolTip(self.tr("{text}\n{kind} in {where}").format(text=hit.label, kind=kind,
                                                                       where=hit.where))
            item.setData(Qt.UserRole, hit)
            self.results.addItem(item)
        if hits:
            self.results.setCurrentRow(0)
        shown = (self.tr("{n}+ matches") if len(hits) >= MAX_HITS
                 else self.tr("{n} match") if len(hits) == 1
                 else self.tr("{n} matches")).format(n=len(hits))
        self.status.setText(shown if text.strip() else "")

    def activate_current(self) -> None:
        item = self.results.currentItem()
        if item is not None:
            self.activated.emit(item.data(Qt.UserRole))

    def eventFilter(self, obj, event) -> bool:
        # Up/Down in the search box move through the results without leaving it.
        from PySide6.QtCore import QEvent
        if obj is self.edit and event.type() == QEvent.KeyPress and event.key() in (Qt.Key_Up, Qt.Key_Down):
            row = self.results.currentRow() + (1 if event.key() == Qt.Key_Down else -1)
            if 0 <= row < self.results.count():
                self.results.setCurrentRow(row)
            return True
        return super().eventFilter(obj, event)
