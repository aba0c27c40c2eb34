"""Text fields as str.

protobuf hands back bytes for a string field holding invalid UTF-8 (a
damaged file, or a writer that ignored the spec). The IR reader passes the
names, domains, doc strings, metadata and dim names it keeps through
`as_text`, so those are always str; the checker, which reads the file
form, uses it to show such bytes.
"""
from __future__ import annotations


def as_text(value) -> str:
    """`value` itself when it is a str; bytes decoded with U+FFFD for what is
    not UTF-8."""
    if value.__class__ is bytes:
        return value.decode("utf-8", errors="replace")
    return value

