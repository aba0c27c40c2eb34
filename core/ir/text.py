"""Text fields as str.

protobuf hands back bytes for a string field holding invalid UTF-8 (a
damaged file, or a writer that ignored the spec); the IR keeps whatever it
read, so code that shows or joins such a field goes through `as_text`.
"""
from __future__ import annotations


def as_text(value) -> str:
    """`value` itself when it is a str; bytes decoded with U+FFFD for what is
    not UTF-8."""
    if value.__class__ is bytes:
        return value.decode("utf-8", errors="replace")
    return value


def first_invalid_text(model):
    """Where the model holds such bytes, as "graph/node[3] name b'...'" for
    the first one met (model fields, then graphs: names of nodes, their
    op_type and domain, and values), or None. Walks the whole model: for
    error messages only."""
    for field in ("producer_name", "producer_version", "domain", "doc_string"):
        if getattr(model, field).__class__ is bytes:
            return f"model {field} {getattr(model, field)!r}"
    for k, v in model.metadata_props.items():
        if k.__class__ is bytes or v.__class__ is bytes:
            return f"model metadata {k!r}"
    for g in model.graphs():
        for node in g.nodes:
            for field in ("name", "op_type", "domain"):
                if getattr(node, field).__class__ is bytes:
                    return f"{as_text(node.path)} {field} {getattr(node, field)!r}"
        for name in g._values:
            if name.__class__ is bytes:
                return f"value {name!r} of graph {as_text(g.name)!r}"
    return None
