"""Names of edit steps, in the UI's language.

`core.edits` names its steps in English ("Set attribute pads", "Insert Relu
after x") and cannot use Qt. The history dock and the Undo/Redo menu items
show those names through this table: each English pattern has a
translatable template with the same fields, so names, ops and ONNX field
names inside stay as they are. A name no pattern knows (a new kind of edit,
or one the UI named itself, already translated) is shown unchanged.
"""
from __future__ import annotations

import re

from PySide6.QtCore import QCoreApplication, QT_TRANSLATE_NOOP

CONTEXT = "StepNames"

# (pattern over the whole English name, template). The specific before the
# general: "Add input x" is not "Add {op}", "Set attribute a" not "Set {field} of node".
PATTERNS = [
    (r"Set model (?P<field>\w+)", QT_TRANSLATE_NOOP("StepNames", "Set model {field}")),
    (r"Remove opset (?P<domain>\S+)", QT_TRANSLATE_NOOP("StepNames", "Remove opset {domain}")),
    (r"Set opset (?P<domain>\S+) to (?P<version>\S+)",
     QT_TRANSLATE_NOOP("StepNames", "Set opset {domain} to {version}")),
    (r"Remove metadata (?P<key>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove metadata {key}")),
    (r"Set metadata (?P<key>.*)", QT_TRANSLATE_NOOP("StepNames", "Set metadata {key}")),
    (r"Set graph (?P<field>\w+)", QT_TRANSLATE_NOOP("StepNames", "Set graph {field}")),
    (r"Set attribute (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Set attribute {name}")),
    (r"Remove attribute (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove attribute {name}")),
    (r"Add initializer (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Add initializer {name}")),
    (r"Remove initializer (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove initializer {name}")),
    (r"Set initializer (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Set initializer {name}")),
    (r"Set type of (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Set type of {value}")),
    (r"Set shape of (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Set shape of {value}")),
    (r"Remove value_info of (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove value_info of {value}")),
    (r"Remove value_info (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove value_info of {value}")),
    (r"Declare (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Declare {value}")),
    (r"Add input (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Add input {name}")),
    (r"Remove input (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove input {name}")),
    (r"Move input (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Move input {name}")),
    (r"Add output (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Add output {name}")),
    (r"Remove output (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove output {name}")),
    (r"Move output (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Move output {name}")),
    (r"Move value_info (?P<name>.*)", QT_TRANSLATE_NOOP("StepNames", "Move value_info {name}")),
    (r"Connect input (?P<index>\d+) to (?P<value>.*)",
     QT_TRANSLATE_NOOP("StepNames", "Connect input {index} to {value}")),
    (r"Clear input (?P<index>\d+)", QT_TRANSLATE_NOOP("StepNames", "Clear input {index}")),
    (r"Set node inputs", QT_TRANSLATE_NOOP("StepNames", "Set node inputs")),
    (r"Set node outputs", QT_TRANSLATE_NOOP("StepNames", "Set node outputs")),
    (r"Remove node (?P<node>.*)", QT_TRANSLATE_NOOP("StepNames", "Remove node {node}")),
    (r"Set (?P<field>\w+) of node (?P<node>.*)", QT_TRANSLATE_NOOP("StepNames", "Set {field} of node {node}")),
    (r"Insert (?P<op>\S+) after (?P<value>.*)", QT_TRANSLATE_NOOP("StepNames", "Insert {op} after {value}")),
    (r"Delete (?P<node>.*) and reconnect", QT_TRANSLATE_NOOP("StepNames", "Delete {node} and reconnect")),
    (r"Replace (?P<n>\d+) nodes by (?P<op>\S+)", QT_TRANSLATE_NOOP("StepNames", "Replace {n} nodes by {op}")),
    (r"Make (?P<name>.*) an input", QT_TRANSLATE_NOOP("StepNames", "Make {name} an input")),
    (r"Make (?P<name>.*) a constant", QT_TRANSLATE_NOOP("StepNames", "Make {name} a constant")),
    (r"Rename (?P<old>.*) to (?P<new>.*)", QT_TRANSLATE_NOOP("StepNames", "Rename {old} to {new}")),
    (r"Sort nodes", QT_TRANSLATE_NOOP("StepNames", "Sort nodes")),
    (r"Clean up", QT_TRANSLATE_NOOP("StepNames", "Clean up")),
    (r"(?P<n>\d+) edits", QT_TRANSLATE_NOOP("StepNames", "{n} edits")),
    (r'Add (?P<op>\S+) "(?P<name>.*)"', QT_TRANSLATE_NOOP("StepNames", 'Add {op} "{name}"')),
    (r"Add (?P<op>\S+)", QT_TRANSLATE_NOOP("StepNames", "Add {op}")),
    # Edits without a name of their own are named by their kind.
    (r"Reorder nodes", QT_TRANSLATE_NOOP("StepNames", "Reorder nodes")),
    (r"set_node_order", QT_TRANSLATE_NOOP("StepNames", "Reorder nodes")),
    (r"reorder_back", QT_TRANSLATE_NOOP("StepNames", "Reorder nodes")),
    (r"restore_opset", QT_TRANSLATE_NOOP("StepNames", "Restore opset")),
    (r"add_value_info", QT_TRANSLATE_NOOP("StepNames", "Add value_info")),
    (r"undeclare", QT_TRANSLATE_NOOP("StepNames", "Remove declaration")),
]
_COMPILED = [(re.compile(pattern, re.S), template) for pattern, template in PATTERNS]


def display_name(name: str) -> str:
    """`name` (a core edit's English name) in the UI's language."""
    for regex, template in _COMPILED:
        match = regex.fullmatch(name)
        if match is not None:
            fields = {k: v or "" for k, v in match.groupdict().items()}
            return QCoreApplication.translate(CONTEXT, template).format(**fields)
    return name
