"""The Edit menu and the editing docks, wired into the main window.

Every command here turns a gesture into an `Edit` (or a compound Macro from
core.edits) pushed with `qdoc.apply`; nothing touches the IR directly.
Canvas commands (delete, bypass, add node, insert on edge) act on the
current level's graph and are only active while the canvas has focus, so
Del and Tab keep their meaning in text fields.
"""
from __future__ import annotations

import functools

from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QAction, QKeySequence

from ..core.ir import Node, Value
from .dialogs import Prompter
from .file_actions import FileActions
from .history import HistoryPanel
from .problems import ProblemsPanel
from .step_names import display_name

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")


class EditActions:
    def __init__(self, window, recovery):
        """`recovery`: the window's Recovery, which File ▸ Save tells of each save."""
        self.window = window
        self.prompter = Prompter(window)
        self.history = HistoryPanel()
        self.problems = ProblemsPanel()
        self.history_dock = window.add_dock("Undo History", self.history, Qt.LeftDockWidgetArea)
        self.problems_dock = window.add_dock("Problems", self.problems, Qt.BottomDockWidgetArea)
        self.history_dock.hide()
        self.files = FileActions(window, self.prompter, recovery)
        self.problems.activated.connect(self._reveal_problem)
        self.problems.badges_changed.connect(window.graph.set_badges)
        self._build_menu()

    # -- menus ---------------------------------------------------------------------------

    def _action(self, menu, text, slot, shortcuts=(), canvas=False) -> QAction:
        action = QAction(text, self.window)
        if shortcuts:
            action.setShortcuts([QKeySequence(s) for s in shortcuts])
        action.triggered.connect(lambda _=False: slot())
        if canvas:
            # Only while the canvas has focus: Del/Tab edit text elsewhere.
            action.setShortcutContext(Qt.WidgetWithChildrenShortcut)
            self.window.graph.view.addAction(action)
        menu.addAction(action)
        return action

    def _build_menu(self) -> None:
        w = self.window
        bar = w.menuBar()
        file_menu = w.file_menu         # by reference: its title is translated
        self.files.add_to_menu(file_menu)
        edit = bar.insertMenu(bar.actions()[1] if len(bar.actions()) > 1 else None,
                              _menu(w, translate("EditActions", "&Edit"))).menu()
        self.edit_menu = edit
        self.undo_action = self._action(edit, translate("EditActions", "&Undo"), self.undo, [QKeySequence.Undo])
        self.redo_action = self._action(edit, translate("EditActions", "&Redo"), self.redo,
                                        [QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        edit.addSeparator()
        from .canvas_edits import CanvasEdits
        self.canvas = CanvasEdits(w, self.prompter)
        c = self.canvas
        self._action(edit, translate("EditActions", "&Add Node…"), c.add_node, ["Tab"], canvas=True)
        self._action(edit, translate("EditActions", "&Delete"), c.delete, [QKeySequence.Delete], canvas=True)
        self._action(edit, translate("EditActions", "Delete and &Reconnect"), c.delete_and_bypass, ["Shift+Del"],
                     canvas=True)
        self._action(edit, translate("EditActions", "&Copy Nodes"), c.copy, [QKeySequence.Copy], canvas=True)
        self._action(edit, translate("EditActions", "&Paste Nodes"), c.paste, [QKeySequence.Paste], canvas=True)
        self._action(edit, translate("EditActions", "E&xtract Selection to New Model…"), c.extract)
        self._action(edit, translate("EditActions", "C&lean Up (remove unused)"), c.cleanup)
        self.input_dims_action = self._action(edit, translate("EditActions", "Set D&ims of All Inputs…"),
                                              lambda: self.input_dims.open())
        edit.addSeparator()
        w.graph.edge_menu_hook = self._edge_menu
        self.script_action = self._action(edit, translate("EditActions", "Save Edits as &Script…"),
                                          self.files.save_script)
        self.apply_script_action = self._action(edit, translate("EditActions", "Appl&y Edit Script…"),
                                                lambda: self.scripts.apply())
        view_menu = w.view_menu
        if view_menu is not None:
            view_menu.addAction(self.problems_dock.toggleViewAction())
            view_menu.addAction(self.history_dock.toggleViewAction())
        self._update_actions()

    # Built on first use: their modules (and the edits they import) are not
    # needed to show a model.
    @functools.cached_property
    def input_dims(self):
        """Edit ▸ Set Dims of All Inputs… (ui/input_dims.py)."""
        from .input_dims import InputDims
        return InputDims(self.window, self.prompter)

    @functools.cached_property
    def scripts(self):
        """Edit ▸ Apply Edit Script… (ui/script_apply.py)."""
        from .script_apply import ScriptApplier
        return ScriptApplier(self.window, self.prompter)

    # -- document ----------------------------------------------------------------------------

    def set_document(self, qdoc) -> None:
        qdoc.history_changed.connect(self._update_actions)
        qdoc.refused.connect(self._refused)
        qdoc.unexpected.connect(lambda what, exc: self.prompter.report_unexpected(what, exc))
        self.history.set_document(qdoc)
        self.problems.set_document(qdoc)
        self.files.set_document(qdoc)
        self._update_actions()

    @property
    def qdoc(self):
        return self.window.qdoc

    def _update_actions(self) -> None:
        doc = self.qdoc.document if self.qdoc is not None else None
        self.undo_action.setEnabled(bool(doc and doc.can_undo))
        self.redo_action.setEnabled(bool(doc and doc.can_redo))
        if doc and doc.can_undo:
            undo = translate("EditActions", "&Undo {name}").format(name=display_name(doc.undo_name))
        else:
            undo = translate("EditActions", "&Undo")
        if doc and doc.can_redo:
            redo = translate("EditActions", "&Redo {name}").format(name=display_name(doc.redo_name))
        else:
            redo = translate("EditActions", "&Redo")
        self.undo_action.setText(undo)
        self.redo_action.setText(redo)
        self.files.update_title()

    def _refused(self, message: str) -> None:
        self.window.statusBar().showMessage(message, 15000)
        self.last_refusal = message

    def undo(self) -> None:
        if self.qdoc is not None:
            self.qdoc.undo()

    def redo(self) -> None:
        if self.qdoc is not None:
            self.qdoc.redo()

    def _edge_menu(self, menu, item) -> None:
        """Entries the canvas adds to an edge's context menu."""
        value = item.ref.value if item.ref is not None else None
        if value is not None:
            menu.addAction(translate("EditActions", "Insert Node on {name}…").format(name=value.name),
                           lambda: self.canvas.insert_on_edge(item))
            menu.addAction(translate("EditActions", "Disconnect {name}").format(name=value.name),
                           lambda: self.canvas.disconnect(item))

    def _reveal_problem(self, obj, graph) -> None:
        w = self.window
        if obj is not None:
            w.graph.reveal(obj, graph)
            if isinstance(obj, Node):
                w.properties.show_node(obj)
            elif isinstance(obj, Value):
                w.properties.show_value(obj)
        else:
            w.graph.show_graph(graph)


def _menu(window, title):
    from PySide6.QtWidgets import QMenu
    return QMenu(title, window)
