"""The values visible while running one graph."""
from __future__ import annotations

from typing import Optional


class Frame:
    """A graph's values by name; `parent` is the enclosing graph's frame,
    whose names a body may read (outer scope)."""
    __slots__ = ("values", "parent")

    def __init__(self, values: dict, parent: Optional["Frame"] = None):
        self.values = values
        self.parent = parent

    def get(self, name: str):
        f = self
        while f is not None:
            if name in f.values:
                return f.values[name]
            f = f.parent
        raise KeyError(name)
