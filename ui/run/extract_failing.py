"""The Compare dock's colouring toggle and "Extract failing subgraph…".

After a comparison with onnxruntime, the extract starts from the node with
the largest own error (core/exec/reduce.py), keeps the fewest nodes that
still disagree with onnxruntime on onnxruntime's values of their inputs,
and writes them as a model with those inputs (.inputs.npz), onnxruntime's
outputs on them (.expected.npz) and, when the comparison ran the saved file
against unsaved edits, the saved file's same nodes (.reference.onnx). It
runs in a worker thread with a progress dialog whose Cancel stops it;
nothing is written unless every file is.

The same extract can start from any compared node of the main graph: the
canvas's right-click menu over a node offers it, and Ctrl+Shift+X does it
from the selected node (the menu needs a pointer; the shortcut does not).
"""
from __future__ import annotations

import pathlib

from PySide6.QtCore import QObject, QThread, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog, QProgressDialog

from ..workers import JobRunner


class ExtractJob(QThread):
    progressed = Signal(int, int)             # nodes tried, at most
    succeeded = Signal(object)                # the paths written
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, work, parent=None):
        super().__init__(parent)
        self.work = work
        self.stop = False

    def cancel(self) -> None:
        self.stop = True

    def run(self) -> None:
        from onnxstudio.core.exec import Cancelled
        from onnxstudio.core.exec.compare import CompareError
        from onnxstudio.core.exec.reduce import ReduceError
        from onnxstudio.core.errors import CoreError

        def progress(tried: int, most: int) -> None:
            if self.stop:
                raise Cancelled("cancelled")
            self.progressed.emit(tried, most)
        try:
            paths = self.work(progress)
        except Cancelled:
            self.cancelled.emit()
        except (ReduceError, CompareError, CoreError, OSError) as e:
            self.failed.emit(str(e).strip() or type(e).__name__)
        else:
            self.succeeded.emit(paths)


class CompareActions(QObject):
    """Wires the Compare dock's colouring to the canvas and its extract
    button to a job (`run_ui`: the RunUI of install.py)."""

    def __init__(self, run_ui):
        super().__init__(run_ui)
        self.run_ui = run_ui
        self.jobs = JobRunner(self)
        self.job = None
        self.dialog = None
        self.last_paths: list = []
        view = run_ui.compare
        view.colour_by_changed.connect(self.set_colouring)
        view.extract_failing.connect(self.ask)
        window = run_ui.window
        self.node_action = QAction(self.tr("Extract Failing Subgraph from Selected Node…"), window)
        self.node_action.setShortcut(QKeySequence("Ctrl+Shift+X"))
        self.node_action.setShortcutContext(Qt.WindowShortcut)
        self.node_action.triggered.connect(self.ask_for_selected)
        window.addAction(self.node_action)
        window.graph.menu_extenders.append(self._extend_menu)

    def set_colouring(self, colour_by: str) -> None:
        overlay = self.run_ui.overlay
        overlay.colour_by = colour_by
        overlay.refresh()

    def compared_node(self, node):
        """`node` when the Compare dock's report (onnxruntime's) compared it
        and an extract can start there (a main-graph node), else None."""
        view = self.run_ui.compare
        report = view.report
        if node is None or report is None or view.kind != "onnxruntime" or view.stale:
            return None
        if node.graph is not self.run_ui.controller.model.graph:
            return None
        return node if any(nd.node is node and not nd.constant for nd in report.nodes) else None

    def _extend_menu(self, item, menu) -> None:
        ref = getattr(item, "ref", None)
        node = self.compared_node(getattr(ref, "node", None) if getattr(ref, "kind", "op") == "op" else None)
        if node is not None:
            menu.addSeparator()
            menu.addAction(self.tr("Extract failing subgraph from {node}… (Ctrl+Shift+X)").format(
                node=node.display_name), lambda: self.ask(node))

    def ask_for_selected(self) -> None:
        """Ctrl+Shift+X: the extract from the one selected node."""
        if self._stale():
            return
        nodes = [n for n in map(self.compared_node, self.run_ui.selected_nodes()) if n is not None]
        if len(nodes) != 1:
            self.run_ui.controller.message.emit("error", self.tr(
                "Select one node compared with onnxruntime to extract the failing subgraph from it"))
            return
        self.ask(nodes[0])

    def ask(self, start=None) -> None:
        """Ask where to write, then extract from `start` (a node; None: the largest own error)."""
        document = self.run_ui.controller.qdoc.document if self.run_ui.controller.qdoc else None
        folder = document.path.parent if document is not None and document.path else pathlib.Path.home()
        stem = document.path.stem if document is not None and document.path else "model"
        path, _ = QFileDialog.getSaveFileName(self.run_ui.window, self.tr("Extract failing subgraph"),
                                              str(folder / f"{stem}_failing.onnx"), self.tr("ONNX models (*.onnx)"))
        if path:
            self.start(path, start)

    def start(self, path, start=None) -> bool:
        """Extract into `path` in a worker thread (a progress dialog shows
        it), from the node `start` (None: the largest own error)."""
        from .compare_work import saved_model_for
        c = self.run_ui.controller
        view = self.run_ui.compare
        report = view.report
        if self._stale():
            return False
        if report is None or view.kind != "onnxruntime" or c.debug is None or self.job is not None:
            self.run_ui.controller.message.emit("error", self.tr("Compare with onnxruntime first"))
            return False
        path = pathlib.Path(path)
        if path.suffix.lower() != ".onnx":
            path = path.with_name(path.name + ".onnx")
        try:
            reference_model = saved_model_for(c.qdoc.document) if c.qdoc else None
            options = view.options.options()
        except Exception as e:  # noqa: BLE001 - an unreadable saved file or a bad tolerance: said, nothing done
            self.run_ui.controller.message.emit("error", str(e))
            return False
        model = c.model
        # The inputs onnxruntime's values are of: after a run on other inputs the values held are not
        # (the model's inputs of one run with the intermediates of another went into the extract).
        inputs = {v.name: c.report_feeds[v.name] for v in model.graph.inputs if v.name in c.report_feeds}
        reference = {**inputs, **c.other_values}

        def work(progress):
            from onnxstudio.core.exec.reduce import onnxruntime_runner, reduce_failing, write_reduced
            small = reduce_failing(model, report, reference, reference_model=reference_model, start=start,
                                   run_reference=onnxruntime_runner(options["provider"], options["opt_level"]),
                                   rtol=options["rtol"], atol=options["atol"], progress=progress)
            return write_reduced(small, path), small

        job = ExtractJob(work)
        self.job = job
        self.dialog = QProgressDialog(self.tr("Extracting the failing subgraph…"), self.tr("Cancel"), 0, 0,
                                      self.run_ui.window)
        self.dialog.setWindowModality(Qt.WindowModal)
        self.dialog.setMinimumDuration(300)
        self.dialog.canceled.connect(job.cancel)
        job.progressed.connect(lambda tried, most: self.dialog.setLabelText(
            self.tr("Extracting the failing subgraph… trying {n} node(s)").format(n=tried)))
        job.succeeded.connect(self._written)
        say = self.run_ui.controller.message.emit
        job.failed.connect(lambda text: say("error", self.tr("Extract failing subgraph: {error}").format(error=text)))
        job.cancelled.connect(lambda: say("info", self.tr("Extracting cancelled: nothing written")))
        job.finished.connect(self._ended)
        return self.jobs.start(job)

    def _stale(self) -> bool:
        """Whether the comparison shown is of the model before an edit (said,
        then): its nodes and values may be gone, so nothing is extracted from it."""
        if not self.run_ui.compare.stale:
            return False
        self.run_ui.controller.message.emit("error", self.tr(
            "The model was edited since the comparison: compare with onnxruntime again, then extract"))
        return True

    def _written(self, result) -> None:
        paths, small = result
        self.last_paths = list(paths)
        text = self.tr("Wrote the failing subgraph ({n} node(s) from {node}): {files}")
        self.run_ui.controller.message.emit("info", text.format(n=len(small.nodes), node=small.start,
                                                                files=", ".join(p.name for p in paths)))

    def _ended(self) -> None:
        self.job = None
        if self.dialog is not None:
            self.dialog.reset()
            self.dialog.deleteLater()
            self.dialog = None


def install_compare_actions(run_ui) -> CompareActions:
    return CompareActions(run_ui)
