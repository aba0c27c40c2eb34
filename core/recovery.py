"""Recovery files: the unsaved edit history of an open model, kept on disk so
a crash loses at most the last autosave interval.

A recovery file holds no copy of the model, only where the model came from
and the edits made since (an edit script per undo step), so it stays small
even for a 5 GB model; the values an edit sets are in its step, and so are
the old values a weight gets back from an undo past the last save, unless a
file on disk still holds that very tensor (core/file_tensors.py names it
instead). Recovering opens the original file again and replays the steps:

    {"format": "onnxstudio-recovery/1", "pid": 1234, "written": 1700000000.0,
     "original": {"path": "/abs/model.onnx", "size": 123, "mtime_ns": ..., "head": "<sha256>"},
     "steps": [{"name": "Set group of conv1", "edits": [<edit script entries>]}, ...]}

The file size, modification time and a hash of the file's first 64 KB tell
whether the original was changed since (then some steps may no longer
apply; each one that does not is named and skipped, the rest are kept).

One file per open document under $XDG_STATE_HOME/onnxstudio/recovery/ (or
$ONNXSTUDIO_RECOVERY_DIR), written beside and renamed into place, removed when
the model is saved or closed cleanly. A file whose writer process is still
alive belongs to another running instance and is never offered.

No Qt here; ui/recovery_prompt.py adds the timer and the questions.
"""
from __future__ import annotations

import json
import os
import pathlib
import time
from dataclasses import dataclass, field

from .errors import CoreError
from .file_tensors import TAG, FileTensors, Resolver, file_identity

FORMAT = "onnxstudio-recovery/1"


def recovery_dir() -> pathlib.Path:
    override = os.environ.get("ONNXSTUDIO_RECOVERY_DIR")
    if override:
        return pathlib.Path(override)
    base = os.environ.get("XDG_STATE_HOME") or str(pathlib.Path.home() / ".local" / "state")
    return pathlib.Path(base) / "onnxstudio" / "recovery"


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:       # someone else's process: alive, not ours to offer
        return True
    except OSError:
        return False
    return True


class History:
    """Turns a Document's history into the steps a recovery file records,
    relative to the file on disk (the "base": the file opened or last saved).

    After a save the base is the saved state; if the user then undoes past it
    and edits, the saved steps are no longer in the history, so the recovery
    starts with their inverses (kept from the Step objects) before the new steps.
    """

    def __init__(self, document):
        self.document = document
        self.base_steps: list = list(document.steps[:document.index])
        # Weights files on disk hold: an undo putting one back names it there.
        self.on_disk = FileTensors()
        self.on_disk.note(document.model, document.path)
        # The undo steps past the save, written once: a step before a save
        # no longer changes, and one may put back a weight of many MB.
        self.undone: dict[int, tuple] = {}      # id(step) -> (step, its entry)
        self.texts: dict[int, tuple] = {}       # id(entry) -> (entry, its JSON text)

    def rebase(self) -> None:
        """The document was just saved: the file on disk is the current state."""
        self.base_steps = list(self.document.steps[:self.document.index])
        self.on_disk.note(self.document.model, self.document.path)
        self.undone, self.texts = {}, {}

    def steps(self) -> list[dict]:
        """The steps from the base file to the document's state. Raises
        Unrecordable when an undo the file would need cannot be written as a
        script (it holds an object only this process has)."""
        from .edits.script import to_script
        doc = self.document
        now = doc.steps[:doc.index]
        common = 0
        while (common < len(self.base_steps) and common < len(now)
               and self.base_steps[common] is now[common]):
            common += 1
        out = [self._undo_entry(step) for step in reversed(self.base_steps[common:])]
        for step in now[common:]:
            out.append({"name": step.name, "edits": to_script(step.forward)})
        return out

    def _undo_entry(self, step) -> dict:
        """The recovery step undoing `step` (a step of the saved state)."""
        kept = self.undone.get(id(step))
        if kept is not None and kept[0] is step:
            return kept[1]
        try:
            inverse = [_scriptable(e) for e in step.inverse]
        except Unrecordable:
            raise Unrecordable(_UNDONE_PAST_SAVE.format(step=step.name)) from None
        try:
            edits = [self._edit_json(e) for e in inverse]
        except CoreError as e:
            # The undo puts back a weight whose data cannot be read (an
            # unreadable external reference): its values cannot be written,
            # and the file on disk no longer holds it.
            raise Unrecordable(f"{_UNDONE_PAST_SAVE.format(step=step.name)} ({e})") from None
        entry = {"name": f"Undo {step.name}", "edits": edits}
        text = json.dumps(entry, separators=(",", ":"))
        if TAG not in text:
            # One naming a file is small, and looked at again each time: the
            # file may change, and then the values are written instead.
            self.undone[id(step)] = (step, entry)
            self.texts[id(entry)] = (entry, text)
        return entry

    def text(self, entry: dict) -> str:
        """`entry` (one of steps()) as JSON; an undo step's text is kept
        (encoding tens of MB of weights takes most of a second)."""
        kept = self.texts.get(id(entry))
        if kept is not None and kept[0] is entry:
            return kept[1]
        return json.dumps(entry, separators=(",", ":"))

    def _edit_json(self, edit) -> dict:
        """`edit` as a script entry; the weight it puts back named in a file
        that still holds it rather than written out (core/file_tensors.py)."""
        import dataclasses
        from .edits import Macro
        from .edits.script import edit_to_json
        if isinstance(edit, Macro):
            out = edit_to_json(dataclasses.replace(edit, edits=[]))
            out["edits"] = [self._edit_json(e) for e in edit.edits]
            return out
        ref = self.on_disk.reference(getattr(edit, "array", None))
        if ref is None:
            return edit_to_json(edit)
        out = edit_to_json(dataclasses.replace(edit, array=None))
        out["array"] = ref
        return out


class Unrecordable(ValueError):
    """The history cannot be written relative to the file on disk."""


def _scriptable(edit):
    """`edit` in a form an edit script keeps whole. An inverse may be of a
    kind scripts do not know or carry the exact objects it puts back
    (fields a script leaves out): its `as_script_edit` gives the same from
    plain data, or None when that cannot be done, and then the step cannot
    be recorded."""
    import dataclasses
    from .edits import EDIT_KINDS, Macro
    if isinstance(edit, Macro):
        return dataclasses.replace(edit, edits=[_scriptable(e) for e in edit.edits])
    if EDIT_KINDS.get(edit.kind) is not type(edit) or _holds_objects(edit):
        known = edit.as_script_edit()
        if known is None or known is edit:
            raise Unrecordable(_UNDONE_PAST_SAVE.format(step=edit.describe()))
        return _scriptable(known)
    return edit


def _holds_objects(edit) -> bool:
    """Some field a script leaves out holds what the edit puts back (text
    kept only to name the step, such as an op type, does not count)."""
    import dataclasses
    return any(not f.metadata.get("json", True) and not isinstance(getattr(edit, f.name), (str, type(None)))
               for f in dataclasses.fields(edit))


_UNDONE_PAST_SAVE = ("an undo past the last save ({step}) cannot be kept for crash recovery; "
                     "save the model to keep it as it is now")


@dataclass
class RecoveryFile:
    path: pathlib.Path            # the recovery file itself
    original: dict                # file_identity() of the model when the edits started
    steps: list                   # [{"name", "edits"}]
    pid: int = 0
    written: float = 0.0
    problems: list = field(default_factory=list)

    @property
    def model_path(self) -> pathlib.Path:
        return pathlib.Path(self.original["path"])

    def original_changed(self) -> str:
        """"" when the model file is as it was; else why it differs."""
        now = file_identity(self.model_path)
        if now is None:
            return "the file is gone or cannot be read"
        if now["size"] != self.original.get("size") or now["head"] != self.original.get("head"):
            return "the file was changed since"
        if now["mtime_ns"] != self.original.get("mtime_ns"):
            return "the file was touched since (same size and header)"
        return ""


class RecoveryWriter:
    """Writes (atomically) and removes one document's recovery file."""

    _counter = 0

    def __init__(self, document, directory=None):
        self.document = document
        self.directory = pathlib.Path(directory) if directory is not None else recovery_dir()
        RecoveryWriter._counter += 1
        stem = pathlib.Path(document.path).stem if document.path is not None else "untitled"
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in stem)[:60]
        self.path = self.directory / f"{safe}-{os.getpid()}-{RecoveryWriter._counter}.json"
        self.history = History(document)
        self.original = file_identity(document.path) if document.path is not None else None
        self.written_revision = document.revision

    @property
    def recoverable(self) -> bool:
        """Only a document opened from a file can be replayed on it."""
        return self.original is not None

    def saved(self) -> None:
        """The document was saved: its file is the new base; nothing to recover."""
        if self.document.path is not None:
            self.original = file_identity(self.document.path)
        self.history.rebase()
        self.remove()
        self.written_revision = self.document.revision

    def write(self) -> bool:
        """Write the recovery file if the document has unsaved edits (remove
        it when it has none). True when a file was written."""
        self.written_revision = self.document.revision
        if not self.recoverable or not self.document.dirty:
            self.remove()
            return False
        try:
            steps = self.history.steps()
        except Unrecordable:
            # An older file would bring back a state the user has left (edits
            # since undone): none is better than that.
            self.remove()
            raise
        if not steps:
            self.remove()
            return False
        head = json.dumps({"format": FORMAT, "pid": os.getpid(), "written": time.time(),
                           "original": self.original}, separators=(",", ":"))
        text = head[:-1] + ',"steps":[' + ",".join(self.history.text(s) for s in steps) + "]}"
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)
        return True

    @property
    def stale(self) -> bool:
        """Edits happened since the last write."""
        return self.written_revision != self.document.revision

    def remove(self) -> None:
        for p in (self.path, self.path.with_name(self.path.name + ".tmp")):
            try:
                p.unlink()
            except FileNotFoundError:
                pass
            except OSError:
                pass


def read(path) -> RecoveryFile:
    """Parse one recovery file; ValueError names the file and what is wrong."""
    path = pathlib.Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: cannot be read as a recovery file ({e})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not an onnxstudio recovery file")
    original, steps = data.get("original"), data.get("steps")
    if not isinstance(original, dict) or not isinstance(original.get("path"), str):
        raise ValueError(f"{path}: 'original' does not name the model file")
    if not isinstance(steps, list) or not all(
            isinstance(s, dict) and isinstance(s.get("name"), str) and isinstance(s.get("edits"), list)
            for s in steps):
        raise ValueError(f"{path}: 'steps' is not a list of named edit lists")
    pid = data.get("pid") if isinstance(data.get("pid"), int) else 0
    written = data.get("written") if isinstance(data.get("written"), (int, float)) else 0.0
    return RecoveryFile(path, original, steps, pid, float(written))


def pending(directory=None) -> tuple[list[RecoveryFile], list[str]]:
    """Recovery files left by instances that are no longer running (newest
    first), and a message for each unreadable one (which is left in place)."""
    directory = pathlib.Path(directory) if directory is not None else recovery_dir()
    found, problems = [], []
    if not directory.is_dir():
        return found, problems
    for p in sorted(directory.glob("*.json")):
        try:
            rf = read(p)
        except ValueError as e:
            problems.append(str(e))
            continue
        if rf.pid and _alive(rf.pid):
            continue
        found.append(rf)
    found.sort(key=lambda r: r.written, reverse=True)
    return found, problems


@dataclass
class Outcome:
    applied: int = 0
    skipped: list = field(default_factory=list)     # "step 3 (Set group of conv1): reason"


def recover(document, rf: RecoveryFile) -> Outcome:
    """Replay the recorded steps on `document` (the original, just opened),
    each as its own undo step. A step that no longer applies is skipped and
    named; the others are kept."""
    from .edits import EditError
    from .edits.script import from_script
    from .errors import CoreError
    out = Outcome()
    files = Resolver()
    for i, step in enumerate(rf.steps, 1):
        try:
            edits = from_script(files.resolve(step["edits"]))
            with document.macro(step["name"]):
                for edit in edits:
                    document.apply(edit)
        except (EditError, CoreError) as e:      # CoreError: a weight's file changed or cannot be read
            out.skipped.append(f"step {i} ({step['name']}): {e}")
            continue
        except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
            out.skipped.append(f"step {i} ({step['name']}) is malformed: {type(e).__name__}: {e}")
            continue
        out.applied += 1
    return out


def discard(rf: RecoveryFile) -> None:
    try:
        rf.path.unlink()
    except OSError:
        pass
