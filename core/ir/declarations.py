"""The containers a Graph keeps its inputs, outputs, value_info and
initializers in, and the one a Model keeps its local functions in
(`FunctionTable`, changed through `Model.add_function` and
`Model.remove_function`).

Read them like the list or dict they stand for: iterate, `len`, index,
`in` (O(1): by identity for a Value in a declaration list, by name for an
initializer table), `.get`, `.items()`, `.values()`, `.keys()`. They have no
public mutators: every change goes through the owning Graph's documented
methods (`add_input`, `insert_declaration`, `remove_declaration`,
`move_declaration`, `replace_declared`, `set_declaration_override`,
`add_initializer`, `remove_initializer`, `rename_value`), which keep the
value table, use lists and these containers' indexes consistent together.
The underscored methods here are those methods' tools and are called from
graph.py alone.

A declaration list also keeps, per entry, the ValueInfo message read from
the file when writing the entry from its value would not give it back (an
output re-declared with another type, an entry without a type for a value
another entry types, an explicit `elem_type: 0` the value's type cannot
tell from none): the writer puts it back verbatim, so an unedited
declaration saves as read. Retyping the value (SetValueType) drops the
messages of its entries: an edited declaration is written as the IR says.
Kept beside the entry, it moves with it when entries are inserted or
removed before it. The message is opaque here (no protobuf in the IR).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Iterator, Optional

# Which list a declaration is in: the Graph methods take these names.
KINDS = ("input", "output", "value_info")


class DeclarationList(Sequence):
    """A graph's inputs, outputs or value_info entries, in file order.
    A value may appear more than once (files repeat names); `in` and
    `count` are O(1)."""
    __slots__ = ("kind", "_items", "_overrides", "_count")

    def __init__(self, kind: str):
        self.kind = kind
        self._items: list = []
        self._overrides: list = []       # per entry: verbatim message or None
        self._count: dict[int, int] = {}  # id(value) -> entries holding it

    # -- reading ------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, i):
        return self._items[i]            # a slice gives a plain list (a copy)

    def __iter__(self) -> Iterator:
        return iter(self._items)

    def __contains__(self, value) -> bool:
        return id(value) in self._count

    def count(self, value) -> int:
        return self._count.get(id(value), 0)

    def index(self, value, start: int = 0, stop: Optional[int] = None) -> int:
        """Position of `value` (by identity); ValueError when absent."""
        if id(value) in self._count:
            for i in range(start, len(self._items) if stop is None else stop):
                if self._items[i] is value:
                    return i
        raise ValueError(f"{value!r} is not among the {self.kind}s")

    def find(self, name: str) -> int:
        """Position of the first entry called `name`, or -1."""
        for i, v in enumerate(self._items):
            if v.name == name:
                return i
        return -1

    def names(self) -> list[str]:
        return [v.name for v in self._items]

    def override(self, index: int):
        """The verbatim ValueInfo written for entry `index`, or None."""
        return self._overrides[index]

    def overrides(self) -> Iterator[tuple[int, object]]:
        """(position, message) of every entry written verbatim."""
        return ((i, m) for i, m in enumerate(self._overrides) if m is not None)

    def __eq__(self, other) -> bool:
        if isinstance(other, DeclarationList):
            other = other._items
        return isinstance(other, (list, tuple)) and len(other) == len(self._items) and \
            all(a is b for a, b in zip(self._items, other))

    __hash__ = None   # compared by content, like the list it stands for

    def __repr__(self) -> str:
        return f"{self.kind}s[{', '.join(self.names())}]"

    # -- graph.py's tools ---------------------------------------------------------

    def _insert(self, index: int, value, override=None) -> None:
        self._items.insert(index, value)
        self._overrides.insert(index, override)
        self._count[id(value)] = self._count.get(id(value), 0) + 1

    def _pop(self, index: int):
        value = self._items.pop(index)
        override = self._overrides.pop(index)
        n = self._count[id(value)] - 1
        if n:
            self._count[id(value)] = n
        else:
            del self._count[id(value)]
        return value, override

    def _replace(self, index: int, value) -> None:
        """Entry `index` becomes `value`; its verbatim message is dropped
        (it described the value that was there)."""
        self._pop(index)
        self._insert(index, value)

    def _set_override(self, index: int, override) -> None:
        self._overrides[index] = override


class KeyedTable(Mapping):
    """A read-only mapping in insertion order over a dict the owning IR
    object changes through its own methods (the subclasses' underscored
    tools)."""
    __slots__ = ("_table",)

    def __init__(self):
        self._table: dict = {}

    def __len__(self) -> int:
        return len(self._table)

    def __iter__(self) -> Iterator:
        return iter(self._table)

    def __contains__(self, key) -> bool:
        return key in self._table

    def __getitem__(self, key):
        return self._table[key]

    def get(self, key, default=None):
        return self._table.get(key, default)

    def keys(self):
        return self._table.keys()

    def values(self):
        return self._table.values()

    def items(self):
        return self._table.items()

    def __eq__(self, other) -> bool:
        if isinstance(other, KeyedTable):
            other = other._table
        return isinstance(other, dict) and other == self._table

    __hash__ = None   # compared by content, like the dict it stands for


class InitializerTable(KeyedTable):
    """A graph's dense or sparse initializers by name, in file order: reads
    like a dict (keys are names, `in` tests a name)."""
    __slots__ = ()

    def position(self, name: str) -> int:
        """Where `name` is in file order; ValueError when absent."""
        return list(self._table).index(name)

    def __repr__(self) -> str:
        return f"initializers{list(self._table)}"

    # -- graph.py's tools ---------------------------------------------------------

    def _add(self, value, index: Optional[int] = None) -> None:
        if index is None or index >= len(self._table):
            self._table[value.name] = value
            return
        items = list(self._table.items())
        items.insert(index, (value.name, value))
        self._table = dict(items)

    def _remove(self, name: str):
        return self._table.pop(name)

    def _rename(self, old: str, new: str) -> None:
        """Key `old` becomes `new`, in the same place."""
        self._table = {new if k == old else k: v for k, v in self._table.items()}


class FunctionTable(KeyedTable):
    """A model's local functions by key (domain, name, overload), in file
    order: reads like a dict. Changed only through the Model's
    `add_function`, `remove_function` and (serde's reader)
    `add_function_as_read`."""
    __slots__ = ()

    def snapshot(self) -> dict:
        """A plain dict of the table as it is now, for loops that look a
        key up per node (a dict's lookup costs less than a method call)."""
        return dict(self._table)

    def __repr__(self) -> str:
        return f"functions{list(self._table)}"

    # -- model.py's tools ---------------------------------------------------------

    def _add(self, function) -> None:
        self._table[function.key] = function

    def _remove(self, key):
        return self._table.pop(key)
