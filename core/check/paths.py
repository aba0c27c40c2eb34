"""Path strings for diagnostics, in the form the IR's `Node.path` uses:
`graph/node[12] Conv "conv1"/attribute "pads"`. One helper per kind of place
so every rule spells places the same way (the UI parses them to select)."""
from __future__ import annotations

import json
import re

from ..ir.text import as_text


_PLAIN = re.compile(r'[^"\\\x00-\x1f\x7f]*\Z')


def quote(name: str) -> str:
    # JSON quoting escapes quotes and control characters a name may contain;
    # most names have none (printable ASCII without " or \\ is tested by str
    # methods, which cost less than the regular expression).
    if name.__class__ is str and name.isascii() and name.isprintable() and '"' not in name and "\\" not in name:
        return f'"{name}"'
    name = as_text(name)
    if _PLAIN.match(name):
        return f'"{name}"'
    return json.dumps(name, ensure_ascii=False)


def shown(text) -> str:
    """`text` from the file as a message quotes it (its repr): bytes, what
    protobuf gives for invalid UTF-8, as the IR holds them (U+FFFD), never
    as a bytes literal."""
    return repr(as_text(text))


def node(graph_path: str, index: int, op_type: str, name: str) -> str:
    op_type = as_text(op_type)
    label = f"{graph_path}/node[{index}] {op_type}" if op_type else f"{graph_path}/node[{index}]"
    return f"{label} {quote(name)}" if name else label


def attribute(node_path: str, name: str) -> str:
    return f"{node_path}/attribute {quote(name)}"


def subgraph(node_path: str, attr_name: str, index=None) -> str:
    base = attribute(node_path, attr_name)
    return base if index is None else f"{base}[{index}]"


def node_input(node_path: str, index: int, name: str) -> str:
    return f"{node_path}/input[{index}] {quote(name)}"


def node_output(node_path: str, index: int, name: str) -> str:
    return f"{node_path}/output[{index}] {quote(name)}"


def graph_input(graph_path: str, index: int, name: str) -> str:
    return f"{graph_path}/input[{index}] {quote(name)}"


def graph_output(graph_path: str, index: int, name: str) -> str:
    return f"{graph_path}/output[{index}] {quote(name)}"


def initializer(graph_path: str, name: str, sparse: bool = False) -> str:
    kind = "sparse_initializer" if sparse else "initializer"
    return f"{graph_path}/{kind} {quote(name)}"


def value_info(graph_path: str, name: str) -> str:
    return f"{graph_path}/value_info {quote(name)}"


def function(name: str, overload: str = "") -> str:
    return f"functions/{quote(name)}" + (f"[{quote(overload)}]" if overload else "")


class Lazy:
    """A path built only when something reads it: most nodes have no
    diagnostic, and spelling every node's path costs more than checking it."""
    __slots__ = ("_fn", "_args", "_text")

    def __init__(self, fn, *args):
        self._fn = fn
        self._args = args
        self._text = None

    def __str__(self) -> str:
        text = self._text
        if text is None:
            text = self._text = self._fn(*[str(a) if a.__class__ is Lazy else a for a in self._args])
        return text

    def __format__(self, spec) -> str:
        return format(str(self), spec)
