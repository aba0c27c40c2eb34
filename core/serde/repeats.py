"""Keys a file gives more than once.

Some ONNX lists name their entries by a key that must be unique: a node's
attributes and a function's attribute defaults (by name), the model's
metadata (by key) and its functions (by domain, name, overload). The IR
holds each in a dict, one entry per key: the one ONNX readers use (the last
attribute or metadata value, the first function). A file repeating a key is
damaged (onnx's checker and ours reject it), and the other entries must
neither vanish from a save nor hide from the checker, which judges what
serde writes.

They stay in the source messages the IR keeps. At load, the reader records
per repeated key the entry it kept and the others (`last_wins`,
`first_wins`); the writer puts the others back around the kept entry
(`Repeats.around`) while that entry is still the one read. Once an edit
replaces or removes it, the edit has said which one value the key has, and
the others are no longer written.
"""
from __future__ import annotations

from typing import Callable, Iterable, Optional


class Repeats:
    """key -> (the kept entry's marker, entries written before it, entries
    written after it). The marker is what the IR object holds while the kept
    entry is unedited: an attribute's source message, the metadata value's
    str object, a function's source message."""
    __slots__ = ("_by_key",)

    def __init__(self, by_key: dict):
        self._by_key = by_key

    def around(self, key, marker) -> Optional[tuple]:
        """(before, after) for the entry the IR holds under `key`, or None
        when the key was not repeated or its entry is no longer the one read."""
        found = self._by_key.get(key)
        if found is None or found[0] is not marker:
            return None
        return found[1], found[2]


class KeptText(str):
    """A metadata value as read, of a key the file repeats. Its own object
    of its own type, so the writer tells it from any value set later, even
    the same text (CPython shares the object of short strings)."""
    __slots__ = ()


def _groups(entries: Iterable, key_of: Callable) -> dict:
    groups: dict = {}
    for e in entries:
        groups.setdefault(key_of(e), []).append(e)
    return {k: g for k, g in groups.items() if len(g) > 1}


def last_wins(entries: Iterable, key_of: Callable, marker_of: Callable) -> Optional[Repeats]:
    """Repeats of a list whose last entry per key is the one kept;
    `marker_of(key, last entry)` is what the IR holds for it."""
    groups = _groups(entries, key_of)
    if not groups:
        return None
    return Repeats({k: (marker_of(k, g[-1]), tuple(g[:-1]), ()) for k, g in groups.items()})


def first_wins(entries: Iterable, key_of: Callable, marker_of: Callable) -> Optional[Repeats]:
    """Repeats of a list whose first entry per key is the one kept."""
    groups = _groups(entries, key_of)
    if not groups:
        return None
    return Repeats({k: (marker_of(k, g[0]), (), tuple(g[1:])) for k, g in groups.items()})
