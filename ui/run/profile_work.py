"""Profiled runs in the app: Run ▸ Profile Run (the built-in executor) and
Profile with onnxruntime, run as jobs of the run controller (progress and
Cancel in the Run dock); the result goes to the Profile dock and as heat
onto the canvas. The profile before it is kept to compare with."""
from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QObject, Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QMenu

from .colouring_choice import ColouringChoice
from .heat import HeatOverlay, time_text
from .profile_view import ProfileView

RUNS = 3          # profiled runs averaged (after a warm-up)


class ProfileUI(QObject):
    def __init__(self, run_ui):
        super().__init__(run_ui)
        self.run_ui = run_ui
        self.controller = run_ui.controller
        window = run_ui.window
        self.view = ProfileView()
        self.dock = window.add_dock(QT_TRANSLATE_NOOP("Docks", "Profile"), self.view, Qt.BottomDockWidgetArea)
        self.dock.hide()
        # A tab beside the Compare dock (itself one beside Problems), not a third dock squeezed
        # in beside them; a saved window layout, restored after this, still wins.
        window.tabify_by_default(run_ui.compare_dock, self.dock)
        self.heat = HeatOverlay(window.graph)
        self.profile = None
        self.previous = None
        self._qdoc = None
        self.profile_action = QAction(self.tr("&Profile Run"), window)
        self.profile_action.setToolTip(self.tr("Run the model a few times, timing every node: heat on the canvas, "
                                               "the slowest nodes and op types in the Profile dock"))
        self.profile_action.triggered.connect(lambda: self.profile_run())
        self.ort_profile_action = QAction(self.tr("Profile with onnx&runtime"), window)
        self.ort_profile_action.setToolTip(self.tr("onnxruntime's own profile of the model, its kernels tied "
                                                   "back to the nodes"))
        self.ort_profile_action.triggered.connect(lambda: self.profile_run(onnxruntime=True))
        self.open_ort_action = QAction(self.tr("Open onnxruntime Pro&file…"), window)
        self.open_ort_action.setToolTip(self.tr("A profile onnxruntime wrote for this model (enable_profiling), "
                                                "its kernels tied back to the nodes"))
        self.open_ort_action.triggered.connect(lambda: self.open_ort_profile())
        self._add_to_menu()
        self.view.jump.connect(run_ui.show_node)
        self.view.heat_toggled.connect(self.heat.set_visible)
        self.view.compare_toggled.connect(lambda _on: self._show())
        self.controller.updated.connect(self._document_maybe_changed)
        self.colouring = ColouringChoice(run_ui, self)     # the heat or the comparison's colours, not both

    def _add_to_menu(self) -> None:
        """After "Compare with Reference Run", in the Run menu."""
        menu = next((o for o in self.run_ui.reference_action.associatedObjects() if isinstance(o, QMenu)), None)
        if menu is None:
            return
        actions = menu.actions()
        at = actions.index(self.run_ui.reference_action) + 1
        before = actions[at] if at < len(actions) else None
        for a in (self.profile_action, self.ort_profile_action, self.open_ort_action):
            menu.insertAction(before, a)
        menu.addAction(self.dock.toggleViewAction())

    def _document_maybe_changed(self) -> None:
        """Another model (or none): its profiles are gone with it."""
        if self.controller.qdoc is not self._qdoc:
            if self._qdoc is not None:
                try:
                    self._qdoc.changed.disconnect(self._edited)
                except (RuntimeError, TypeError):
                    pass
            self._qdoc = self.controller.qdoc
            if self._qdoc is not None:
                self._qdoc.changed.connect(self._edited)
            self.profile = self.previous = None
            self._show()

    def _edited(self, event) -> None:
        """The profile shown was made before this edit: said, until the next one."""
        if event.kind != "saved" and self.profile is not None and not self.view.stale:
            self.view.stale = True
            self._show()

    def profile_run(self, onnxruntime: bool = False) -> bool:
        from onnxstudio.core.exec.errors import Cancelled
        c = self.controller
        if c.qdoc is None:
            c.message.emit("error", self.tr("Open a model first"))
            return False
        model = c.model
        holder: dict = {}

        def cancel() -> None:
            holder["cancelled"] = True
            profiler = holder.get("profiler")
            if profiler is not None:
                profiler.cancel()

        def work(job):
            feeds = c.feeds_source() if c.feeds_source is not None else {}
            if onnxruntime:      # onnxruntime cannot be stopped mid-run: Cancel drops its result
                from onnxstudio.core.exec.ort_profile import profile_with_onnxruntime
                profile = profile_with_onnxruntime(model, feeds, RUNS)
                if holder.get("cancelled"):
                    raise Cancelled("run cancelled")
                return profile
            from onnxstudio.core.exec.profile import Profiler
            profiler = holder["profiler"] = Profiler(model, RUNS)
            if holder.get("cancelled"):
                raise Cancelled("run cancelled")
            return profiler.run(feeds, progress=job.report)

        what = (self.tr("Profiling with onnxruntime…") if onnxruntime
                else self.tr("Profiling: {runs} runs, every node timed…").format(runs=RUNS))
        self.run_ui.show_dock(self.run_ui.run_dock)
        return c.start_job(what, work, self.adopt, on_cancel=cancel)

    def open_ort_profile(self, path=None) -> bool:
        """Read a profile onnxruntime wrote for the open model (a file dialog
        when `path` is None); a profile of another model is refused, said."""
        from onnxstudio.core.exec.profile import ProfileError
        c = self.controller
        if c.qdoc is None:
            c.message.emit("error", self.tr("Open a model first"))
            return False
        if path is None:
            path, _ = QFileDialog.getOpenFileName(self.run_ui.window, self.tr("Open onnxruntime profile"), "",
                                                  self.tr("onnxruntime profiles (*.json)"))
            if not path:
                return False
        from onnxstudio.core.exec.ort_profile import read_ort_profile
        try:
            profile = read_ort_profile(path, c.model)
        except ProfileError as e:
            c.message.emit("error", str(e))
            return False
        self.adopt(profile)
        return True

    def adopt(self, profile) -> None:
        """Show a profile made now; the one before it becomes the previous."""
        if self.profile is not None:
            self.previous = self.profile
        self.profile = profile
        self.view.stale = False
        self._show()
        self.colouring.show_heat()
        self.dock.show()
        self.dock.raise_()
        top = profile.top_nodes(1)
        text = self.tr("Profiled: {wall} a run").format(wall=time_text(profile.wall))
        if top:
            text += "; " + self.tr("slowest node {node} ({share})").format(
                node=top[0].node.display_name if top[0].node is not None else top[0].name,
                share=f"{profile.share(top[0].seconds):.1%}")
        self.controller.message.emit("info", text)

    def _show(self) -> None:
        diff = None
        if self.profile is not None and self.previous is not None and self.view.compare_box.isChecked():
            from onnxstudio.core.exec.profile_compare import compare_profiles
            diff = compare_profiles(self.previous, self.profile)
        self.view.set_profile(self.profile, diff, has_previous=self.previous is not None)
        self.heat.set_profile(self.profile, stale=self.view.stale)


def install_profile(run_ui) -> ProfileUI:
    return ProfileUI(run_ui)
