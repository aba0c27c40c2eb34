"""The Problems dock: the document's diagnostics, filtered by severity and text.

The list is refreshed from `Document.diagnostics` after every edit (the
checker updates incrementally; the refresh is deferred to the next turn of the
event loop so the canvas repaints first). A click on a problem asks the window
to select and centre the place it names (`activated(obj, graph)`).

Messages come from core in English; they name values, shapes and types and
stay as they are. What a diagnostic's code means is translated
(ui/code_meanings.py, generated from core.diagnostics.CODES): in a
translated UI the Message cell reads "<meaning>: <message>" (e.g.
"节点输入未定义：input 'x' is not defined by ..."); in English, where
the message says it already, the cell is the message alone. Tooltips on the
code and the message show the meaning in any language. A code the table
does not know (added to core since) shows the message alone.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, QTimer, Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QComboBox, QHBoxLayout, QHeaderView, QLabel, QLineEdit,
                               QTreeWidget, QTreeWidgetItem, QVBoxLayout, QWidget)

from .code_meanings import CONTEXT as MEANINGS_CONTEXT, MEANINGS

SEVERITY_NAMES = {2: QT_TRANSLATE_NOOP("ProblemsPanel", "error"),
                  1: QT_TRANSLATE_NOOP("ProblemsPanel", "warning"), 0: QT_TRANSLATE_NOOP("ProblemsPanel", "info")}
SEVERITY_COLOURS = {2: QColor(210, 50, 50), 1: QColor(220, 140, 20), 0: QColor(90, 130, 200)}
MAX_ROWS = 5000          # a broken 10k-node model can report tens of thousands
PLACE_WIDTH = 260        # the Place column at least, and until its paths need more
PLACE_SHARE = 0.4        # ... at most this share of the list's width


def code_meaning(code: str) -> tuple[str, bool]:
    """(what `code` means in the UI's language, whether that is a
    translation); ("", False) for a code ui/code_meanings.py does not know."""
    english = MEANINGS.get(code)
    if english is None:
        return "", False
    shown = QCoreApplication.translate(MEANINGS_CONTEXT, english)
    return (shown, True) if shown and shown != english else (english, False)


class PlaceIndex:
    """Diagnostic path -> (IR object, graph). Paths read like the IR's own
    `Node.path` (`graph/node[3] Conv "c1"/attribute "pads"`), so the longest
    node path that prefixes a diagnostic path is its node; graph-level places
    (inputs, outputs, initializers) are looked up by name in their graph,
    an input or output entry by its position where it has that name."""

    _GRAPH_VALUE = re.compile(r'/(?P<list>input|output)\[(?P<i>\d+)\] "(?P<a>.*)"$'
                              r'|/(?:sparse_)?initializer "(?P<b>.*)"$|/value_info(?:\[\d+\])? "(?P<c>.*)"$')

    _NODE_STEP = re.compile(r'/node\[(\d+)\] ')

    def __init__(self, model):
        # Graphs by path, found on the first lookup; nodes are read from the
        # index in the path (checked against the node's own path): indexing
        # every node's path after each structural edit cost ~300 ms of an
        # insert on a 10k-node model.
        self.model = model
        self._graphs: dict[str, object] | None = None

    @property
    def graphs(self) -> dict:
        if self._graphs is None:
            graphs = list(self.model.graph.walk())
            for function in self.model.functions.values():
                graphs.extend(function.graph.walk())
            self._graphs = {graph.path: graph for graph in graphs}
        return self._graphs

    def renamed(self, nodes) -> None:
        """Nodes edited in place may have a new name: the paths of the
        graphs they hold change with it, so those are found again."""
        if any(True for node in nodes for _ in node.subgraphs()):
            self._graphs = None

    def _node_at(self, path: str):
        """The node whose path is the longest prefix of `path`, or None."""
        for match in reversed(list(self._NODE_STEP.finditer(path))):
            graph = self.graphs.get(path[:match.start()])
            index = int(match.group(1))
            if graph is None or index >= len(graph.nodes):
                continue
            node = graph.nodes[index]
            own = node.path
            if path.startswith(own) and (len(path) == len(own) or path[len(own)] == "/"):
                return node
        return None

    def resolve(self, path: str):
        """(node or value or None, graph or None) for a diagnostic path."""
        node = self._node_at(path)
        if node is not None:
            return node, node.graph
        match = self._GRAPH_VALUE.search(path)
        if match:
            name = match.group("a") or match.group("b") or match.group("c")
            graph = self.graphs.get(path[:match.start()])
            if graph is not None:
                return self._entry(graph, match) or graph.get_value(name), graph
        graph = self.graphs.get(path)
        return None, graph

    @staticmethod
    def _entry(graph, match):
        """The value of the input or output entry a path names by position,
        when that entry has the name: a damaged file's second declaration of
        an input is a value of its own (graph.input-duplicate names it), and
        the name alone leads to the first."""
        if match.group("list") is None:
            return None
        entries = graph.inputs if match.group("list") == "input" else graph.outputs
        index = int(match.group("i"))
        if index < len(entries) and entries[index].name == match.group("a"):
            return entries[index]
        return None

    def node_severities(self, diagnostics) -> dict:
        """Main-graph-level node -> the worst severity reported in it or below
        it (a problem inside an If body badges the If)."""
        worst: dict = {}
        for d in diagnostics:
            if int(d.severity) < 1:
                continue
            node, _ = self.resolve(d.path)
            while node is not None:
                if worst.get(node, -1) < int(d.severity):
                    worst[node] = int(d.severity)
                parent = node.graph.parent_node if node.graph is not None else None
                node = parent
        return worst


class ProblemsPanel(QWidget):
    activated = Signal(object, object)      # IR object (or None), graph
    badges_changed = Signal(object)         # {node: worst severity}

    def __init__(self, parent=None):
        super().__init__(parent)
        self.qdoc = None
        self.diagnostics: list = []
        self._index: PlaceIndex | None = None
        self.severity = QComboBox()
        self.severity.addItems([self.tr("Errors and warnings"), self.tr("Errors"), self.tr("Everything")])
        self.filter = QLineEdit()
        self.filter.setPlaceholderText(self.tr("Filter problems…"))
        self.filter.setClearButtonEnabled(True)
        self.summary = QLabel("")
        self.tree = QTreeWidget()
        self.tree.setColumnCount(4)
        self.tree.setHeaderLabels(["", self.tr("Place"), self.tr("Code"), self.tr("Message")])
        self.tree.setRootIsDecorated(False)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeToContents)
        header.setStretchLastSection(True)
        self.tree.setColumnWidth(1, PLACE_WIDTH)
        # The longest code fits (graph.declared-type-contradicts was cut at 170).
        metrics = self.tree.fontMetrics()
        self.tree.setColumnWidth(2, max(170, max(map(metrics.horizontalAdvance, MEANINGS), default=0) + 24))
        # Place grows to fit its paths (up to a share of the width) until the
        # user sizes it by hand.
        self._place_sized_by_user = False
        self._sizing = False
        header.sectionResized.connect(self._section_resized)
        top = QHBoxLayout()
        top.addWidget(self.severity)
        top.addWidget(self.filter, 1)
        top.addWidget(self.summary)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(top)
        layout.addWidget(self.tree, 1)
        self.severity.currentIndexChanged.connect(lambda _i: self._fill())
        self.filter.textChanged.connect(lambda _t: self._fill())
        self.tree.itemActivated.connect(self._activate)
        self.tree.itemClicked.connect(self._activate)
        self._refresh_timer = QTimer(self)
        self._refresh_timer.setSingleShot(True)
        self._refresh_timer.setInterval(0)
        self._refresh_timer.timeout.connect(self.refresh)

    def set_document(self, qdoc) -> None:
        self.qdoc = qdoc
        self.diagnostics = []
        self._filled = False
        self._index = None
        qdoc.analysed.connect(self.refresh)
        qdoc.changed.connect(self._document_changed)
        self.summary.setText(self.tr("checking…"))
        self.summary.setToolTip("")
        self.tree.clear()
        if qdoc.ready:
            self.refresh()

    def not_checked(self, reason: str) -> None:
        """The analysis stopped with an error of ours: say so, rather than
        "checking…" for ever or an empty list that reads as "no problems"."""
        short = reason if len(reason) <= 80 else reason[:79] + "…"
        self.summary.setText(self.tr("not checked: an error of ours stopped the checker ({reason}); "
                                     "the model is as loaded, please report it").format(reason=short))
        self.summary.setToolTip(reason)

    def _document_changed(self, event) -> None:
        if event.kind == "saved":
            # Nothing moved; damage the save wrote over is no longer reported.
            self._refresh_timer.start()
            return
        if event.changes.structural:
            self._index = None          # node indexes and names in paths moved
            self._filled = False        # badges are keyed by node objects: recompute them
        elif self._index is not None and event.changes.nodes_changed:
            self._index.renamed(event.changes.nodes_changed)
        self._refresh_timer.start()

    def refresh(self) -> None:
        """Read the document's diagnostics (brought up to date incrementally)."""
        if self.qdoc is None or not self.qdoc.ready:
            return
        diagnostics = self.qdoc.document.diagnostics
        if diagnostics == self.diagnostics and self._filled:
            return                  # nothing to redraw (most edits change no finding)
        self.diagnostics = diagnostics
        self._fill()
        self._filled = True
        self.badges_changed.emit(self.place_index().node_severities(self.diagnostics))

    def place_index(self) -> PlaceIndex:
        if self._index is None:
            self._index = PlaceIndex(self.qdoc.document.model)
        return self._index

    @staticmethod
    def _meanings():
        """A lookup code -> (meaning, translated), asking Qt once per code
        (one per fill: a language installed since is seen at the next)."""
        cache: dict = {}

        def lookup(code):
            found = cache.get(code)
            if found is None:
                found = cache[code] = code_meaning(code)
            return found
        return lookup

    def message_text(self, d, meaning: str, translated: bool) -> str:
        """The Message cell: the translated meaning first when there is one
        (core's message is English), never empty."""
        message = d.message or meaning or d.code
        if translated and d.message:
            return self.tr("{meaning}: {message}").format(meaning=meaning, message=d.message)
        return message

    def visible(self) -> list:
        minimum = {0: 1, 1: 2, 2: 0}[self.severity.currentIndex()]
        words = self.filter.text().strip().lower()
        meaning_of = self._meanings()
        out = []
        for d in self.diagnostics:
            if int(d.severity) < minimum:
                continue
            if words:
                # What the row shows: a meaning in the Message cell is searched too.
                meaning, translated = meaning_of(d.code)
                shown = meaning if translated or not d.message else ""
                if words not in f"{d.path} {d.code} {shown} {d.message}".lower():
                    continue
            out.append(d)
        return out

    def _fill(self) -> None:
        shown = self.visible()
        meaning_of = self._meanings()
        self.tree.setUpdatesEnabled(False)
        self.tree.clear()
        items = []
        for d in shown[:MAX_ROWS]:
            sev = int(d.severity)
            meaning, translated = meaning_of(d.code)
            item = QTreeWidgetItem(["●", d.path, d.code, self.message_text(d, meaning, translated)])
            item.setForeground(0, SEVERITY_COLOURS[sev])
            item.setToolTip(0, self.tr(SEVERITY_NAMES[sev]))
            item.setToolTip(1, d.path)
            if meaning:
                item.setToolTip(2, meaning)
                item.setToolTip(3, f"{meaning}\n{d.message}" if d.message else meaning)
            else:
                item.setToolTip(3, d.message or d.code)
            item.setData(0, Qt.UserRole, d)
            items.append(item)
        self.tree.addTopLevelItems(items)
        self._fit_place()
        self.tree.setUpdatesEnabled(True)
        counts = [sum(1 for d in self.diagnostics if int(d.severity) == s) for s in (2, 1, 0)]
        more = self.tr(" (first {n} shown)").format(n=MAX_ROWS) if len(shown) > MAX_ROWS else ""
        errors, warnings, notes = counts
        # Plural forms through Qt's %n: English is the source language (no
        # translator), so its singular is picked here; a catalogue gives each
        # text its own plural forms (Chinese has one).
        parts = (self.tr("%n error", "", errors) if errors == 1 else self.tr("%n errors", "", errors),
                 self.tr("%n warning", "", warnings) if warnings == 1 else self.tr("%n warnings", "", warnings),
                 self.tr("%n note", "", notes) if notes == 1 else self.tr("%n notes", "", notes))
        self.summary.setText(" · ".join(parts) + more)

    def _section_resized(self, column, _old, _new) -> None:
        if column == 1 and not self._sizing:
            self._place_sized_by_user = True

    def _fit_place(self) -> None:
        """Widen Place to its longest shown path (never narrower than it is,
        at most PLACE_SHARE of the list) unless the user sized it."""
        if self._place_sized_by_user or not self.tree.topLevelItemCount():
            return
        cap = max(PLACE_WIDTH, int(PLACE_SHARE * self.tree.viewport().width()))
        wanted = min(cap, self.tree.sizeHintForColumn(1))
        if wanted > self.tree.columnWidth(1):
            self._sizing = True
            try:
                self.tree.setColumnWidth(1, wanted)
            finally:
                self._sizing = False

    def _activate(self, item, _column=0) -> None:
        d = item.data(0, Qt.UserRole)
        if d is None or self.qdoc is None:
            return
        obj, graph = self.place_index().resolve(d.path)
        if graph is not None:
            self.activated.emit(obj, graph)
