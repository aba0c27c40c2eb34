"""Names of edit steps, in the UI's language.

`core.edits` names its steps in English ("Set attribute pads", "Insert Relu
after x") and cannot use Qt. The history dock and the Undo/Redo menu items
show those names through this table: each English pattern has a
translatable template with the same fields, so names, ops and ONNX field
names inside stay as they are. A name no pattern knows (a new kind of edit,
or one the UI named itself, already translated) is shown unchanged.
"""
from __future__ import annotations

import functools
import re

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

CONTEXT = "StepNames"

# Each entry is a template whose English text is also its pattern (each
# {field} matching the text GROUPS gives it, anything by default), or a
# (pattern over the whole English name, template) pair where the two differ.
# The specific before the general: "Add input x" is not "Add {op}", "Set
# attribute a" not "Set {field} of node".
PATTERNS = [
    QT_TRANSLATE_NOOP("StepNames", "Set model {field}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove opset {domain}"),
    QT_TRANSLATE_NOOP("StepNames", "Set opset {domain} to {version}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove metadata {key}"),
    QT_TRANSLATE_NOOP("StepNames", "Set metadata {key}"),
    QT_TRANSLATE_NOOP("StepNames", "Set graph {field}"),
    QT_TRANSLATE_NOOP("StepNames", "Set attribute {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove attribute {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Add initializer {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove initializer {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Set initializer {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Set type of {value}"),
    QT_TRANSLATE_NOOP("StepNames", "Set shape of {value}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove value_info of {value}"),
    (r"Remove value_info (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove value_info of {value}")),
    QT_TRANSLATE_NOOP("StepNames", "Declare {value}"),
    QT_TRANSLATE_NOOP("StepNames", "Add input {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove repeated input {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove input {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Move input {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Add output {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove repeated output {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Remove output {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Move output {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Move value_info {name}"),
    QT_TRANSLATE_NOOP("StepNames", "Connect input {index} of {node} to {value}"),
    QT_TRANSLATE_NOOP("StepNames", "Clear input {index} of {node}"),
    QT_TRANSLATE_NOOP("StepNames", "Set node inputs"),
    QT_TRANSLATE_NOOP("StepNames", "Set node outputs"),
    QT_TRANSLATE_NOOP("StepNames", "Remove node {node}"),
    QT_TRANSLATE_NOOP("StepNames", "Set {field} of node {node}"),
    QT_TRANSLATE_NOOP("StepNames", "Insert {op} after {value}"),
    QT_TRANSLATE_NOOP("StepNames", "Delete {node} and reconnect"),
    QT_TRANSLATE_NOOP("StepNames", "Replace {n} nodes by {op}"),
    QT_TRANSLATE_NOOP("StepNames", "Replace {n} node by {op}"),
    QT_TRANSLATE_NOOP("StepNames", "Make {name} an input"),
    QT_TRANSLATE_NOOP("StepNames", "Make {name} a constant"),
    QT_TRANSLATE_NOOP("StepNames", "Rename {old} to {new}"),
    QT_TRANSLATE_NOOP("StepNames", "Sort nodes"),
    QT_TRANSLATE_NOOP("StepNames", "Clean up"),
    QT_TRANSLATE_NOOP("StepNames", "{n} edits"),
    QT_TRANSLATE_NOOP("StepNames", 'Add {op} "{name}"'),
    QT_TRANSLATE_NOOP("StepNames", "Add {op}"),
    # Edits without a name of their own are named by their kind.
    QT_TRANSLATE_NOOP("StepNames", "Reorder nodes"),
    (r"set_node_order", QT_TRANSLATE_NOOP("StepNames", "Reorder nodes")),
    (r"reorder_back", QT_TRANSLATE_NOOP("StepNames", "Reorder nodes")),
    (r"restore_opset", QT_TRANSLATE_NOOP("StepNames", "Restore opset")),
    (r"add_value_info", QT_TRANSLATE_NOOP("StepNames", "Add value_info")),
    (r"undeclare", QT_TRANSLATE_NOOP("StepNames", "Remove declaration")),
]
# What a {field} of a template matches in the English name (default: anything).
GROUPS = {"field": r"\w+", "domain": r"\S+", "version": r"\S+", "op": r"\S+", "index": r"\d+", "n": r"\d+"}


def _pattern(template: str) -> str:
    """The English name `template` translates, as a pattern."""
    parts = re.split(r"\{(\w+)\}", template)
    return "".join(re.escape(part) if i % 2 == 0 else f"(?P<{part}>{GROUPS.get(part, '.*')})"
                   for i, part in enumerate(parts))


@functools.cache
def _compiled() -> list:
    # Compiled when a step is first named, not when the window is built
    # (~50 patterns: 10 ms of the app's start).
    return [(re.compile(_pattern(entry), re.S), entry) if isinstance(entry, str)
            else (re.compile(entry[0], re.S), entry[1]) for entry in PATTERNS]


def display_name(name: str) -> str:
    """`name` (a core edit's English name) in the UI's language."""
    for regex, template in _compiled():
        match = regex.fullmatch(name)
        if match is not None:
            fields = {k: v or "" for k, v in match.groupdict().items()}
            return QCoreApplication.translate(CONTEXT, template).format(**fields)
    return name
