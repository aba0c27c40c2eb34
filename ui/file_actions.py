"""Save, Save As, the edit script, the unsaved-changes question and the title.

Saving goes through `Document.save` (serde's atomic write). Before writing
over the document's own file, its size and modification time are compared
with what they were when it was opened or last saved, so a file changed
behind the app's back is not overwritten silently. A model with errors can
be saved after a warning.
"""
from __future__ import annotations

import json
import os
import pathlib

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFileDialog

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")

SAVE_FILTER = QT_TRANSLATE_NOOP("FileActions", "ONNX model (*.onnx);;All files (*)")
# Button labels are the answers' keys; the Prompter shows them translated.
WEIGHTS_CHOICES = (QT_TRANSLATE_NOOP("Prompter", "Keep as they are"),
                   QT_TRANSLATE_NOOP("Prompter", "All inside the model file"),
                   QT_TRANSLATE_NOOP("Prompter", "In an external data file"))


def _tr(text: str) -> str:
    return translate("FileActions", text)


def file_stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


class FileActions:
    def __init__(self, window, prompter, recovery):
        """`recovery`: the window's Recovery (ui/recovery_prompt.py), told of
        each save so the autosaved steps before it are dropped."""
        self.window = window
        self.prompter = prompter
        self.recovery = recovery
        self.qdoc = None
        self.stamp = None          # (size, mtime) of the file when opened / saved
        # Tests (and a future settings dialog) answer the file dialogs here.
        self.choose_save_path = self._choose_save_path
        self.choose_weights = self._choose_weights

    def add_to_menu(self, menu) -> None:
        first = menu.actions()[3] if len(menu.actions()) > 3 else None
        self.save_action = _action(self.window, translate("FileActions", "&Save"), self.save, QKeySequence.Save)
        self.save_as_action = _action(self.window, translate("FileActions", "Save &As…"), self.save_as,
                                      QKeySequence("Ctrl+Shift+S"))
        menu.insertActions(first, [self.save_action, self.save_as_action])
        menu.insertSeparator(first)

    def set_document(self, qdoc) -> None:
        self.qdoc = qdoc
        path = qdoc.document.path
        self.stamp = file_stamp(path) if path is not None else None
        self.update_title()

    # -- title and questions ----------------------------------------------------------------

    def update_title(self) -> None:
        doc = self.qdoc.document if self.qdoc is not None else None
        if doc is None:
            return
        name = doc.path.name if doc.path is not None else "untitled"
        self.window.setWindowTitle(f"{name}{'*' if doc.dirty else ''} — onnxstudio")

    def maybe_keep_changes(self) -> bool:
        """Before closing or opening another model: True when it is fine to go
        on (saved, discarded or nothing to save), False to stay."""
        doc = self.qdoc.document if self.qdoc is not None else None
        if doc is None or not doc.dirty:
            return True
        name = doc.path.name if doc.path else translate("FileActions", "the model")
        answer = self.prompter.ask(translate("FileActions", "Unsaved changes"),
                                   translate(
                                       "FileActions", "{name} has unsaved changes. Save them?").format(name=name),
                                   ("Save", "Discard", "Cancel"), "Cancel")
        if answer == "Save":
            return self.save()
        return answer == "Discard"

    # -- saving ---------------------------------------------------------------------------------

    def save(self) -> bool:
        doc = self.qdoc.document if self.qdoc is not None else None
        if doc is None:
            return False
        if doc.path is None or _is_bundled(doc.path):
            return self.save_as()
        if self._file_is_as_opened(doc):
            # A save would write the same model again: on a multi-GB model with
            # external data a long, pointless write that also moves the mtime.
            self.window.statusBar().showMessage(
                translate("FileActions", "Nothing to save: {name} has no changes since it was opened or saved "
                          "(Save As writes a copy)").format(name=doc.path.name), 8000)
            return True
        return self._save_to(doc.path, None)

    def _file_is_as_opened(self, doc) -> bool:
        """Whether the file on disk already holds the unedited document: not
        edited, the file is still the one read or written (size and mtime),
        and the checker has found no text a save would repair (a damaged
        file's invalid UTF-8 is written as U+FFFD). Before the checker has
        run that is unknown, and the save writes."""
        if doc.dirty or self.stamp is None or file_stamp(doc.path) != self.stamp or not self.qdoc.ready:
            return False
        return not any(d.code == "text.invalid-utf8" for d in doc.diagnostics)

    def save_as(self) -> bool:
        doc = self.qdoc.document if self.qdoc is not None else None
        if doc is None:
            return False
        path = self.choose_save_path()
        if not path:
            return False
        from onnxstudio.core.serde.io import PROTOBUF_LIMIT, SaveOptions, has_external_data, inline_size
        # Where the weights go is a question only when there is a choice to
        # make: some are in an external file, or all inline would pass
        # protobuf's 2 GB limit. An all-inline model stays all inline.
        model = doc.model
        if has_external_data(model) or inline_size(model) >= PROTOBUF_LIMIT:
            choice = self.choose_weights()
        else:
            choice = WEIGHTS_CHOICES[0]
        if choice is None:
            return False
        options = None
        if choice == WEIGHTS_CHOICES[1]:
            options = SaveOptions(external_data="")
        elif choice == WEIGHTS_CHOICES[2]:
            options = SaveOptions(external_data=pathlib.Path(path).name + ".data")
        return self._save_to(pathlib.Path(path), options)

    def _save_to(self, path: pathlib.Path, options) -> bool:
        doc = self.qdoc.document
        errors = [d for d in doc.diagnostics if int(d.severity) >= 2] if self.qdoc.ready else []
        if errors:
            answer = self.prompter.ask(
                translate("FileActions", "Save a model with errors?"),
                (translate("FileActions", "The checker reports {n} error: {first}. "
                           "Other tools may refuse this file. Save anyway?") if len(errors) == 1
                 else translate("FileActions", "The checker reports {n} errors, the first: {first}. "
                                "Other tools may refuse this file. Save anyway?")
                 ).format(n=len(errors), first=errors[0]),
                ("Save", "Cancel"), "Save")
            if answer != "Save":
                return False
        same_file = doc.path is not None and _same(path, doc.path)
        if same_file and self.stamp is not None and file_stamp(path) != self.stamp:
            answer = self.prompter.ask(
                translate("FileActions", "File changed on disk"),
                translate(
                    "FileActions", "{path} was changed by another program since it was opened. "
                    "Overwrite it?").format(path=path),
                ("Overwrite", "Cancel"), "Cancel")
            if answer != "Overwrite":
                return False
        try:
            doc.save(path, options)
        except (OSError, ValueError) as exc:
            self.prompter.warn(translate("FileActions", "Save failed"), translate(
                "FileActions", "{path}: {error}. The file on disk was not changed.").format(path=path, error=exc))
            self.window.statusBar().showMessage(
                translate("FileActions", "Save failed: {error}").format(error=exc), 15000)
            return False
        except Exception as exc:  # noqa: BLE001 - serde errors and bugs alike: dialog, no traceback
            from onnxstudio.core.errors import CoreError
            if isinstance(exc, CoreError):
                # serde's errors name the file already (SaveError): once is enough.
                text = str(exc) if str(path) in str(exc) else f"{path}: {exc}"
                self.prompter.warn(translate("FileActions", "Save failed"), text)
            else:
                self.prompter.report_unexpected(
                    translate("FileActions", "Saving {path}").format(path=path), exc)
            return False
        self.stamp = file_stamp(path)
        self.window.path = path
        self.window.statusBar().showMessage(_saved_text(path, doc.last_save), 8000)
        self.update_title()
        self.recovery.saved()
        return True

    def save_script(self) -> None:
        doc = self.qdoc.document if self.qdoc is not None else None
        if doc is None:
            return
        from onnxstudio.core.edits.script import to_script
        base = (doc.path.with_suffix(".edits.json") if doc.path else pathlib.Path("edits.json"))
        path, _ = QFileDialog.getSaveFileName(
            self.window, translate("FileActions", "Save edits as script"), str(base),
            translate("FileActions", "Edit script (*.json)"))
        if not path:
            return
        write_script(path, to_script(doc.applied_edits()))
        self.window.statusBar().showMessage(
            translate("FileActions", "Wrote {path}").format(path=path), 8000)

    # -- dialogs (replaceable) ------------------------------------------------------------------

    def _choose_save_path(self) -> str:
        doc = self.qdoc.document
        start = str(doc.path) if doc.path is not None and not _is_bundled(doc.path) else "model.onnx"
        path, _ = QFileDialog.getSaveFileName(
            self.window, translate("FileActions", "Save model as"), start, _tr(SAVE_FILTER))
        return path

    def _choose_weights(self):
        answer = self.prompter.ask(translate("FileActions", "Weights"),
                                   translate(
                                       "FileActions", "Where should the weights (tensors ≥ 1 KB) go?"),
                                   WEIGHTS_CHOICES + ("Cancel",), WEIGHTS_CHOICES[0])
        return None if answer == "Cancel" else answer


def _saved_text(path, saved) -> str:
    """'Saved PATH', and what the save appended to data files: a save in
    place never rewrites them, so they only grow (Save As writes compact ones)."""
    text = translate("FileActions", "Saved {path}").format(path=path)
    appended = saved.appended if saved is not None else {}
    if appended:
        from onnxstudio.core.summary import human_bytes
        text += "; " + translate("FileActions", "appended {files} (the data files only grow: Save As writes "
                                 "compact ones)").format(
            files=", ".join(translate("FileActions", "{size} to {file}").format(size=human_bytes(size), file=name)
                            for name, size in appended.items()))
    return text


def write_script(path, data) -> None:
    tmp = pathlib.Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(data, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def _same(a, b) -> bool:
    try:
        return pathlib.Path(a).resolve() == pathlib.Path(b).resolve()
    except OSError:
        return False


def _is_bundled(path) -> bool:
    """The demo model ships inside the package: never write over it."""
    from onnxstudio import resources
    return pathlib.Path(resources.__file__).resolve().parent in pathlib.Path(path).resolve().parents


def _action(window, text, slot, shortcut) -> QAction:
    action = QAction(text, window)
    action.setShortcut(shortcut)
    action.triggered.connect(lambda _=False: slot())
    return action
