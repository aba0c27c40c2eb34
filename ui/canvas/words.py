"""The few fixed words core.layout writes into box labels, in the UI's language.

`core.layout` is Qt-free and labels boxes in English: an input box's note
"not defined" / "from enclosing graph", an output's "constant", a closed
group's first line "12 nodes" (or "1 node"), and the name of the group it makes for
constants nothing reads, "⟨unused constants⟩". Core keeps those texts (the
CLI and tests read them); the canvas shows a label through `shown_label`,
and measures that same shown label (scene.measure_label), so every box is
sized for the text drawn in it. Everything else in a label (op types,
attribute names, value names and types, "MatMul ×4") comes from the model
or the spec and is shown as it is.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

from onnxstudio.core.layout.from_graph import UNUSED_GROUP
from onnxstudio.core.layout.view import GROUP, INPUT, OUTPUT, NodeLabel

CONTEXT = "CanvasWords"

# The note on the last line of an input or output box (core/layout/from_graph.py).
NOTES = {
    "not defined": QT_TRANSLATE_NOOP("CanvasWords", "not defined"),
    "from enclosing graph": QT_TRANSLATE_NOOP("CanvasWords", "from enclosing graph"),
    "constant": QT_TRANSLATE_NOOP("CanvasWords", "constant"),
}
# Group names core makes up (not scopes of the model).
GROUP_NAMES = {
    UNUSED_GROUP[-1]: QT_TRANSLATE_NOOP("CanvasWords", "⟨unused constants⟩"),
}
# A closed group's first line (core/layout/labels.py group_label): "1 node", "12 nodes".
NODE_COUNT = re.compile(r"(\d+) nodes?")
NODE_COUNT_TEXT = QT_TRANSLATE_NOOP("CanvasWords", "{n} nodes")
ONE_NODE_TEXT = QT_TRANSLATE_NOOP("CanvasWords", "{n} node")


def _tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


def group_name(name: str) -> str:
    """A group's (last) name as shown: made-up names translated, scopes as they are."""
    source = GROUP_NAMES.get(name)
    return name if source is None else _tr(source)


def group_path_text(path) -> str:
    """"a/b/c" for a group path, each made-up name translated."""
    return "/".join(group_name(str(p)) for p in path)


def node_count_line(line: str) -> str:
    match = NODE_COUNT.fullmatch(line)
    if match is None:
        return line
    n = int(match.group(1))
    return _tr(ONE_NODE_TEXT if n == 1 else NODE_COUNT_TEXT).format(n=n)


def shown_label(label: NodeLabel) -> NodeLabel:
    """`label` as the canvas draws (and measures) it in the UI's language;
    the same object when nothing in it is translated (every op box)."""
    kind = label.kind
    if kind in (INPUT, OUTPUT):
        if not label.lines or label.lines[-1] not in NOTES:
            return label
        return NodeLabel(kind, label.title, label.lines[:-1] + (_tr(NOTES[label.lines[-1]]),))
    if kind == GROUP:
        lines = label.lines
        if lines:
            lines = (node_count_line(lines[0]),) + lines[1:]
        title = group_name(label.title)
        if title == label.title and lines == label.lines:
            return label
        return NodeLabel(kind, title, lines)
    return label
