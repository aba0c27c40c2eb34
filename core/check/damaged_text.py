"""Text the file held as invalid UTF-8, for a check of an IR model.

Protobuf hands back bytes for a string field that is not UTF-8; the IR
holds str with U+FFFD in their place (ir/text.py), and so does the file
form serde writes for the checker, where the rules would see valid text.
The file's bytes stay in the source messages the IR keeps, so this module
reads the damage there once per full check (`DamagedText.read`) and says it
with the rules' own words (`model_rules.damaged_model_text`,
`graph_rules.check_names`) for as long as the IR still holds that text:
a renamed value or a producer name set anew is no longer damaged.

Only a graph holding a name with U+FFFD is looked up in the sources, so a
sound model costs one substring search per graph over its joined names.
"""
from __future__ import annotations

from ..diagnostics import Collector
from ..ir.text import as_text
from .graph_rules import check_names
from .model_rules import damaged_model_text

_MARK = "\ufffd"
_MODEL_FIELDS = ("producer_name", "producer_version", "domain", "doc_string")


def _defined_names(g) -> list:
    """The names a graph defines, in the order graph_rules lists them:
    inputs, dense initializers, node outputs."""
    names = [v.name for v in g.inputs]
    names += list(g.initializers)
    for node in g.nodes:
        names += [v.name for v in node.outputs if v is not None]
    return names


def _source_names(src) -> list:
    names = [vi.name for vi in src.input]
    names += [t.name for t in src.initializer]
    for node in src.node:
        names += list(node.output)
    return names


class DamagedText:
    """What the file held as invalid UTF-8, kept with the text the IR made
    of it; `findings(model)` says what of it the model still holds."""

    def __init__(self, fields: list, metadata: list, names: list):
        self._fields = fields       # [(label, field, text)]
        self._metadata = metadata   # [(label, key, value)]
        self._names = names         # [(graph, [text of each damaged name])]

    @classmethod
    def read(cls, model) -> "DamagedText":
        fields, metadata, names = [], [], []
        src = model.source
        if src is not None:
            for field in _MODEL_FIELDS:
                raw = getattr(src, field)
                if raw.__class__ is bytes:
                    fields.append((field, field, as_text(raw)))
            for e in src.metadata_props:
                if e.key.__class__ is bytes or e.value.__class__ is bytes:
                    key = as_text(e.key)
                    metadata.append((f"metadata key {key!r}", key, as_text(e.value)))
        for g in model.graph.walk():
            gsrc = g.source
            # Every name the graph defines or reads, in one string: one C-level search.
            if gsrc is None or _MARK not in "".join(g.values()):
                continue
            damaged = [as_text(n) for n in _source_names(gsrc) if n.__class__ is bytes]
            if damaged:
                names.append((g, damaged))
        return cls(fields, metadata, names)

    def __bool__(self) -> bool:
        return bool(self._fields or self._metadata or self._names)

    def findings(self, model) -> list:
        """The findings for the damaged text `model` still holds."""
        if not self:
            return []
        out = Collector()
        labels = [label for label, field, text in self._fields if getattr(model, field) == text]
        labels += [label for label, key, value in self._metadata if model.metadata_props.get(key) == value]
        damaged_model_text(labels, out)
        graphs = set(model.graph.walk()) if self._names else ()
        for g, texts in self._names:
            if g not in graphs:
                continue
            here = set(_defined_names(g))
            held = [t for t in texts if t in here]
            if held:
                check_names((0, [], held), g.path, out)
        return out.items
