"""The main window: menus, docks (properties, search), status bar with
progress and cancel, drag-and-drop, recent files, themes, export.

The window owns the open model; everything about drawing it lives in
GraphPanel. Loading and inference run in background jobs.
"""
from __future__ import annotations

import pathlib

import shiboken6
from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (QApplication, QDockWidget, QFileDialog, QLabel, QMainWindow,
                               QMessageBox, QProgressBar, QPushButton, QSizePolicy, QStyleFactory,
                               QTextBrowser, QWidget)

from ..core.ir import Graph, Node, Value
from . import theme as themes
from .graph_panel import GraphPanel
from .document_qt import QtDocument
from .early_open import EarlyOpen
from .workers import AnalysisJob, JobRunner, LoadJob

FILE_FILTER = QT_TRANSLATE_NOOP("MainWindow", "ONNX models (*.onnx *.onnxtxt *.pb);;All files (*)")
# Dock titles: translated for the title bar, the English one stays the
# objectName the saved window layout is keyed by (the same in every language).
DOCK_TITLES = (QT_TRANSLATE_NOOP("Docks", "Properties"), QT_TRANSLATE_NOOP("Docks", "Search"),
               QT_TRANSLATE_NOOP("Docks", "Undo History"), QT_TRANSLATE_NOOP("Docks", "Problems"),
               QT_TRANSLATE_NOOP("Docks", "Run"), QT_TRANSLATE_NOOP("Docks", "Tensor Inspector"),
               QT_TRANSLATE_NOOP("Docks", "Compare"))

PROBLEMS_DOCK_HEIGHT = 130      # px on first start: filter row, header and ~3 rows
PROPERTIES_DOCK_WIDTH = 480
SIDE_DOCK_WIDTH = 280           # px at least for a side dock shown (Search's hits, the history's steps)

class MainWindow(QMainWindow):
    model_loaded = Signal(object)

    def __init__(self, settings=None, theme_choice: str | None = None, early_open=None):
        """`theme_choice`: this session's theme instead of the saved one
        (applied once: every theme applied re-polishes every widget).
        `early_open`: the command line's file, already being read and laid
        out (ui/early_open.py); `open_requested` hands it to open_path."""
        super().__init__()
        self.early_open = early_open
        from .settings import Settings
        self.settings = settings or Settings()
        self.model = None
        self.path: pathlib.Path | None = None
        self.document = None                # core.Document of the open model (one owner)
        self.qdoc: QtDocument | None = None  # its Qt adapter, observed by every panel
        self._load_job: LoadJob | None = None
        self._infer_job: AnalysisJob | None = None
        self._infer_pending = False         # analyse the opened model once it is drawn
        self._remember = True               # the model being loaded goes into the recent files
        # The Properties and Run panels take an opened document once its picture
        # is on screen (see _fill_panels): (path, the QtDocument they showed before).
        self._panels_pending: tuple | None = None
        self.jobs = JobRunner(self)         # owns load and analysis threads until they end
        self._theme_choice = theme_choice or self.settings.theme()
        theme = themes.resolve(self._theme_choice)
        self.graph = GraphPanel(self, theme)
        self.setCentralWidget(self.graph)
        # Connected first: the panels take the document before any other
        # reaction to the new scene (the run UI's among them) reads it.
        self.graph.laid_out.connect(self._canvas_laid_out)
        # Properties is built when first needed (see the property): its forms'
        # modules and widgets are ~10% of the start; until then its dock shows
        # the empty page the panel shows without a model.
        self._properties = None
        # Docks placed as tabs of one another unless a saved layout places
        # them (tabify_by_default); None until the saved layout is restored.
        self._default_tabs: list = []
        self._saved_layout_restored = None
        self.graph.menu_extenders.append(lambda item, menu: self.properties.extend_canvas_menu(item, menu))
        self.properties_dock = self.add_dock("Properties", _empty_page(), Qt.RightDockWidgetArea)
        # Search is built when its dock is first shown (Ctrl+F, the View menu,
        # a saved layout that had it open): ~20 ms of the start otherwise.
        self._search = None
        self.search_dock = self.add_dock("Search", QWidget(), Qt.LeftDockWidgetArea)
        self.search_dock.hide()
        self.search_dock.visibilityChanged.connect(lambda shown: shown and self.search)
        self._build_status_bar()
        self._build_menus()
        # Before EditActions: File ▸ Save is handed it, to tell it of each save.
        from .recovery_prompt import Recovery
        self.recovery = Recovery(self)            # autosave of the edit history, crash recovery
        from .edit_actions import EditActions
        self.edit_actions = EditActions(self, self.recovery)  # Edit menu, Save, Problems and History docks
        from .run import install_run
        self.run_ui = install_run(self)           # Run menu/toolbar (F5/F9/F10), Run, Inspector, Compare docks
        self._connect()
        self.setAcceptDrops(True)
        self.setWindowTitle("onnxstudio")
        self.setWindowIcon(_app_icon())
        self.resize(1280, 820)
        geometry = self.settings.geometry()
        if geometry is not None:
            self.restoreGeometry(geometry)
        self.apply_theme(self._theme_choice)
        self._restore_window_state()

    # -- construction ---------------------------------------------------------------------

    @property
    def properties(self):
        """The Properties panel (ui/panels/properties.py), built on first use:
        for an opened model, once its picture is on screen (_fill_panels)."""
        if self._properties is None:
            from .panels.properties import PropertiesPanel
            panel = PropertiesPanel(self.edit_actions.prompter, self.graph.selection.refs)
            panel.navigate.connect(self._navigate)
            self._properties = panel
            empty = self.properties_dock.widget()
            self.properties_dock.setWidget(panel)
            empty.deleteLater()
        return self._properties

    @property
    def search(self):
        """The Search panel (ui/search.py), built on first use."""
        if self._search is None:
            from .search import SearchPanel
            panel = SearchPanel()
            panel.activated.connect(lambda hit: self._navigate(hit.obj, hit.graph))
            if self.qdoc is not None:
                panel.set_document(self.qdoc)
            self._search = panel
            placeholder = self.search_dock.widget()
            self.search_dock.setWidget(panel)
            placeholder.deleteLater()
        return self._search

    def add_dock(self, title, widget, area) -> QDockWidget:
        """A dock titled `title` (English: also its objectName, which the
        saved window layout is keyed by) in `area`, in its saved place."""
        dock = QDockWidget(QCoreApplication.translate("Docks", title), self)
        dock.setObjectName(title)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        # Docks made after the saved layout was restored still get their place.
        self.restoreDockWidget(dock)
        # The dock is the timer's context: a window closed in between drops the call.
        dock.visibilityChanged.connect(
            lambda shown: shown and QTimer.singleShot(0, dock, lambda: self._give_room(dock)))
        return dock

    def _give_room(self, dock: QDockWidget) -> None:
        """A dock shown at the side gets at least SIDE_DOCK_WIDTH (at most a
        third of the window): on a first start Ctrl+F opened Search 78 px
        wide, "Sea…" with every hit cut (QA). Any width the user chose above
        that is kept. Runs a turn after the dock is shown, once it is laid out."""
        if not dock.isVisible() or dock.isFloating() or \
                self.dockWidgetArea(dock) not in (Qt.LeftDockWidgetArea, Qt.RightDockWidgetArea):
            return
        wanted = min(SIDE_DOCK_WIDTH, self.width() // 3)
        if dock.width() < wanted:
            self.resizeDocks([dock], [wanted], Qt.Horizontal)

    def tabify_by_default(self, first: QDockWidget, second: QDockWidget) -> None:
        """`second` as a tab beside `first` in the default layout, never
        under a saved one (which places them itself): tabified before
        restoreState, Qt's tab bar of the pair was left orphaned and shown at
        the window's top-left, a "Problems" tab over the File and Edit menus
        from the second start on (QA)."""
        if self._saved_layout_restored is None:
            self._default_tabs.append((first, second))
        elif not self._saved_layout_restored:
            self.tabifyDockWidget(first, second)

    def _restore_window_state(self) -> None:
        """Dock layout and sizes from the last session (every dock is found
        by its objectName); settings problems are reported, never fatal."""
        state = self.settings.window_state()
        if state is None:
            self._default_dock_sizes()
        restored = state is not None and self.restoreState(state)
        if state is not None and not restored:
            self.settings.problems.append(self.tr("the saved window layout does not fit this "
                                                  "version; using the default"))
        self._saved_layout_restored = restored
        if not restored:
            for first, second in self._default_tabs:
                self.tabifyDockWidget(first, second)
        self._default_tabs = []
        if self.settings.problems:
            self.statusBar().showMessage(self.tr("Settings: ") + "; ".join(self.settings.problems), 15000)

    def _default_dock_sizes(self) -> None:
        """First start: the Problems dock is a strip under the canvas (a few
        rows; it is empty for most models), not a third of the window."""
        self.resizeDocks([self.edit_actions.problems_dock], [PROBLEMS_DOCK_HEIGHT], Qt.Vertical)
        # Sizing one dock lays the others out at their size hints: keep the
        # editors of the Properties dock readable.
        self.resizeDocks([self.properties_dock], [PROPERTIES_DOCK_WIDTH], Qt.Horizontal)

    def _save_model_state(self) -> None:
        """The main graph's open groups and viewport, restored when this model
        is opened again (keyed by its resolved path)."""
        if self.model is None or self.path is None or not self.graph.levels:
            return
        from .settings import viewer_values
        self.settings.update_model_state(self.path, **viewer_values(*self.graph.main_graph_state()))

    def _build_status_bar(self) -> None:
        self.status_label = QLabel(self.tr("Open a model with Ctrl+O or drop a file here"))
        self.progress = QProgressBar()
        self.progress.setRange(0, 0)        # busy indicator: load/layout report no fraction
        self.progress.setMaximumWidth(180)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.cancel_button.clicked.connect(self.cancel_work)
        bar = self.statusBar()
        bar.addWidget(self.status_label, 1)
        bar.addPermanentWidget(self.progress)
        bar.addPermanentWidget(self.cancel_button)
        self._set_busy(None)

    def _action(self, menu, text, slot, shortcut=None) -> QAction:
        action = QAction(text, self)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        menu.addAction(action)
        return action

    def _compare_with(self) -> None:
        from .diff.compare_window import compare_with    # the diff UI loads when first asked for
        compare_with(self)

    def _show_changes(self) -> None:
        from .diff.compare_window import show_changes_since_save
        show_changes_since_save(self)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        file_menu = bar.addMenu(self.tr("&File"))
        self.file_menu = file_menu          # found by EditActions whatever the language
        self._action(file_menu, self.tr("&Open…"), self.open_dialog, QKeySequence.Open)
        self.recent_menu = file_menu.addMenu(self.tr("Open &Recent"))
        self._action(file_menu, self.tr("Open &Demo Model"), self.open_demo)
        self._action(file_menu, self.tr("Compare &With…"), self._compare_with)
        changes = self._action(file_menu, self.tr("Show &Changes Since Save"), self._show_changes)
        changes.setStatusTip(self.tr("Compare the saved file with the model as edited (enabled when there are "
                                     "unsaved changes)"))
        file_menu.aboutToShow.connect(lambda: changes.setEnabled(bool(self.document and self.document.dirty)))
        file_menu.addSeparator()
        self._action(file_menu, self.tr("Export &Graph as SVG/PNG…"), lambda: self.export_dialog(False),
                     "Ctrl+E")
        self._action(file_menu, self.tr("Export &Visible Area as SVG/PNG…"), lambda: self.export_dialog(True),
                     "Ctrl+Shift+E")
        file_menu.addSeparator()
        self._action(file_menu, self.tr("&Quit"), self.close, QKeySequence.Quit)

        view_menu = bar.addMenu(self.tr("&View"))
        self.view_menu = view_menu
        view = self.graph.view
        self._action(view_menu, self.tr("&Fit Graph"), view.fit_all, "F")
        zoom_in = self._action(view_menu, self.tr("Zoom &In"), view.zoom_in, "+")
        zoom_in.setShortcuts([QKeySequence("+"), QKeySequence("="), QKeySequence.ZoomIn])
        zoom_out = self._action(view_menu, self.tr("Zoom &Out"), view.zoom_out, "-")
        zoom_out.setShortcuts([QKeySequence("-"), QKeySequence.ZoomOut])
        self._action(view_menu, self.tr("Zoom to &Selection"), view.zoom_to_selection, "Z")
        view_menu.addSeparator()
        self._action(view_menu, self.tr("&Expand All Groups"), self.graph.expand_all)
        self._action(view_menu, self.tr("&Collapse All Groups"), self.graph.collapse_all)
        view_menu.addSeparator()
        theme_menu = view_menu.addMenu(self.tr("&Theme"))
        group = QActionGroup(self)
        names = {"system": self.tr("System"), "light": self.tr("Light"), "dark": self.tr("Dark")}
        for choice in ("system", "light", "dark"):
            action = self._action(theme_menu, names[choice],
                                  lambda _=False, c=choice: self.set_theme(c))
            action.setCheckable(True)
            action.setChecked(choice == self._theme_choice)
            group.addAction(action)
        from .i18n import add_language_menu
        add_language_menu(self, view_menu)
        view_menu.addAction(self.properties_dock.toggleViewAction())
        view_menu.addAction(self.search_dock.toggleViewAction())

        go_menu = bar.addMenu(self.tr("&Go"))
        self.go_menu = go_menu
        self._action(go_menu, self.tr("&Find…"), self.show_search, QKeySequence.Find)
        back = self._action(go_menu, self.tr("&Back to Enclosing Graph"), self.graph.go_back, "Esc")
        # Only on the canvas: Esc in the search box or an editor must not leave the subgraph.
        back.setShortcutContext(Qt.WidgetWithChildrenShortcut)
        self.graph.addAction(back)
        # Over the places visited (bodies, functions entered; ui/navigation.py), not the edits.
        history_back = self._action(go_menu, self.tr("&Back"), self.graph.history_back, "Alt+Left")
        history_forward = self._action(go_menu, self.tr("For&ward"), self.graph.history_forward, "Alt+Right")

        def history_moved():
            history_back.setEnabled(self.graph.can_go_in_history(-1))
            history_forward.setEnabled(self.graph.can_go_in_history(1))
        self.graph.history_changed.connect(history_moved)
        history_moved()
        go_menu.addSeparator()
        self._action(go_menu, self.tr("&Model Properties"), lambda: self.properties.show_model())

        help_menu = bar.addMenu(self.tr("&Help"))
        self._action(help_menu, self.tr("&About onnxstudio"), self._about)
        self._refresh_recent()

    def _connect(self) -> None:
        self.graph.selection_changed.connect(lambda obj: self.properties.show_object(obj))
        self.graph.revealed.connect(self._show_revealed)
        self.graph.busy.connect(self._set_busy)
        self.graph.idle.connect(lambda: self._set_busy(None))
        self.graph.failed.connect(self._layout_failed)
        self.graph.warning.connect(lambda msg: self.statusBar().showMessage(msg, 15000))
        self.graph.laid_out.connect(self._show_counts)
        # Inference waits for the first picture: started earlier it competes
        # for the interpreter with the first paint (0.2 s later on 10k nodes).
        self.graph.view.first_paint.connect(lambda _s: QTimer.singleShot(0, self._start_inference))
        # ...and starts anyway if no paint comes (a hidden window).
        self.graph.laid_out.connect(lambda: QTimer.singleShot(1000, self._start_inference))
        QApplication.styleHints().colorSchemeChanged.connect(lambda *_: self.apply_theme(self._theme_choice))

    # -- opening ------------------------------------------------------------------------------

    def open_dialog(self) -> None:
        start = self.settings.last_directory() or (str(self.path.parent) if self.path else "")
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Open ONNX model"), start,
                                              self.tr(FILE_FILTER))
        if path:
            self.open_path(path)

    def open_demo(self) -> None:
        from onnxstudio.resources import sample_path
        self.open_path(sample_path("demo.onnx"), remember=False)

    def open_path(self, path, remember: bool = True, early=None) -> None:
        """Open `path` in a LoadJob; `early`: an EarlyOpen of the same file,
        adopted as that job (its layout then serves the canvas)."""
        path = pathlib.Path(path)
        if not path.is_file():
            self._error(self.tr("Cannot open model"), self.tr("{path}: no such file").format(path=path))
            if remember:
                self.settings.remove_recent(path)
                self._refresh_recent()
            return
        if not self.edit_actions.files.maybe_keep_changes():
            return
        self.cancel_work()
        self._remember = remember
        adopt = early is not None and early.path == str(path)
        if early is not None and not adopt:
            early.cancel()
        if adopt:
            job = early
            self._adopt_early(path, job)
        else:
            job = LoadJob(str(path), self)
            job.loaded.connect(lambda model, p=path, j=job: self._loaded(p, model, j))
            job.failed.connect(lambda msg, j=job: self._load_failed(msg, j))
            if not self.jobs.start(job):
                return
        self._load_job = job
        self._set_busy(self.tr("Loading {name}…").format(name=path.name))

    def _adopt_early(self, path: pathlib.Path, job) -> None:
        """Listen to an EarlyOpen of `path` as to this window's own LoadJob."""
        # A nested event loop (a recovery question) may have let the finished
        # job's QThread go already: what it read is kept on the Python side.
        if shiboken6.isValid(job):
            job.loaded.connect(lambda model, p=path, j=job: self._loaded(p, model, j))
            job.failed.connect(lambda msg, j=job: self._load_failed(msg, j))
            job.parent().setParent(self)    # its runner: shut down with the window's own
        # Read before the window listened, the signal went out unheard (heard
        # as well, the second call finds the job no longer pending and returns).
        if job.model is not None:
            QTimer.singleShot(0, lambda p=path, j=job: self._loaded(p, j.model, j))
        elif job.error is not None:
            QTimer.singleShot(0, lambda j=job: self._load_failed(j.error, j))

    def _loaded(self, path: pathlib.Path, model, job) -> None:
        if job is not self._load_job:       # a newer open replaced this one
            return
        self._load_job = None
        self._save_model_state()
        self.statusBar().clearMessage()     # an earlier open's error is not about this model
        self.model = model
        self.path = path
        self.setWindowTitle(f"{path.name} — onnxstudio")
        if self._remember:
            self.settings.add_recent(path)
            self.settings.set_last_directory(path.parent)
            self._refresh_recent()
        self._infer_pending = True
        if isinstance(job, EarlyOpen):
            job.offer()                     # before the canvas's layout job asks for it
        self._set_document(model, path)
        self.model_loaded.emit(model)

    def _set_document(self, model, path) -> None:
        """One Document (+ its QtDocument) owns the model; panels observe it.
        The canvas comes first: its layout runs in a worker. The panels that
        cost nothing to fill take the document now; Properties (the model's
        form) and Run (a row per input) cost 50-250 ms on a transformer and,
        filled now, would compete for the interpreter with the layout's
        worker: they take it once the canvas has painted the model."""
        from onnxstudio.core.document import Document
        from .settings import viewer_state
        if self._panels_pending is not None:
            self._fill_panels()             # the previous open never reached the screen
        shown_before = self.qdoc
        if shown_before is not None:
            shown_before.close()
        self.document = Document(model, path)
        self.qdoc = QtDocument(self.document, self)
        self.graph.set_document(self.qdoc, *viewer_state(self.settings.model_state(path)))
        if self._search is not None:
            self._search.set_document(self.qdoc)
        self.edit_actions.set_document(self.qdoc)
        self.recovery.set_document(self.qdoc)
        self._panels_pending = (path, shown_before)

    def _canvas_laid_out(self) -> None:
        """The first scene of an opened model: paint it now, then fill the panels."""
        if self._panels_pending is None:
            return
        viewport = self.graph.view.viewport()
        if viewport.isVisible():
            viewport.repaint()              # on screen before the panels' work
        self._fill_panels()

    def _fill_panels(self) -> None:
        """Hand the open document to Properties and Run (after its first paint,
        or when no paint will come: the layout failed or was cancelled)."""
        if self._panels_pending is None:
            return
        path, shown_before = self._panels_pending
        self._panels_pending = None
        self.properties.set_document(self.qdoc)
        self.run_ui.set_document(self.qdoc, path)
        if shown_before is not None:        # no panel observes it any more
            shown_before.deleteLater()

    def _start_inference(self) -> None:
        """Inference and the checker start once the first layout is painted:
        the declared types are already drawn, inferred ones fill in after.
        Nothing else the user has not asked for runs before that picture."""
        if not self._infer_pending or self.model is None:
            return
        self._infer_pending = False
        if self.document.analysis_ready:
            self.run_ui.controller.preload_executor()
            return
        job = AnalysisJob(self.document, self)
        job.analysed.connect(lambda analysis, revision, j=job: self._analysed(analysis, revision, j))
        job.failed.connect(lambda message, j=job: self._analysis_failed(message, j))
        job.finished.connect(lambda j=job: self._inference_finished(j))
        if self.jobs.start(job):
            self._infer_job = job

    def _layout_failed(self, message: str) -> None:
        self._infer_pending = False
        self._fill_panels()
        self._error(self.tr("Layout failed"), message)

    def _analysis_failed(self, message: str, job) -> None:
        if job is self._infer_job:
            self.edit_actions.problems.not_checked(message)

    def _inference_finished(self, job) -> None:
        if job is self._infer_job:
            self._infer_job = None
            # Last in line: the executor's import (~0.2 s of every kernel), so
            # that the first Run or Step does not pay for it.
            self.run_ui.controller.preload_executor()

    @property
    def loading(self) -> bool:
        """A model file is being read (its load job runs; tests wait on this)."""
        return self._load_job is not None

    @property
    def busy(self) -> bool:
        """Loading, laying out or inferring (tests and tools wait on this)."""
        return (self.loading or not self.graph.settled or self._infer_job is not None
                or self._infer_pending or self._panels_pending is not None)

    def _load_failed(self, message: str, job) -> None:
        if job is not self._load_job:
            return
        self._load_job = None
        self._set_busy(None)
        self._error(self.tr("Cannot open model"), message)

    def _analysed(self, analysis, revision, job) -> None:
        if job is not self._infer_job or self.qdoc is None:
            return
        if not self.qdoc.seed(analysis, revision):
            # Edited meanwhile: analyse the edited model again.
            self._infer_pending = True
            QTimer.singleShot(0, self._start_inference)

    def cancel_work(self) -> None:
        picture_stays = self._load_job is None and self.graph.shows_level
        if self._load_job is not None:
            self._load_job.cancel()
            self._load_job = None
        self.graph.cancel_layout()
        check_now = self._infer_pending and self.document is not None
        self._infer_pending = False
        self._fill_panels()                 # no picture will come for them to wait for
        self._set_busy(None)
        if check_now:
            # The analysis waited for the picture that will not come now; the
            # model is open in Properties and Run, so it is checked all the
            # same (else the Problems dock says "checking…" for ever).
            self._infer_pending = True
            self._start_inference()
        # Else "Loading …" / "Laying out …" stays beside an empty canvas.
        self.status_label.setText(self.tr("Cancelled: the graph stays as it was") if picture_stays
                                  else self.tr("Cancelled: open the file again to see it"))

    def _set_busy(self, message) -> None:
        busy = message is not None
        self.progress.setVisible(busy)
        self.cancel_button.setVisible(busy)
        if busy:
            self.status_label.setText(message)

    def _show_counts(self) -> None:
        scene = self.graph.scene
        result = scene.layout_result
        engine = (self.tr(" · layout: {engine} (cached)") if result.from_cache
                  else self.tr(" · layout: {engine}")).format(engine=result.engine)
        # The graph's own name can be any sentence ("Model from PaddlePaddle."):
        # say where we are in words of ours, and name only subgraphs and functions.
        levels = self.graph.levels
        where = self.tr("the main graph") if len(levels) <= 1 else self.graph.level.title
        n_boxes, n_edges = len(scene.node_items), len(scene.edge_items)
        boxes = (self.tr("{n} box") if n_boxes == 1 else self.tr("{n} boxes")).format(n=n_boxes)
        edges = (self.tr("{n} edge") if n_edges == 1 else self.tr("{n} edges")).format(n=n_edges)
        self.status_label.setText(self.tr("{boxes}, {edges} in {where}").format(
            boxes=boxes, edges=edges, where=where) + engine)

    def _refresh_recent(self) -> None:
        self.recent_menu.clear()
        files = self.settings.recent_files()
        for i, path in enumerate(files):
            action = self.recent_menu.addAction(f"&{i + 1} {path}")
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))
        if files:
            self.recent_menu.addSeparator()
            self.recent_menu.addAction(self.tr("Clear Recent Files"),
                                       lambda: (self.settings.clear_recent(), self._refresh_recent()))
        self.recent_menu.setEnabled(bool(files))

    # -- drag and drop -------------------------------------------------------------------------

    def dragEnterEvent(self, event) -> None:
        if any(url.isLocalFile() for url in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        for url in event.mimeData().urls():
            if url.isLocalFile():
                self.open_path(url.toLocalFile())
                event.acceptProposedAction()
                return

    # -- navigation -------------------------------------------------------------------------

    def show_search(self) -> None:
        self.search_dock.show()
        self.search_dock.raise_()
        self.search.focus_search()

    def _navigate(self, obj, graph=None) -> None:
        """Go to `obj` (a link in Properties, a search hit): enter a graph, or
        reveal a node or value on the canvas; a value is shown in Properties
        even when no box draws it (an initializer nothing reads yet)."""
        if isinstance(obj, Graph):          # enter it
            self.graph.show_graph(obj)
            return
        if isinstance(obj, (Node, Value)) and obj.graph is not None:
            self.graph.reveal(obj, graph or obj.graph)
        if isinstance(obj, Value) and obj.graph is not None:
            self.properties.show_value(obj)

    def _show_revealed(self, obj) -> None:
        """An initializer a search hit or a link went to is drawn in its
        reader's box, which the canvas selects: Properties shows the
        initializer asked for, not the reader."""
        if isinstance(obj, Value) and obj.is_initializer and obj.graph is not None:
            self.properties.show_value(obj)

    # -- export and themes ---------------------------------------------------------------------

    def export_dialog(self, visible_only: bool) -> None:
        if self.model is None:
            return
        base = (self.path.with_suffix(".svg") if self.path else pathlib.Path("graph.svg"))
        path, _ = QFileDialog.getSaveFileName(self, self.tr("Export"), str(base),
                                              self.tr("SVG image (*.svg);;PNG image (*.png)"))
        if not path:
            return
        rect = self.graph.view.visible_scene_rect() if visible_only else None
        from .export import export_scene        # loaded when first asked for, not at start
        try:
            export_scene(self.graph.scene, path, rect)
        except (OSError, ValueError) as exc:
            self._error(self.tr("Export failed"), str(exc))
            return
        self.statusBar().showMessage(self.tr("Exported {path}").format(path=path), 8000)

    def set_theme(self, choice: str) -> None:
        self.settings.set_theme(choice)
        self.apply_theme(choice)

    def apply_theme(self, choice: str) -> None:
        self._theme_choice = choice
        theme = themes.resolve(choice)
        app = QApplication.instance()
        # Setting the style re-polishes every widget (7 ms at start): not when it is Fusion already.
        if app.style().name().lower() != "fusion" and "Fusion" in QStyleFactory.keys():
            app.setStyle("Fusion")
        app.setPalette(themes.window_palette(theme))
        app.setStyleSheet(_style_sheet())
        self.graph.set_theme(theme)

    # -- misc ----------------------------------------------------------------------------------

    def _error(self, title: str, message: str) -> None:
        self.statusBar().showMessage(message, 15000)
        if QApplication.platformName() == "offscreen":
            # Nobody could click a modal box; the message is in the status bar.
            self.last_error = message
            return
        QMessageBox.critical(self, title, message)

    def _about(self) -> None:
        QMessageBox.about(self, self.tr("About onnxstudio"),
                          self.tr("onnxstudio — explore, edit and step through ONNX models."))

    def shutdown(self) -> None:
        """Stop background jobs before the window goes away: a QThread object
        destroyed while its thread runs aborts the process."""
        self._panels_pending = None         # closing: no panel needs the document any more
        self.cancel_work()
        self.run_ui.controller.cancel()
        # Every runner (this window's, the canvas's, the run controller's)
        # cancels and waits with no timeout: see ui/workers.py.
        for runner in self.findChildren(JobRunner):
            runner.shutdown()

    def closeEvent(self, event) -> None:
        if not self.edit_actions.files.maybe_keep_changes():
            event.ignore()
            return
        self.recovery.closed()
        self.shutdown()
        self.settings.set_geometry(self.saveGeometry())
        self.settings.set_window_state(self.saveState())
        self._save_model_state()
        self.settings.sync()
        super().closeEvent(event)


def _resource(*parts) -> pathlib.Path:
    from onnxstudio import resources
    return pathlib.Path(resources.__file__).resolve().parent.joinpath(*parts)


def _style_sheet() -> str:
    try:
        return _resource("styles", "app.qss").read_text(encoding="utf-8")
    except OSError:
        return ""


def _empty_page():
    """What the Properties dock shows before its panel is built: the panel's
    own look without a model (a blank, borderless page)."""
    page = QTextBrowser()
    page.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)
    return page


def _app_icon():
    from PySide6.QtGui import QIcon
    return QIcon(str(_resource("icons", "onnxstudio.svg")))
