"""The shape every model edit has (the record of what an edit touched,
`Changes`, lives in core/changes.py, below the checker and inference).

An `Edit` is a small value object (a dataclass of names, paths and plain
values). `apply(model, changes)` performs it through the IR's mutators,
records what it touched in `changes`, and returns the inverse edit, which is
again an `Edit`.

The contract about identity (the one place it is written down; the
README and ARCHITECTURE.md point here):

- A forward edit, the kind a user or an edit script makes, names what it
  changes by graph path, node reference and value name, never by Python
  object, so it replays on another copy of the model (script.py writes it
  as JSON).
- An inverse may also hold the very objects its edit took out (the Node,
  the Value with its declared type, the Attr with its source message, the
  declaration's verbatim ValueInfo) in fields marked NOT_IN_SCRIPT, so
  undo gives back the file's bytes exactly. That is sound because the
  history is linear: an inverse is applied only to the model state its
  edit left, after every later step has been undone, so those objects are
  the ones that state lacks. Such fields are never written to a script.

An edit that would break the IR's invariants raises `EditError` *before*
changing anything; a `Macro` that fails half-way undoes the steps it did.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Optional

from ..changes import Changes  # noqa: F401 - re-exported: edits fill one in
from ..ir import IRError


class EditError(IRError):
    """An edit was refused. The message names the place and the reason; the
    model is unchanged."""


# Edit kinds by their JSON name, for edit scripts.
EDIT_KINDS: dict[str, type] = {}


def register(cls):
    """Class decorator: make an Edit kind known to edit scripts under `cls.kind`."""
    if cls.kind in EDIT_KINDS:
        raise AssertionError(f"edit kind {cls.kind!r} registered twice")
    EDIT_KINDS[cls.kind] = cls
    return cls


class Edit:
    """Base of every edit. Subclasses are dataclasses whose fields are plain
    JSON-able data (see script.py for tensors and graphs)."""
    kind: ClassVar[str] = ""

    def apply(self, model, changes: Optional[Changes] = None) -> "Edit":
        """Do the edit; record what it touched in `changes`; return the inverse."""
        raise NotImplementedError

    def describe(self) -> str:
        """A short name for menus and the history ("Set attribute kernel_shape of Conv \"c1\"")."""
        return self.kind

    def as_script_edit(self) -> Optional["Edit"]:
        """For an inverse of a kind scripts do not know, or one holding the
        objects it puts back (NOT_IN_SCRIPT fields): an edit of a kind they
        know doing the same from plain data alone, or None. Crash recovery
        writes the undo steps it needs past a save as a script."""
        return None

    def merge_key(self) -> Optional[tuple]:
        """Consecutive edits with the same non-None key merge into one undo step
        (typing into one field, dragging one slider)."""
        return None


@register
@dataclass
class Macro(Edit):
    """Several edits applied (and undone) as one."""
    kind: ClassVar[str] = "macro"
    edits: list = field(default_factory=list)
    name: str = ""

    def apply(self, model, changes: Optional[Changes] = None) -> "Macro":
        changes = changes if changes is not None else Changes()
        done: list[Edit] = []
        try:
            for e in self.edits:
                done.append(e.apply(model, changes))
        except Exception:
            for inv in reversed(done):
                inv.apply(model, Changes())
            raise
        return Macro(list(reversed(done)), self.name)

    def describe(self) -> str:
        return self.name or (self.edits[0].describe() if len(self.edits) == 1 else f"{len(self.edits)} edits")
