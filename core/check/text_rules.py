"""Text the file holds as invalid UTF-8: a damaged file, or a writer that
ignored the spec (onnx and onnxruntime load such files). protobuf hands a
string field holding it back as bytes; the IR holds str with U+FFFD in its
place (ir/text.py).

A file's check sees the bytes, and each rule module reports the text fields
of the place it judges through `damaged_text`: the model's fields
(model_rules), a graph's name, declarations and value names (graph_rules),
a node's op_type, domain, name and attribute names (node_rules), an
attribute's ref_attr_name (attr_rules), a function's (function_rules). The check of an IR model reads the same bytes
from the source messages the IR keeps (damaged_text.py) and spells them
with the labels below, so both say it in the same words.
"""
from __future__ import annotations

from .paths import shown

# The model's text fields the rules read, in the order they are named.
MODEL_TEXT_FIELDS = ("producer_name", "producer_version", "domain", "doc_string")
# A node's own text fields the rules read, in the order they are named.
NODE_FIELDS = ("op_type", "domain", "name")
# A function's own text fields, in the order they are named.
FUNCTION_FIELDS = ("name", "domain", "overload")
# The label of a value name at the place of a graph input, output,
# value_info entry or node input.
NAME = "the name"


def damaged_text(place, labels: list, out, kept: bool = False) -> None:
    """The finding on the text at `place` that is not valid UTF-8; `labels`
    say which (a field name, or what attribute_label and the others make).
    `kept`: a save writes it as read (serde copies the unedited message
    holding it), not with U+FFFD."""
    if labels:
        out.add("text.invalid-utf8", place, f"not valid UTF-8: {', '.join(dict.fromkeys(labels))}; "
                f"the file is damaged ({what_onnxstudio_does(place, kept)})")


# Places serde keeps as read, text and all (the IR holds training_info as
# its messages): a save writes their bytes back.
_KEPT_AS_READ = "training_info"


def what_onnxstudio_does(place, kept: bool = False) -> str:
    """How the app shows and saves damaged text at `place`."""
    if kept or str(place).startswith(_KEPT_AS_READ):
        return "onnxstudio shows U+FFFD and saves the bytes as read"
    return "onnxstudio shows and saves these with U+FFFD"


def attribute_label(name) -> str:
    return f"attribute {shown(name)}"


def ref_label(ref) -> str:
    return f"ref_attr_name {shown(ref)}"


def opset_label(domain) -> str:
    return f"opset_import domain {shown(domain)}"


def metadata_label(key) -> str:
    return f"metadata key {shown(key)}"


def value_label(name) -> str:
    return f"value name {shown(name)}"


def node_labels(node) -> list:
    """The labels of a NodeProto's own text fields holding bytes: op_type,
    domain, name and its attributes' names (a ref_attr_name is told at its
    attribute, attr_rules)."""
    labels = [field for field in NODE_FIELDS if getattr(node, field).__class__ is bytes]
    labels += [attribute_label(a.name) for a in node.attribute if a.name.__class__ is bytes]
    return labels
