"""Wiring the run UI into the main window: the Run menu and toolbar (F5
continue, F9 breakpoint, F10 step ...), the Run dock (inputs, progress with
Cancel, messages, saving the inputs and values of a run), the Tensor
Inspector and Compare docks, "Run to Node" in the canvas's context menu,
and keeping the current node in view."""
from __future__ import annotations

from contextlib import contextmanager

from PySide6.QtCore import QCoreApplication, QEvent, QT_TRANSLATE_NOOP, QObject, QSignalBlocker, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (QCheckBox, QDockWidget, QFileDialog, QFrame, QHBoxLayout, QLabel, QMenu,
                               QProgressBar, QPushButton, QScrollArea, QSpinBox, QStyle, QToolBar, QVBoxLayout,
                               QWidget)

from onnxstudio.core.exec.values import normalize

from ..canvas.words import group_path_text
from .compare_view import CompareView
from .controller import RunController
from .inputs_panel import InputsPanel, RunDockWidth
from .inspector import TensorInspector
from .iteration_choice import IterationChoice
from .extract_failing import install_compare_actions
from .overlay import RunOverlay, random_boundary_text, stale_inputs_text
from .run_options import RunOptions, remember_options, stored_options
from .profile_work import install_profile


class RunDock(QWidget):
    """Inputs, progress with Cancel, and the run's messages."""

    def __init__(self, inputs: InputsPanel, parent=None):
        super().__init__(parent)
        self.inputs = inputs
        self.progress = QProgressBar()
        self.progress.setFormat("")               # no count until a job reports one (show_count)
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.status = QLabel(self.tr("Set the inputs, then Run (Ctrl+R) or Step (F10)"))
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextSelectableByMouse)
        # How many value tags had no room on the canvas (RunUI._tags_hidden);
        # hidden while every tag is shown.
        self.tags_note = QLabel()
        self.tags_note.setWordWrap(True)
        self.tags_note.hide()
        self.nan_box = QCheckBox(self.tr("Stop at first NaN/Inf"))
        bodies = self._bodies_row()
        self.iteration_choice = IterationChoice()
        row = QHBoxLayout()
        row.addWidget(self.progress, 1)
        row.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addWidget(inputs, 1)
        layout.addWidget(self.nan_box)
        layout.addLayout(bodies)
        layout.addWidget(self.iteration_choice)
        layout.addLayout(row)
        layout.addWidget(self.status)
        layout.addWidget(self.tags_note)
        layout.addLayout(self._files_row())
        self.set_running(False)

    def _files_row(self) -> QHBoxLayout:
        """Save inputs… and Save values… (selected or all): a run in .npz
        files, read again by Load all inputs… and `onnxstudio run --load-inputs`."""
        self.save_inputs_button = QPushButton(self.tr("Save inputs…"))
        self.save_inputs_button.setToolTip(self.tr("Every input, as the next run makes it, in one .npz file "
                                                   "(arrays by input name)"))
        self.save_values_button = QPushButton(self.tr("Save values…"))
        self.save_values_button.setToolTip(self.tr("The values of the last run (the selected nodes' or all) "
                                                   "in one .npz file, by value name"))
        values_menu = QMenu(self.save_values_button)
        self.save_selected_values = values_menu.addAction(self.tr("Selected nodes' values…"))
        self.save_all_values = values_menu.addAction(self.tr("All values…"))
        self.save_values_button.setMenu(values_menu)
        row = QHBoxLayout()
        row.addWidget(self.save_inputs_button)
        row.addWidget(self.save_values_button)
        row.addStretch(1)
        return row

    def _bodies_row(self) -> QVBoxLayout:
        """Keep values inside bodies [x], within [512] MiB; under it, every
        iteration [ ] (on one row they made the dock's widest, so the canvas
        lost width to the dock)."""
        self.bodies_box = QCheckBox(self.tr("Keep values inside bodies"))
        self.bodies_box.setChecked(True)
        self.bodies_box.setToolTip(self.tr("A whole run (Ctrl+R) keeps the values computed inside If, Loop and "
                                           "Scan bodies, up to the memory budget; a loop's last iteration"))
        self.budget_box = QSpinBox()
        self.budget_box.setRange(0, 1 << 20)
        self.budget_box.setValue(512)
        self.budget_box.setSuffix(self.tr(" MiB"))
        self.budget_box.setToolTip(self.tr("Memory budget for the values kept inside bodies; values past it are "
                                           "not kept, and the run says which"))
        self.iterations_box = QCheckBox(self.tr("every iteration"))
        self.iterations_box.setToolTip(self.tr("Keep the values of every loop iteration, not only the last"))
        first, second = QHBoxLayout(), QHBoxLayout()
        first.addWidget(self.bodies_box)
        first.addWidget(self.budget_box)
        first.addStretch(1)
        second.addSpacing(self.bodies_box.style().pixelMetric(QStyle.PM_IndicatorWidth) + 6)
        second.addWidget(self.iterations_box)
        second.addStretch(1)
        rows = QVBoxLayout()
        rows.setSpacing(2)
        rows.addLayout(first)
        rows.addLayout(second)
        return rows

    def sizeHint(self) -> QSize:
        # The width it opens with; the layout's own would be its widest row's,
        # and the dock may be made as narrow as the rows allow.
        return QSize(RunDockWidth, super().sizeHint().height())

    def set_running(self, running: bool) -> None:
        # Enabled/disabled rather than shown/hidden: no relayout of the dock per step.
        self.progress.setEnabled(running)
        self.cancel_button.setEnabled(running)
        # Empty until the job's first count (after 40 ms; a step reports none):
        # the bar's own range read "node 0 of 1" all through a step.
        self.progress.setRange(0, 1)
        self.progress.setValue(0)
        self.progress.setFormat("")

    def show_count(self, i: int, n: int) -> None:
        """Node `i` (from 0) of `n` is running."""
        if self.progress.maximum() != n:
            self.progress.setRange(0, n)
        self.progress.setFormat(self.tr("node %v of %m"))
        self.progress.setValue(i + 1)


class _VerticalScroll(QScrollArea):
    """A widget in a scroll area that scrolls up and down only: on a low
    screen, or with a long message, the Run dock scrolls instead of squeezing
    its size boxes and table below their height (the Sizes of symbolic
    dimensions became unreadable slivers). It is as narrow as the widget's
    rows allow, as the widget alone was, plus the scroll bar."""

    def __init__(self, widget: QWidget):
        super().__init__()
        self.setWidget(widget)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        widget.installEventFilter(self)
        self.verticalScrollBar().rangeChanged.connect(lambda *_: self.updateGeometry())

    def eventFilter(self, watched, event) -> bool:
        # The widget's rows grew (a model's inputs listed): the dock asks our size again.
        if watched is self.widget() and event.type() == QEvent.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QSize:
        # The scroll bar's width only while it is shown: a dock tall enough
        # for its rows is as narrow as before (the canvas keeps its third).
        bar = self.verticalScrollBar()
        extra = bar.sizeHint().width() if bar.maximum() > 0 else 0
        return QSize(self.widget().minimumSizeHint().width() + extra, 0)

    def sizeHint(self) -> QSize:
        return self.widget().sizeHint()      # the width the dock opens with, as without the area


# After this long at work without a count shown, a job's bar shows where it is (or that it is busy).
LATE_COUNT_MS = 300


class RunUI(QObject):
    def __init__(self, window):
        super().__init__(window)
        self.window = window
        self.controller = RunController(window)
        self.inputs = InputsPanel(settings=window.settings)
        self.dock_widget = RunDock(self.inputs)
        self.inspector = TensorInspector()
        self.compare = CompareView()
        self.run_dock = self._dock(QT_TRANSLATE_NOOP("Docks", "Run"), _VerticalScroll(self.dock_widget),
                                   Qt.LeftDockWidgetArea)
        self.inspector_dock = self._dock(QT_TRANSLATE_NOOP("Docks", "Tensor Inspector"), self.inspector,
                                         Qt.BottomDockWidgetArea)
        self.compare_dock = self._dock(QT_TRANSLATE_NOOP("Docks", "Compare"), self.compare, Qt.BottomDockWidgetArea)
        for dock in (self.run_dock, self.inspector_dock, self.compare_dock):
            dock.hide()
        # Compare is a tab beside Problems: side by side, the bottom docks left each table two rows
        # and cut-off columns. A saved window layout, restored after this, still wins.
        # The window builds its Edit actions (and their Problems dock) before the Run UI.
        window.tabify_by_default(window.edit_actions.problems_dock, self.compare_dock)
        self.controller.feeds_source = self.inputs.make_feeds
        self.controller.sizes_made_one = self.inputs.sizes_made_one
        self.controller.drawn_inside = self._drawn_inside
        self.overlay = RunOverlay(window.graph, self.controller, self.inspect)
        self.overlay.note_hidden = self._tags_hidden
        self._inspected = None            # the IR Value the inspector shows
        self._inspected_source = None     # the array (or initializer) it was shown from
        self._inspected_other = None      # the compared-with array shown beside it (None: no comparison)
        self._path = None                 # the model's file: its run options are remembered by it
        self._restoring = False           # while the stored run options are put back
        self._late_count = QTimer(self)
        self._late_count.setSingleShot(True)
        self._late_count.setInterval(LATE_COUNT_MS)
        self._late_count.timeout.connect(self._show_late_count)
        self._build_actions()
        self._connect()
        self._follow_pending = None
        self.compare_actions = install_compare_actions(self)   # colour by total/own error, Extract failing subgraph…
        self.profile = install_profile(self)      # Profile Run, the Profile dock, heat on the canvas

    def _dock(self, title, widget, area) -> QDockWidget:
        return self.window.add_dock(title, widget, area)

    # -- actions ---------------------------------------------------------------------------

    def _action(self, text, slot, shortcut=None, tip="") -> QAction:
        action = QAction(text, self.window)
        if shortcut:
            action.setShortcut(QKeySequence(shortcut))
            action.setShortcutContext(Qt.WindowShortcut)
        action.setToolTip((tip or text.replace("&", "")) + (f" ({shortcut})" if shortcut else ""))
        action.triggered.connect(slot)
        return action

    def _build_actions(self) -> None:
        c = self.controller
        self.run_action = self._action(self.tr("&Run Model"), self.run_all, "Ctrl+R")
        self.run_selection_action = self._action(self.tr("Run &Selection"), self.run_selection, "Ctrl+Shift+R",
                                                 self.tr("Run the selected nodes"))
        self.step_action = self._action(self.tr("Step &Over"), lambda: self.step("over"), "F10",
                                        self.tr("Step over: run the next node; an If/Loop/Scan or a function "
                                                "call runs whole"))
        self.continue_action = self._action(self.tr("&Continue"), self.resume, "F5",
                                            self.tr("Continue to the next breakpoint"))
        self.run_to_action = self._action(self.tr("Run &to Selected Node"), self.run_to_selected, "Ctrl+F10")
        self.breakpoint_action = self._action(self.tr("Toggle &Breakpoint"), self.toggle_breakpoint, "F9",
                                              self.tr("Toggle a breakpoint on the selected node"))
        self.restart_action = self._action(self.tr("Res&tart"), lambda: c.restart(), "Ctrl+Shift+F5",
                                           self.tr("Start stepping again from the first node"))
        self.cancel_action = self._action(self.tr("Ca&ncel Run"), lambda: c.cancel(), "Shift+F5")
        self.nan_action = self._action(self.tr("Stop at First &NaN/Inf"), self._nan_toggled)
        self.nan_action.setCheckable(True)
        self.bodies_action = self._action(self.tr("Keep Values Inside &Bodies"), self._bodies_toggled)
        self.bodies_action.setCheckable(True)
        self.bodies_action.setChecked(True)
        self.iterations_action = self._action(self.tr("Keep Every Loop &Iteration"), self._iterations_toggled)
        self.iterations_action.setCheckable(True)
        self.ort_action = self._action(self.tr("Compare with &onnxruntime"), self.compare_onnxruntime)
        self.keep_action = self._action(self.tr("&Keep Run as Reference"), lambda: c.keep_reference())
        self.reference_action = self._action(self.tr("Compare with R&eference Run"),
                                             lambda: c.compare_with_reference())
        menu = self.window.menuBar().addMenu(self.tr("&Run"))
        for a in (self.run_action, self.run_selection_action, None, self.step_action, self.continue_action,
                  self.run_to_action, self.breakpoint_action, self.nan_action, self.restart_action,
                  self.cancel_action, None, self.bodies_action, self.iterations_action, None,
                  self.ort_action, self.keep_action, self.reference_action, None):
            if a is None:
                menu.addSeparator()
            else:
                menu.addAction(a)
        # A run kept in files: inputs in and out (Load Inputs is the Run dock's "Load all inputs…").
        self.load_inputs_action = self._action(self.tr("&Load Inputs…"), self.inputs.load_all_dialog,
                                               tip=self.tr("Every input from one .npz file named like the inputs"))
        self.save_inputs_action = self._action(self.tr("Save &Inputs…"), lambda: self.save_inputs())
        self.save_selected_action = self._action(self.tr("Save Selected &Values…"),
                                                 lambda: self.save_values(selected=True))
        self.save_all_action = self._action(self.tr("Save &All Values…"), lambda: self.save_values(selected=False))
        for a in (self.load_inputs_action, self.save_inputs_action, self.save_selected_action, self.save_all_action):
            menu.addAction(a)
        menu.addSeparator()
        for dock in (self.run_dock, self.inspector_dock, self.compare_dock):
            menu.addAction(dock.toggleViewAction())
        bar = QToolBar(self.tr("Run"), self.window)
        bar.setObjectName("Run toolbar")
        for a in (self.run_action, self.run_selection_action, self.step_action, self.continue_action,
                  self.breakpoint_action, self.restart_action, self.cancel_action):
            bar.addAction(a)
        self.window.addToolBar(Qt.TopToolBarArea, bar)
        self.toolbar = bar
        panel = self.window.graph
        extenders = getattr(panel, "menu_extenders", None)
        if extenders is not None:
            extenders.append(self._extend_menu)
        self._add_debugger_steps(menu, bar)

    def _add_debugger_steps(self, menu, bar) -> None:
        """Step Into / Step Out beside Step Over (F10), as in an IDE, and the
        choice of what stepping passes by."""
        self.step_into_action = self._action(self.tr("Step &Into"), lambda: self.step("into"), "F11",
                                             self.tr("Step into: enter the body of an If/Loop/Scan or "
                                                     "a function call"))
        self.step_out_action = self._action(self.tr("Step O&ut"), lambda: self.step("out"), "Shift+F11",
                                            self.tr("Step out: finish the body and stop after the node "
                                                    "holding it"))
        self.constants_action = self._action(self.tr("Step on &Constants"), self._step_options_toggled,
                                             tip=self.tr("Stop on Constant nodes (and nodes computed from "
                                                         "constants only) when stepping"))
        self.shapes_action = self._action(self.tr("Step on S&hape Arithmetic"), self._step_options_toggled,
                                          tip=self.tr("Stop on Shape, Size and the arithmetic on their "
                                                      "results when stepping"))
        for a in (self.constants_action, self.shapes_action):
            a.setCheckable(True)
        for a in (self.step_into_action, self.step_out_action):
            menu.insertAction(self.continue_action, a)
            bar.insertAction(self.continue_action, a)
        for a in (self.constants_action, self.shapes_action):
            menu.insertAction(self.restart_action, a)

    def _step_options_toggled(self, _on=None) -> None:
        self.controller.set_step_options(self.constants_action.isChecked(), self.shapes_action.isChecked())

    def _extend_menu(self, item, menu) -> None:
        node = _node_of(item)
        if node is None or self.controller.qdoc is None:
            return
        menu.addAction(self.tr("Run to {node}").format(node=node.display_name), lambda: self.controller.run_to(node))
        for a in (self.step_action, self.step_into_action, self.step_out_action):
            menu.addAction(a)               # the shortcuts show beside them
        on = node in self.controller.debug.breakpoints
        menu.addAction((self.tr("Remove breakpoint") if on else self.tr("Set breakpoint")) + " (F9)",
                       lambda: self.controller.toggle_breakpoint(node))
        for value in node.outputs:
            if value is not None and self.controller.debug.value_of(value) is not None:
                menu.addAction(self.tr("Inspect {name}").format(name=value.name), lambda v=value: self.inspect(v))
        for value in node.inputs:          # weights are drawn inside the box: inspect them from here
            if value is not None and value.const is not None:
                menu.addAction(self.tr("Inspect initializer {name}").format(name=value.name),
                               lambda v=value: self.inspect(v))

    def _connect(self) -> None:
        c = self.controller
        d = self.dock_widget
        c.busy.connect(self._busy)
        c.idle.connect(self._idle)
        c.progressed.connect(self._progress)
        c.message.connect(self._message)
        c.stopped.connect(self._stopped)
        c.failed_at.connect(self._failed_at)
        c.report_ready.connect(lambda r: (self.compare.set_report(r, c.report_kind), self.show_dock(self.compare_dock),
                                          self.compare_dock.raise_()))
        c.updated.connect(self._updated)
        self.inputs.changed.connect(self._inputs_changed)
        d.cancel_button.clicked.connect(lambda: c.cancel())
        d.nan_box.toggled.connect(lambda on: (self.nan_action.setChecked(on), c.set_break_on_nonfinite(on)))
        d.bodies_box.toggled.connect(self._bodies_toggled)
        d.iterations_box.toggled.connect(self._iterations_toggled)
        d.budget_box.valueChanged.connect(lambda mib: c.set_body_options(body_budget=int(mib) << 20))
        self.compare.jump.connect(self.show_node)
        self.compare.compare_onnxruntime.connect(self.compare_onnxruntime)
        self.compare.keep_reference.connect(lambda: c.keep_reference())
        self.compare.compare_reference.connect(lambda: c.compare_with_reference())
        d.save_inputs_button.clicked.connect(lambda: self.save_inputs())
        d.save_selected_values.triggered.connect(lambda: self.save_values(selected=True))
        d.save_all_values.triggered.connect(lambda: self.save_values(selected=False))
        self.window.graph.selection_changed.connect(self._selection)
        self.window.graph.laid_out.connect(self._after_layout)
        for action in (self.nan_action, self.constants_action, self.shapes_action, self.bodies_action,
                       self.iterations_action):
            action.toggled.connect(self._options_changed)
        d.budget_box.valueChanged.connect(self._options_changed)
        # Which iteration of a loop body the canvas shows, once a run kept several.
        d.iteration_choice.chosen.connect(self.overlay.show_iteration)
        self.window.graph.laid_out.connect(self._body_shown)
        c.updated.connect(self._body_shown)

    # -- document -----------------------------------------------------------------------------

    def set_document(self, qdoc, path=None) -> None:
        self.controller.set_document(qdoc)
        if qdoc is not None:
            # New types relabel the canvas's edges (the graph panel's handler):
            # the value tags are placed again, after it, clear of the new labels.
            qdoc.analysed.connect(self.overlay.refresh_soon)
            qdoc.changed.connect(self._edited)
        self._path = path if qdoc is not None else None
        if qdoc is not None:
            self.inputs.set_model(qdoc.document.model, path)
            self._apply_options(stored_options(self.window.settings, self._path) if path is not None
                                else RunOptions())
        self.compare.set_report(None)
        self.dock_widget.status.setText(QCoreApplication.translate(
            "RunDock", "Set the inputs, then Run (Ctrl+R) or Step (F10)"))

    def _edited(self, event) -> None:
        """The comparison shown is of the model before this edit: said in the
        Compare dock. The inspector shows what is now there; an edit of the
        graph's inputs reaches the inputs panel."""
        if event.kind == "saved" or self.sender() is not self.controller.qdoc:
            return
        self.compare.mark_stale()
        # An initializer shown is read again (the controller's `updated` does it
        # only once a run exists: with none the edited weight's old data stayed).
        self._refresh_inspector()
        changes, graph = event.changes, self.controller.model.graph
        renamed = [(old, new) for g, old, new in changes.values_renamed if g is graph]
        if (graph in changes.graph_io or any(old in self.inputs.input_set.inputs for old, _new in renamed)
                or any(v.graph is graph and v.is_graph_input for v in changes.values_retyped)):
            self.inputs.follow_edit(self.controller.model, renamed)
            self._inputs_changed()      # the next run's inputs are made for the inputs as they are now

    def show_dock(self, dock) -> None:
        """Show one of the run's docks, the canvas still showing what it showed
        at its top left. The canvas keeps its centre when it is resized
        (canvas/view.py), so a dock appearing beside it cut off what was at
        its edge: on ppocr_v4_det's first Ctrl+R the Run dock, opening on the
        left, left the first boxes of the graph cut in half (seen under Xvfb)."""
        if dock.isVisible():
            return
        view = self.window.graph.view
        before = view.visible_scene_rect()
        dock.show()
        layout = self.window.layout()
        if layout is not None:
            layout.activate()           # the dock takes its room now, not on a later turn
        after = view.visible_scene_rect()
        if after.topLeft() != before.topLeft():
            view.centerOn(after.center() + (before.topLeft() - after.topLeft()))

    # -- commands ----------------------------------------------------------------------------

    @contextmanager
    def _run_dock_shown(self):
        """The Run dock shown for a command. When it has to appear, which lays
        out and repaints the window (~30 ms on a core with bert_12layer_narrow
        open), the command's job thread starts on the next turn: started at
        once, it competed with that repaint for the interpreter lock."""
        if self.run_dock.isVisible():
            yield
            return
        self.show_dock(self.run_dock)
        with self.controller.thread_next_turn():
            yield

    def run_all(self) -> None:
        with self._run_dock_shown():
            self.controller.run_all()

    def run_selection(self) -> None:
        with self._run_dock_shown():
            self.controller.run_selection(self.selected_nodes())

    def step(self, how: str = "into") -> None:
        """A debugger step: "over" (F10), "into" (F11) or "out" (Shift+F11)."""
        with self._run_dock_shown():
            self.controller.step(how)

    def resume(self) -> None:
        with self._run_dock_shown():
            self.controller.resume()

    def run_to_selected(self) -> None:
        nodes = self.selected_nodes(any_graph=True)
        if nodes:
            self.controller.run_to(nodes[0])

    def toggle_breakpoint(self) -> None:
        for node in self.selected_nodes(any_graph=True):
            self.controller.toggle_breakpoint(node)

    def compare_onnxruntime(self) -> None:
        from .compare_work import saved_model_for
        try:
            reference = saved_model_for(self.controller.qdoc.document) if self.controller.qdoc else None
        except Exception as e:  # noqa: BLE001 - the saved file may have become unreadable
            self._message("error", self.tr("cannot read the saved model to compare with: {error}").format(error=e))
            return
        try:
            options = self.compare.options.options()
        except ValueError as e:           # a tolerance that is not a number: said, the options shown
            self.compare.options_button.setChecked(True)
            self.show_dock(self.compare_dock)
            self._message("error", str(e))
            return
        with self._run_dock_shown():
            self.controller.compare_onnxruntime(reference, options)

    # -- a run in files ----------------------------------------------------------------------

    def _npz_path(self, title: str, suffix: str):
        """A file to write, asked for with a dialog; None when cancelled."""
        base = self.inputs.path
        start = str(base.with_suffix(suffix)) if base is not None else "run" + suffix
        path, _ = QFileDialog.getSaveFileName(self.window, title, start, self.tr("NumPy arrays (*.npz)"))
        if path and not path.lower().endswith(".npz"):
            path += ".npz"
        return path or None

    def save_inputs(self, path=None) -> bool:
        """Every input as the next run makes it (the seed, files, images)
        in one .npz; Load all inputs… and `run --load-inputs` read it."""
        from onnxstudio.core.exec.errors import FeedError
        if self.controller.qdoc is None:
            self._message("error", self.tr("Open a model first"))
            return False
        path = path or self._npz_path(self.tr("Save inputs"), ".inputs.npz")
        if not path:
            return False
        try:
            feeds = self.inputs.make_feeds()
        except FeedError as e:
            self._message("error", str(e))
            return False
        return self._write_npz(path, feeds, (self.tr("Saved {n} input to {path}"),
                                             self.tr("Saved {n} inputs to {path}")))

    def save_values(self, selected: bool, path=None) -> bool:
        """The last run's main-graph values in one .npz, by value name: all of
        them, or the outputs of the selected nodes (and the selected edge's)."""
        debug = self.controller.debug_if_any
        if debug is None or not debug.values:
            self._message("error", self.tr("Run the model first, then save its values"))
            return False
        values = debug.values
        if selected:
            names = self._selected_value_names()
            values = {n: values[n] for n in names if n in values}
            if not values:
                self._message("error", self.tr("Select nodes of the main graph whose values the run computed, "
                                               "or save all values"))
                return False
        path = path or self._npz_path(self.tr("Save values"), ".values.npz")
        if not path:
            return False
        made_up = [name for name in debug.randomised if name in values]     # saved too, but computed by no node
        note = self.tr("random values fed to the selection run, not computed: {names}").format(
            names=", ".join(made_up)) if made_up else ""
        return self._write_npz(path, values, (self.tr("Saved {n} value to {path}"),
                                              self.tr("Saved {n} values to {path}")), note)

    def _selected_value_names(self) -> list:
        names = [v.name for node in self.selected_nodes() for v in node.outputs if v is not None]
        for item in self.window.graph.scene.selectedItems():
            value = getattr(getattr(item, "ref", None), "value", None)
            if value is not None and value.name not in names:
                names.append(value.name)
        return names

    def _write_npz(self, path, arrays: dict, done: tuple, note: str = "") -> bool:
        """`done`: the status after writing, for one array and for several;
        `note` follows it."""
        from onnxstudio.core.exec.run_files import save_npz
        try:
            written, left_out = save_npz(path, arrays)
        except OSError as e:
            self._message("error", self.tr("{path}: cannot write ({error})").format(path=path, error=e.strerror or e))
            return False
        text = done[len(written) != 1].format(n=len(written), path=path)
        if left_out:
            text += " — " + self.tr("an .npz cannot hold {names}: left out").format(names=", ".join(left_out))
        if note:
            text += " — " + note
        self._message("info", text)
        return True

    def _body_shown(self) -> None:
        """The canvas shows another graph, or a run kept other values: offer its iterations."""
        panel = self.window.graph
        debug = self.controller.debug_if_any
        graph = panel.level.graph if panel.levels else None
        self.dock_widget.iteration_choice.set_body(debug.kept if debug is not None else None, graph)
        # After every update of the run, like the overlay's other refreshes it asks for.
        self.overlay.show_iteration(self.dock_widget.iteration_choice.iteration, follow=True)

    def _options(self) -> RunOptions:
        return RunOptions(self.nan_action.isChecked(), self.constants_action.isChecked(),
                          self.shapes_action.isChecked(), self.bodies_action.isChecked(),
                          self.iterations_action.isChecked(), self.dock_widget.budget_box.value())

    def _apply_options(self, options: RunOptions) -> None:
        """Set the menu, the dock and the controller to `options`."""
        self._restoring = True
        try:
            self.nan_action.setChecked(options.stop_at_nonfinite)
            self._nan_toggled()
            self.constants_action.setChecked(options.step_on_constants)
            self.shapes_action.setChecked(options.step_on_shapes)
            self._step_options_toggled()
            self._bodies_toggled(options.keep_body_values)
            self._iterations_toggled(options.every_iteration)
            self.dock_widget.budget_box.setValue(options.body_budget_mib)
            self.controller.set_body_options(body_budget=options.body_budget_mib << 20)
        finally:
            self._restoring = False

    def _options_changed(self, *_args) -> None:
        if not self._restoring:
            remember_options(self.window.settings, self._path, self._options())

    def _nan_toggled(self, on=None) -> None:
        on = self.nan_action.isChecked()
        self.dock_widget.nan_box.setChecked(on)
        self.controller.set_break_on_nonfinite(on)

    def _bodies_toggled(self, on) -> None:
        """The menu's action and the dock's box say the same; both set the option."""
        on = bool(on)
        self.bodies_action.setChecked(on)
        self.dock_widget.bodies_box.setChecked(on)
        self.controller.set_body_options(keep_body_values=on)

    def _iterations_toggled(self, on) -> None:
        on = bool(on)
        self.iterations_action.setChecked(on)
        self.dock_widget.iterations_box.setChecked(on)
        self.controller.set_body_options(every_iteration=on)

    def selected_nodes(self, any_graph: bool = False) -> list:
        panel = self.window.graph
        nodes = []
        for item in panel.scene.selectedItems():
            node = _node_of(item)
            if node is not None and (any_graph or node.graph is panel.model.graph):
                nodes.append(node)
        return nodes

    # -- feedback -------------------------------------------------------------------------------

    def _busy(self, what: str) -> None:
        d = self.dock_widget
        d.set_running(True)
        self._late_count.start()
        d.status.setText(what)
        d.status.setToolTip("")
        if self.inputs.message.text():
            self.inputs.show_problem("")

    def _idle(self) -> None:
        # A disabled button hands its focus to the next widget, a size box of
        # the inputs (where the arrow keys and the wheel then change a size):
        # after Cancel, the canvas takes it instead.
        if self.dock_widget.cancel_button.hasFocus():
            self.window.graph.view.setFocus(Qt.OtherFocusReason)
        self._late_count.stop()
        self.dock_widget.set_running(False)

    def _show_late_count(self) -> None:
        """A job still at work without a count shown: the node it reported
        last, or the bar busy. A job reports each node as it starts, the
        first after 40 ms (controller.RunJob.report): a Loop of 4,000
        iterations reached before that, or stepped over, left the bar empty
        and still for as long as it ran."""
        job = self.controller.job
        if job is None or self.dock_widget.progress.format():
            return
        latest = getattr(job, "latest", None)
        if latest is not None:
            self._progress(*latest)
        else:
            self.dock_widget.show_count(0, 0)          # no count to give: busy

    def _progress(self, i: int, n: int, name: str) -> None:
        self.dock_widget.show_count(i, n)
        self.dock_widget.progress.setToolTip(name)

    def _message(self, level: str, text: str) -> None:
        status = self.dock_widget.status
        if level == "error":
            status.setText(_red(text))
            # In a low dock the message may sit below the fold: scroll it into view once its
            # wrapped lines are laid out.
            QTimer.singleShot(50, lambda: self.run_dock.widget().ensureWidgetVisible(status, 0, 8))
            if text.startswith("input "):
                self.inputs.show_problem(text)
        elif level == "note":
            # What an edit did to the run's state. The status bar keeps the
            # edit's own message, but not the run's last one ("next: …").
            status.setText(_orange(text))
            bar = self.window.statusBar()
            if bar.currentMessage() and bar.currentMessage() == self._shown_in_bar:
                bar.showMessage(text, 10000)
                self._shown_in_bar = text
            return
        else:
            status.setText(_escape(text))
        self.window.statusBar().showMessage(text, 10000)
        self._shown_in_bar = text

    _shown_in_bar = ""              # the run's last message put in the window's status bar

    def _tags_hidden(self, count: int) -> None:
        """The overlay placed its tags with `count` of them hidden for lack of
        room: said under the run's status while it holds (a tooltip on the
        edge alone would leave the user guessing why an edge has no tag)."""
        note = self.dock_widget.tags_note
        if count:
            note.setText(self.tr("Value tags not shown for lack of room beside their edges: %n (hover an edge "
                                 "for its value, or select it to inspect it)", "", count))
        note.setVisible(bool(count))

    def _updated(self) -> None:
        c = self.controller
        self.breakpoint_action.setEnabled(c.qdoc is not None)
        if c.report is not None and self.compare.report is c.report:
            # Of other inputs than the values held, or again of theirs (a run found the compared inputs).
            self.compare.set_other_inputs(not c.report_current)
        self._refresh_inspector()

    def _inputs_changed(self) -> None:
        self.compare.mark_inputs_changed()
        self.controller.inputs_changed()       # ends a stepping run on the old inputs
        self._mark_inspected_stale()

    def _mark_inspected_stale(self) -> None:
        """The inspected value is of the inputs before their last change: said."""
        if self._inspected is not None and self._inspected.const is None and self.controller.inputs_stale:
            self.inspector.mark_stale(stale_inputs_text())

    def _drawn_inside(self, node):
        """'LayerNormalization "LayerNorm_3"' (or 'group a/b') when the shown
        canvas draws `node` inside another box; None when it has its own box
        or is not on the shown level."""
        panel = self.window.graph
        if not panel.levels or panel.level.graph is not node.graph:
            return None
        item = panel.scene.item_for_node(node)
        ref = getattr(item, "ref", None)
        if ref is None:
            return None
        if getattr(ref, "group", None) is not None:
            return self.tr("group {path}").format(path=group_path_text(ref.group))
        host = getattr(ref, "node", None)
        if host is None or host is node:
            return None
        return host.display_name         # op type and name, as everywhere

    def _stopped(self, event) -> None:
        debug = self.controller.debug_if_any
        if event.reason == "nonfinite" and event.node is not None:
            # the node that made the NaN/Inf, in its body, even when the run has left that body
            self.show_node(event.node)
            self._stepped_to = event.node
            return
        node = debug.current if debug is not None and debug.current is not None else event.node
        if node is None:
            return
        # A plain step inside a collapsed group marks the group's box and
        # leaves it closed (opening groups step after step would re-lay out
        # the graph each time); stopping at a breakpoint, a NaN or a target
        # opens it. A step into a subgraph body always shows the body.
        panel = self.window.graph
        item = panel.scene.item_for_node(node) if panel.levels and panel.level.graph is node.graph else None
        select = self._stepping_selects()
        if select:
            self._stepped_to = node
            if item is not None and getattr(item.ref, "node", None) is not node:
                # drawn inside another box (a group, a reader): Properties shows it, the box stays unselected.
                # Quietly: the selection emptied would have Properties build the model's form first.
                with QSignalBlocker(panel.scene):
                    panel.scene.clearSelection()
                with self.window.properties.forms_later():
                    self.window.properties.show_object(node)
                select = False
        if event.reason == "step" and item is not None and getattr(item.ref, "kind", "") == "group":
            rect = item.scene_rect()
            if not panel.view.visible_scene_rect().contains(rect):
                panel.view.centerOn(rect.center())
            return
        self.show_node(node, select=select)

    _stepped_to = None              # the node the last stop selected (see _stepping_selects)

    def _stepping_selects(self) -> bool:
        """Whether a stop selects the current node, so that Properties shows
        it: yes unless you selected something else since the last stop;
        your selection then stays until you clear it (a click on the
        canvas's background)."""
        selected = self.window.graph.scene.selectedItems()
        return all(getattr(getattr(i, "ref", None), "node", None) is self._stepped_to
                   and self._stepped_to is not None for i in selected)

    def _failed_at(self, node) -> None:
        """Show the node a run failed at (entering its body), with what numpy
        said, when the message puts it in other words, in the status's tooltip."""
        debug = self.controller.debug_if_any
        error = debug.error if debug is not None else None
        detail = getattr(error, "detail", "")
        self.dock_widget.status.setToolTip(
            self.tr("In numpy's words: {detail}").format(detail=detail) if detail else "")
        self.show_node(node, select=False)

    # -- keeping the current node in view ----------------------------------------------------------

    def show_node(self, node, select: bool = True) -> None:
        """Bring `node` into view: enter its graph and open its group if
        needed, else scroll to it (keeping the zoom)."""
        panel = self.window.graph
        if node.graph is None:
            return
        if not panel.settled:
            self._follow_pending = (node, select)      # a layout is on its way: follow once it is shown
            return
        item = panel.scene.item_for_node(node)
        on_level = bool(panel.levels) and panel.level.graph is node.graph
        # The node's own box, or the box it is drawn inside (a Constant folded
        # into its reader); only a collapsed group has to be opened first.
        if on_level and item is not None and getattr(item.ref, "kind", "") != "group":
            if select and panel.scene.selectedItems() != [item]:
                # One selection change, not two: each rebuilds the Properties editor
                # (the model's, then the node's), the longest part of a step's pause.
                with QSignalBlocker(panel.scene):
                    panel.scene.clearSelection()
                with self.window.properties.forms_later():
                    item.setSelected(True)
            rect = item.scene_rect()
            if not panel.view.visible_scene_rect().contains(rect):
                panel.view.centerOn(rect.center())
            self.overlay.follow()
            return
        self._follow_pending = None
        panel.reveal(node, node.graph)

    def _after_layout(self) -> None:
        pending, self._follow_pending = self._follow_pending, None
        if pending is not None:
            self.show_node(*pending)

    # -- inspecting ---------------------------------------------------------------------------------

    def _selection(self, ref) -> None:
        value = getattr(ref, "value", None)
        debug = self.controller.debug_if_any
        if value is None or self.controller.qdoc is None or not self.inspector_dock.isVisible():
            return          # selecting follows in an open inspector; it never pops one up
        if (debug is not None and debug.value_of(value) is not None) or value.const is not None:
            self.inspect(value, raise_dock=False)

    def inspect(self, value, raise_dock: bool = True) -> bool:
        try:
            array, source, where = self._value_of(value)
        except ValueError as e:          # an initializer that cannot be read
            self._message("error", str(e))
            return False
        if array is None:
            return False
        self._show(value, array, source, where)
        if raise_dock or not self.inspector_dock.isVisible():
            self.show_dock(self.inspector_dock)
            self.inspector_dock.raise_()
        return True

    def _value_of(self, value):
        """(array, what it came from, where) of `value` in the current run, or
        from its initializer; (None, None, "") when it has none."""
        # What the canvas shows: inside a loop body, the iteration chosen in the Run dock.
        array, iteration = self.overlay.value_shown(value)
        if array is not None:
            producer = getattr(value, "producer", None)
            where = self.tr("output of {node}").format(node=producer.display_name) if producer is not None else ""
            debug = self.controller.debug_if_any
            if debug is not None and value.name in debug.randomised and value.graph is debug.graph:
                where = random_boundary_text()
            if iteration is not None:
                where = self.tr("{where}, iteration {i}").format(where=where or value.name, i=iteration)
            return array, array, where
        if value.const is None:
            return None, None, ""
        try:
            return normalize(value.const), value.const, self.tr("initializer")
        except Exception as e:  # noqa: BLE001 - e.g. a missing external data file
            raise ValueError(self.tr("{name}: cannot read the initializer ({error})").format(
                name=value.name, error=e)) from None

    def _other_of(self, value):
        """The last comparison's array of `value` (None when there is none,
        the comparison was dropped by an edit, or onnxruntime ran it on the
        inputs before their last change: compared with a value of the new
        ones it would report a difference the model does not make). A kept
        reference run stays what a later run is compared with, whatever its inputs."""
        c = self.controller
        if c.report is None or (c.report_kind == "onnxruntime" and not c.report_current):
            return None
        return c.other_values.get(value.name)

    def _show(self, value, array, source, where: str) -> None:
        other = self._other_of(value)
        self.inspector.show_value(value.name, array, where=where, other=other,
                                  other_label=self.controller.report_kind)
        self._inspected, self._inspected_source, self._inspected_other = value, source, other
        self._mark_inspected_stale()

    def _refresh_inspector(self) -> None:
        """After a run, a step, an edit or another model: the inspector shows
        the inspected value as it is now, or says it has none; never an
        earlier run's array or another model's."""
        value = self._inspected
        if value is None:
            return
        model = self.controller.model
        graph = value.graph
        while graph is not None and graph.parent_graph is not None:
            graph = graph.parent_graph
        if model is None or graph is not model.graph:
            self._inspected = self._inspected_source = None
            self.inspector.clear()
            return
        try:
            array, source, where = self._value_of(value)
        except ValueError as e:
            self.inspector.show_none(value.name, str(e))
            self._inspected_source = None
            return
        if array is None:
            self.inspector.show_none(value.name, self.tr("no value in this run: run the model, or step to "
                                                         "it, to see it"))
            self._inspected_source = None
        elif (source is not self._inspected_source or self._other_of(value) is not self._inspected_other
              or self._stale_note_outdated()):
            # A comparison made or dropped since counts too: the value shown
            # may be the same array, its Compare tab is not (a comparison
            # reuses the values a run left when nothing changed).
            self._show(value, array, source, where)

    def _stale_note_outdated(self) -> bool:
        """The inspector says its value is of the inputs before a change, and
        it no longer is: a run since found the inputs the value was computed
        from (a seed changed while every input comes from a file), kept the
        very array, and vouches for it."""
        return not self.inspector.note.isHidden() and not self.controller.inputs_stale


def _node_of(item):
    ref = getattr(item, "ref", None)
    node = getattr(ref, "node", None)
    return node if getattr(ref, "kind", "op") == "op" else None


def _red(text: str) -> str:
    return f"<span style='color:#c03030'>{_escape(text)}</span>"


def _orange(text: str) -> str:
    return f"<span style='color:#b06000'>{_escape(text)}</span>"


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def install_run(window) -> RunUI:
    return RunUI(window)
