"""The compare window: A's canvas and B's side by side with the legend,
the list of differences, the side-by-side properties and "Save as edit
script…"; compare_with(window), what File > Compare With… does, and
show_changes_since_save(window), File > Show Changes Since Save."""
from __future__ import annotations

import pathlib

from PySide6.QtCore import QCoreApplication, QObject, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QDockWidget, QFileDialog, QHBoxLayout, QLabel, QMainWindow, QMessageBox,
                               QProgressDialog, QPushButton, QSplitter, QToolButton, QVBoxLayout, QWidget)

from ...core.diff.report import may_be_unrelated, model_line, shared_nodes, summary_lines
from ..graph_panel import GraphPanel
from ..workers import JobRunner
from .compare_job import CompareJob
from .difference_list import DifferenceList
from .script_job import ScriptJob
from .side_by_side import SideBySide
from .status_marks import Legend, StatusMarks
from .sync import NavigationSync, ScrollSync, selected_object

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")


class CompareWindow(QMainWindow):
    def __init__(self, diff, title_a: str, title_b: str, parent=None, theme=None, *, one_model: bool = False,
                 settings=None):
        """`one_model`: A and B are known to be one model (the saved file and
        its edits), so however little they share, nothing says they may not be.
        `settings`: the app's Settings (Scroll Together is remembered there)."""
        super().__init__(parent, Qt.Window)
        self.diff = diff
        if settings is None:
            from ..settings import Settings
            settings = Settings()
        self.settings = settings
        self.jobs = JobRunner(self)
        self.script_message = None
        self.setWindowTitle(self.tr("Compare {a} with {b}").format(a=title_a, b=title_b))
        kwargs = {"theme": theme} if theme is not None else {}
        self.left, self.right = GraphPanel(**kwargs), GraphPanel(**kwargs)
        self.marks = (StatusMarks(self.left, diff, "a"), StatusMarks(self.right, diff, "b"))
        self.sync = NavigationSync(self.left, self.right, diff)
        self.scrolling = ScrollSync(self.sync, self)
        splitter = QSplitter(Qt.Horizontal, self)
        for panel, title in ((self.left, self.tr("A: {name}").format(name=title_a)),
                             (self.right, self.tr("B: {name}").format(name=title_b))):
            column = QWidget(splitter)
            box = QVBoxLayout(column)
            box.setContentsMargins(0, 0, 0, 0)
            box.setSpacing(0)
            heading = QLabel(title, column)
            heading.setStyleSheet("font-weight: bold; padding: 3px 6px;")
            box.addWidget(heading)
            box.addWidget(panel, 1)
            splitter.addWidget(column)
        centre = QWidget(self)
        layout = QVBoxLayout(centre)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = QHBoxLayout()
        # The counts, and the opset imports and IR version when they differ
        # (no row of the list can show them on a canvas).
        summary = QLabel(" · ".join(summary_lines(diff)[:2] + model_line(diff)), centre)
        summary.setStyleSheet("padding: 3px 6px;")
        # Wraps rather than widening the window: the counts line names what
        # it counts and is long (it set a 1,229 px minimum width).
        summary.setWordWrap(True)
        top.addWidget(summary, 1)
        self.save_script = QPushButton(self.tr("Save as Edit Script…"), centre)
        self.save_script.setToolTip(self.tr("Write the edits that turn A into B as an edit script, to replay "
                                            "with onnxstudio edit"))
        self.save_script.clicked.connect(self.save_script_dialog)
        top.addWidget(self.scroll_together_button(centre))
        top.addWidget(self.save_script)
        layout.addLayout(top)
        self.unrelated = None
        if may_be_unrelated(diff) and not one_model:
            shared, a, b = shared_nodes(diff)
            self.unrelated = QLabel(self.tr("These models share {shared} of A's {a} and B's {b} computing nodes: "
                                            "they may not be versions of one model.").format(shared=shared, a=a,
                                                                                             b=b), centre)
            self.unrelated.setWordWrap(True)
            self.unrelated.setStyleSheet("background: #fff3cd; color: #664d03; padding: 4px 6px;")
            layout.addWidget(self.unrelated)
        layout.addWidget(Legend(centre, uncertain=diff.uncertain))
        layout.addWidget(splitter, 1)
        self.setCentralWidget(centre)
        self.differences = DifferenceList(diff, self)
        self.properties = SideBySide(diff, self)
        lists = self._dock(self.tr("Differences"), self.differences, Qt.RightDockWidgetArea)
        self.properties_dock = self._dock(self.tr("A and B"), self.properties, Qt.BottomDockWidgetArea)
        self.resizeDocks([lists], [380], Qt.Horizontal)
        self.properties.shown.connect(self._fit_properties)
        self.differences.chosen.connect(self.go_to)
        self.left.selection_changed.connect(lambda _: self._show_selected(self.left))
        self.right.selection_changed.connect(lambda _: self._show_selected(self.right))
        self.left.set_model(diff.matching.a)
        self.right.set_model(diff.matching.b)
        self.resize(1500, 900)
        # Open at the first difference: both canvases go there (its group
        # opened) once laid out, instead of at the model's top.
        if self.differences.total:
            self.differences.list.setCurrentRow(0)

    def scroll_together_button(self, parent) -> QToolButton:
        """The Scroll Together switch (Ctrl+L anywhere in the window), as last left."""
        self.scroll_together = QAction(self.tr("Scroll Together"), self)
        self.scroll_together.setCheckable(True)
        self.scroll_together.setShortcut(QKeySequence("Ctrl+L"))
        self.scroll_together.setToolTip(self.tr("Pan and zoom both canvases together, the partner of what is in "
                                                "the middle of one at the same place in the other (Ctrl+L)"))
        self.scroll_together.setChecked(self.settings.scroll_together())
        self.scrolling.set_enabled(self.scroll_together.isChecked())
        self.scroll_together.toggled.connect(self._scroll_together_toggled)
        self.addAction(self.scroll_together)
        button = QToolButton(parent)
        button.setDefaultAction(self.scroll_together)
        return button

    def _scroll_together_toggled(self, on: bool) -> None:
        self.scrolling.set_enabled(on)
        self.settings.set_scroll_together(on)

    def showEvent(self, event) -> None:
        super().showEvent(event)
        # Docks take their sizes once the window has its own.
        QTimer.singleShot(0, self._fit_properties)

    def _fit_properties(self) -> None:
        """The "A and B" dock as tall as what it shows (a hint is a line),
        at most a third of the window: the canvases keep the room."""
        chrome = self.properties_dock.height() - self.properties.height() if self.properties.height() else 24
        wanted = self.properties.content_height() + max(chrome, 0)
        self.resizeDocks([self.properties_dock], [min(wanted, self.height() // 3)], Qt.Vertical)

    def save_script_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Save as Edit Script"), "edits.json",
                                              self.tr("Edit scripts (*.json);;All files (*)"))
        if path:
            self.write_script(path)

    def write_script(self, path: str) -> None:
        """Derive the script from the diff and write it in a ScriptJob; then
        say how many edits it has and what it could not express."""
        self.script_job = ScriptJob(self.diff, path)
        self.script_job.done.connect(lambda derived: self._script_written(derived, path))
        self.script_job.failed.connect(self._script_failed)
        self.script_progress = QProgressDialog(self.tr("Deriving the edit script…"), self.tr("Cancel"), 0, 0, self)
        self.script_progress.setWindowModality(Qt.WindowModal)
        self.script_progress.setMinimumDuration(300)
        self.script_progress.canceled.connect(self.script_job.cancel)
        self.save_script.setEnabled(False)
        self.jobs.start(self.script_job)

    def _script_ended(self) -> None:
        self.script_progress.reset()
        self.save_script.setEnabled(True)

    def _script_failed(self, message: str) -> None:
        self._script_ended()
        self.script_message = QMessageBox(QMessageBox.Warning, self.tr("Save as Edit Script"), message,
                                          QMessageBox.Ok, self)
        self.script_message.open()

    def _script_written(self, derived, path: str) -> None:
        self._script_ended()
        self.derived = derived
        text = self.tr("{count} edit(s) written to {path}.").format(count=len(derived.script), path=path)
        if derived.not_expressed:
            text += "\n\n" + self.tr("Not expressed as edits ({count}):").format(count=len(derived.not_expressed))
            text += "\n" + "\n".join(derived.not_expressed[:20])
            if len(derived.not_expressed) > 20:
                text += "\n" + self.tr("… and {count} more").format(count=len(derived.not_expressed) - 20)
        self.script_message = QMessageBox(QMessageBox.Information, self.tr("Save as Edit Script"), text,
                                          QMessageBox.Ok, self)
        self.script_message.open()

    def _dock(self, title: str, widget, area) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    def go_to(self, a, b) -> None:
        """Show `a` on A's canvas and `b` on B's (the partner of whichever is missing)."""
        if a is None and b is not None:
            a = self.sync.partner(self.right, b)
        if b is None and a is not None:
            b = self.sync.partner(self.left, a)
        # Each side shows its own item: lining one up with the other would
        # move an added or removed node (no partner) out of view.
        self.scrolling.hold()
        sides = [(self.left, a, b), (self.right, b, a)]
        # A node only one side has is shown there; the other side shows where
        # it would be, revealed first: selecting that node selects its
        # partner (NavigationSync), and the chosen node's reveal must come last.
        sides.sort(key=lambda side: side[1] is not None)
        for panel, obj, other in sides:
            shown = obj if obj is not None else self._near_partner(panel, other)
            if shown is not None and shown.graph is not None:
                panel.reveal(shown, shown.graph)
        self.properties.show_pair(a, b)

    def _near_partner(self, panel, node):
        """On `panel`, where `node` (of the other side only) would be: the
        partner of the first value it reads that has one, else the partner
        of that value's producer (a removed Tanh between a Gemm and the
        graph output: the Gemm's output took the output's name on the other
        side, so only the Gemm itself is paired)."""
        other = self.right if panel is self.left else self.left
        inputs = [v for v in getattr(node, "inputs", ()) if v is not None]
        for v in inputs:
            partner = self.sync.partner(other, v)
            if partner is not None:
                return partner.producer or partner
        for v in inputs:
            partner = self.sync.partner(other, v.producer) if v.producer is not None else None
            if partner is not None:
                return partner
        return None

    def _show_selected(self, panel) -> None:
        obj = selected_object(panel)
        if obj is None:
            return
        partner = self.sync.partner(panel, obj)
        a, b = (obj, partner) if panel is self.left else (partner, obj)
        self.properties.show_pair(a, b)


class CompareAction(QObject):
    """File > Compare With…: choose B, match in a worker with a cancellable
    progress dialog, then open the compare window."""

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.jobs = JobRunner(window)
        self.job = None
        self.progress = None
        self.open_windows: list = []

    def choose(self) -> None:
        w = self.window
        if w.model is None:
            QMessageBox.information(w, self.tr("Compare With"), self.tr("Open a model first: it is A, the model chosen "
                                                                 "next is B."))
            return
        start = str(w.path.parent) if w.path else ""
        path, _ = QFileDialog.getOpenFileName(w, self.tr("Compare with ONNX model"), start,
                                              self.tr("ONNX models (*.onnx);;All files (*)"))
        if path:
            self.start(path)

    def start(self, path: str, *, since_save: bool = False) -> None:
        w = self.window
        self.path_b = path
        self.since_save = since_save
        # A clone taken here, on the UI thread: the workers (matching, deriving
        # an edit script) never read the model being edited, and the window
        # keeps showing the model as it was compared.
        self.job = CompareJob(w.document.model.clone(), path, loaded_is_a=since_save)
        self.job.done.connect(self._done)
        self.job.failed.connect(self._failed)
        self.progress = QProgressDialog(self.tr("Matching {name} with the open model…").format(
            name=pathlib.Path(path).name), self.tr("Cancel"), 0, 0, w)
        self.progress.setWindowModality(Qt.WindowModal)
        self.progress.setMinimumDuration(300)
        self.progress.canceled.connect(self.job.cancel)
        self.jobs.start(self.job)

    def _close_progress(self) -> None:
        if self.progress is not None:
            self.progress.reset()
            self.progress = None

    def _failed(self, message: str) -> None:
        self._close_progress()
        QMessageBox.warning(self.window, self.tr("Compare With"), message)

    def _done(self, diff) -> None:
        self._close_progress()
        w = self.window
        # Two models that share nothing open too: the window says so at its
        # top, and its list still shows every difference.
        title_a = w.path.name if w.path else self.tr("open model")
        title_b = pathlib.Path(self.path_b).name
        if getattr(self, "since_save", False):
            title_a, title_b = self.tr("{name} (saved)").format(name=title_b), self.tr("{name} (edited)").format(
                name=title_b)
        shown = CompareWindow(diff, title_a, title_b, w, w.graph.scene.theme,
                              one_model=getattr(self, "since_save", False), settings=w.settings)
        self.open_windows.append(shown)
        shown.show()
        if diff.equal:
            w.statusBar().showMessage(self.tr("The models are the same."), 5000)
        elif not diff.differs:
            w.statusBar().showMessage(self.tr("No difference found in what could be compared; the values of {n} "
                                              "weight(s) could not be read, so they were not compared.").format(
                n=len(diff.weights_not_compared) + len(diff.nodes_not_compared)), 10000)


def _compare_action(window) -> CompareAction:
    """The main window's one CompareAction."""
    action = getattr(window, "compare_action", None)
    if action is None:
        action = window.compare_action = CompareAction(window)
    return action


def compare_with(window) -> None:
    """File > Compare With…"""
    _compare_action(window).choose()


def show_changes_since_save(window) -> None:
    """File > Show Changes Since Save: the saved file, as read from disk (the
    file opened, when never saved), on the left; the model as edited on the
    right. Explained instead when there is nothing unsaved."""
    doc = window.document
    title = translate("CompareAction", "Show Changes Since Save")
    if doc is None or not doc.dirty:
        QMessageBox.information(window, title, translate(
            "CompareAction", "There are no unsaved changes: the model is as saved."))
        return
    if doc.path is None or not pathlib.Path(doc.path).is_file():
        QMessageBox.information(window, title, translate(
            "CompareAction", "The model has no saved file to compare with: save it first."))
        return
    _compare_action(window).start(str(doc.path), since_save=True)
