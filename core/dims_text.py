"""The one grammar for a shape typed as text, shared by the CLI (`set-shape
--input NAME=DIMS`, `run --dim NAME=SIZE`), the app's value, tensor and
model editors, and the edits in core (a dim given as a string):

    parse_dims("1, 3, batch, ?")   ->  [1, 3, "batch", None]
    parse_dims("[N, 3]")           ->  ["N", 3]       (brackets are optional)
    parse_dims("")                 ->  []             (a scalar: rank 0)

A dim is one of
- a size: a whole number written in decimal digits (a leading + is allowed),
  0 up to 2**63 - 1, the largest the file format's int64 can hold;
- a symbolic name: a letter or _ first, then letters, digits, _ . or :
  (`batch`, `seq_len`, `p2o.DynamicDimension.0`, `input:0`);
- `?`: a size nobody knows.

Everything else is refused with DimsTextError naming the dim (by position,
from 0) and what is wrong with it: a negative size, a fraction or exponent
(`2.5`, `1e3`), a size too large for int64, an empty dim (`1,,2`), quotes,
spaces or other characters. Nothing is ever rounded, clipped or silently
turned into an unknown dim: what cannot be represented exactly is refused.

The messages are plain English; `TEMPLATES` holds them by reason so that
the app shows the same refusal in the user's language (ui/panels/
value_editor.py translates the same texts).
"""
from __future__ import annotations

import re
from typing import Optional, Sequence, Union

Dim = Union[int, str, None]

INT64_MAX = 2 ** 63 - 1

_SIZE = re.compile(r"\+?[0-9]+\Z")
_NEGATIVE = re.compile(r"-[0-9]+\Z")
# Anything else that reads as a number: a sign, a fraction, an exponent.
_NUMBER = re.compile(r"[+-]?([0-9]+\.[0-9]*|\.[0-9]+|[0-9]+)([eE][+-]?[0-9]+)?\Z")
# Names: identifiers, optionally in dotted or colon-separated parts. \w is
# Unicode-aware; a first character that is not a digit keeps names apart
# from sizes ("2x" is neither).
_NAME = re.compile(r"[^\W\d][\w.:]*\Z")

# reason -> message; {i} is the dim's position, {part} what was written there.
TEMPLATES = {
    "empty": "dim {i} is empty; write ? for an unknown size",
    "negative": "dim {i} is {part}: a size cannot be negative (use ? or a name)",
    "fraction": "dim {i} is {part}: a size is a whole number",
    "too_large": "dim {i} is {part}: a size must fit in int64 (at most 9223372036854775807)",
    "not_a_dim": "dim {i}: {part} is neither a size, a name nor ? (a name starts with a letter or _ "
                 "and has only letters, digits, _ . or :, no quotes or spaces)",
    "not_a_size": "dim {i} is {part}: a size is a whole number, not a name or ?",
}


class DimsTextError(ValueError):
    """A dim that the grammar refuses. `reason` is a key of TEMPLATES,
    `index` the dim's position, `part` the text written there; str(error)
    is the English message."""

    def __init__(self, reason: str, index: int, part: str):
        self.reason, self.index, self.part = reason, index, part
        super().__init__(TEMPLATES[reason].format(i=index, part=shown_part(reason, part)))


def shown_part(reason: str, part: str) -> str:
    """How a refused part is quoted in its message: as typed for numbers,
    repr() for text (so quotes and spaces can be seen)."""
    return repr(part) if reason == "not_a_dim" else part


def parse_dim(text: str, index: int = 0) -> Dim:
    """One dim: an int (a size), a str (a symbolic name) or None (`?`).
    DimsTextError (naming position `index`) for anything else."""
    part = text.strip()
    if part == "?":
        return None
    if not part:
        raise DimsTextError("empty", index, part)
    if _SIZE.match(part):
        n = int(part)
        if n > INT64_MAX:
            raise DimsTextError("too_large", index, part)
        return n
    if _NEGATIVE.match(part):
        raise DimsTextError("negative", index, part)
    if _NUMBER.match(part):
        raise DimsTextError("fraction", index, part)
    if _NAME.match(part):
        return part
    raise DimsTextError("not_a_dim", index, part)


def parse_dims(text: str, known: Optional[Sequence] = None) -> list:
    """A shape written as comma-separated dims (see the module's grammar);
    optional surrounding brackets; an empty text is a scalar (rank 0).

    `known` is the shape being edited, when there is one: a part that spells
    the name already at its position is that name, even one the grammar
    would not take from the keyboard (names read from a file or written by
    inference, such as `floor((x.2+1)/2)`, may be any text without a comma),
    so editing one dim never forces retyping the others."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1].strip()
    if not text:
        return []
    known = list(known or ())
    dims = []
    for i, part in enumerate(text.split(",")):
        mine = known[i] if i < len(known) else None
        dims.append(mine if isinstance(mine, str) and part.strip() == mine.strip() else parse_dim(part, i))
    return dims


def parse_size(text: str) -> int:
    """A single size (a whole number, 0 up to int64's largest): what `run
    --dim NAME=SIZE` takes. DimsTextError for a name, `?` or a bad number."""
    dim = parse_dim(text)
    if not isinstance(dim, int):
        raise DimsTextError("not_a_size", 0, text.strip())
    return dim


def looks_like_number(text: str) -> bool:
    """True when `text` is written like a number (a sign, digits, a fraction
    or an exponent), so that the size rules, not the name rules, apply."""
    return bool(_NUMBER.match(text.strip()))


def format_dims(shape: Optional[tuple]) -> str:
    """The text parse_dims reads back: "1, 3, batch, ?"."""
    return ", ".join("?" if d is None else str(d) for d in shape or ())


__all__ = ["DimsTextError", "TEMPLATES", "INT64_MAX", "parse_dim", "parse_dims", "parse_size",
           "looks_like_number", "format_dims"]
