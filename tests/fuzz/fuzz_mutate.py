"""Byte-level mutations of serialized ONNX models.

The file is first walked as protobuf wire format into a tree of fields. A
length-delimited field is treated as a nested message when its payload parses
as one exactly to its end (a heuristic: a string can look like a message, and
that is fine for fuzzing). Mutations then pick fields from that tree:

* framing-keeping ones (a varint set to 0, -1, 10**12, 2**62 ...; a float set
  to NaN/inf; a string emptied, lengthened or made invalid UTF-8; a field
  deleted or duplicated) re-encode the length prefix of every enclosing
  message, so the file still parses and the damage reaches check, infer, run
  and the layout;
* framing-breaking ones (truncation, bit flips, a corrupted or huge length, a
  wrong wire type, an unterminated varint) exercise the parsers themselves.

Everything is driven by a `random.Random`, so a (model, seed) pair names a
mutant exactly.
"""
from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

from onnxstudio.core.serde.wire import WireError, decode_varint, encode_varint

MAX_DEPTH = 24
MAX_FIELDS = 200_000        # enough structure to choose from in any model
NESTED_MAX_PROBE = 1 << 40  # weights fail to parse as messages within a few bytes


@dataclass
class Field:
    start: int               # first byte of the key
    key_end: int             # first byte after the key
    wire: int
    number: int
    value_start: int         # varint value / fixed bytes / length prefix
    payload_start: int       # == value_start except for length-delimited fields
    end: int
    parent: "Field | None" = None
    children: list = field(default_factory=list)


# Bytes that do not parse as a message to their end; the varint codec is
# the loader's own, whose cut-off or over-long varints raise the same error.
_NotAMessage = WireError


def _parse_fields(buf, start: int, end: int, parent, depth: int, budget: list) -> list:
    fields = []
    pos = start
    while pos < end:
        key, key_end = decode_varint(buf, pos, end)
        number, wire = key >> 3, key & 7
        if number == 0:
            raise _NotAMessage
        if wire == 0:
            _, stop = decode_varint(buf, key_end, end)
            f = Field(pos, key_end, wire, number, key_end, key_end, stop, parent)
        elif wire == 1 or wire == 5:
            stop = key_end + (8 if wire == 1 else 4)
            f = Field(pos, key_end, wire, number, key_end, key_end, stop, parent)
        elif wire == 2:
            n, payload = decode_varint(buf, key_end, end)
            stop = payload + n
            f = Field(pos, key_end, wire, number, key_end, payload, stop, parent)
        else:
            raise _NotAMessage
        if f.end > end:
            raise _NotAMessage
        budget[0] -= 1
        if budget[0] < 0:
            raise _NotAMessage
        fields.append(f)
        pos = f.end
    # Only once this level is known to parse, look inside its strings.
    if depth < MAX_DEPTH:
        for f in fields:
            if f.wire == 2 and 2 <= f.end - f.payload_start <= NESTED_MAX_PROBE:
                saved = budget[0]
                try:
                    f.children = _parse_fields(buf, f.payload_start, f.end, f, depth + 1, budget)
                except _NotAMessage:
                    f.children = []
                    budget[0] = saved
    return fields


def walk(data: bytes) -> list[Field]:
    """Every field of the message (depth first); [] when it is not a message."""
    try:
        top = _parse_fields(data, 0, len(data), None, 0, [MAX_FIELDS])
    except _NotAMessage:
        return []
    out = []
    stack = list(reversed(top))
    while stack:
        f = stack.pop()
        out.append(f)
        stack.extend(reversed(f.children))
    return out


# --- editing -----------------------------------------------------------------------

def _replace(data: bytes, f: Field | None, start: int, stop: int, new: bytes, fix_lengths: bool) -> bytes:
    """data with [start, stop) replaced by `new`; with fix_lengths, the length
    prefix of `f`'s enclosing messages (and of `f` itself when the edit is
    inside its payload) grows or shrinks to match."""
    edits = [(start, stop, new)]
    delta = len(new) - (stop - start)
    node = f if (f is not None and f.wire == 2 and start >= f.payload_start) else (f.parent if f else None)
    while fix_lengths and node is not None and delta:
        old_len = node.end - node.payload_start
        prefix = encode_varint(old_len + delta)
        old_prefix = node.payload_start - node.value_start
        edits.append((node.value_start, node.payload_start, prefix))
        delta += len(prefix) - old_prefix
        node = node.parent
    out = bytearray(data)
    for a, b, repl in sorted(edits, key=lambda e: e[0], reverse=True):
        out[a:b] = repl
    return bytes(out)


INTERESTING_VARINTS = [0, 1, 2, 3, 7, 16, 17, 127, 128, 255, 1000, 2**31 - 1, 2**31, 2**32,
                       10**12, 2**40, 2**62, 2**63 - 1, -1, -2, -(2**31), -(2**63)]
INTERESTING_F32 = [float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 1e38, 1e-45]
INTERESTING_STRINGS = [b"", b"\xff\xfe", b"x" * 5000, b"../../etc/passwd", b"/dev/zero",
                       b"\x00", b"a/b", b"\xed\xa0\x80"]


class Mutator:
    """Applies 1-3 random operations to a model's bytes."""

    def __init__(self, data: bytes):
        self.data = data
        self.fields = walk(data)
        self.varints = [f for f in self.fields if f.wire == 0]
        self.fixed = [f for f in self.fields if f.wire in (1, 5)]
        self.delimited = [f for f in self.fields if f.wire == 2]
        self.strings = [f for f in self.delimited if not f.children and f.end - f.payload_start < 4096]
        self.names = sorted({data[f.payload_start:f.end] for f in self.strings[:5000]
                             if 0 < f.end - f.payload_start < 100})

    def mutate(self, rng: random.Random) -> tuple[bytes, list[str]]:
        data = self.data
        ops = []
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            # Later operations work on the fields of the original file, so
            # only the first may assume its positions: stack the rest as
            # framing-breaking byte damage on top.
            if not ops and self.fields and rng.random() < 0.65:
                data, what = self._keeping(rng)
            else:
                data, what = _breaking(data, self.fields if not ops else [], rng)
            ops.append(what)
        return data, ops

    # framing-keeping ---------------------------------------------------------------

    def _keeping(self, rng):
        data = self.data
        kind = rng.choice(("varint", "varint", "varint", "fixed", "string", "string", "delete",
                           "duplicate", "packed"))
        if kind == "varint" and self.varints:
            f = rng.choice(self.varints)
            v = rng.choice(INTERESTING_VARINTS) if rng.random() < 0.8 else rng.getrandbits(rng.choice((8, 32, 64)))
            return _replace(data, f, f.value_start, f.end, encode_varint(v), True), f"varint@{f.start}={v}"
        if kind == "fixed" and self.fixed:
            f = rng.choice(self.fixed)
            v = rng.choice(INTERESTING_F32)
            new = struct.pack("<f", v) if f.wire == 5 else struct.pack("<d", v)
            return _replace(data, f, f.value_start, f.end, new, False), f"fixed@{f.start}={v}"
        if kind == "string" and self.strings:
            f = rng.choice(self.strings)
            choice = rng.random()
            if choice < 0.4 and self.names:
                new = rng.choice(self.names)     # a name used elsewhere: duplicates, wrong references
            elif choice < 0.8:
                new = rng.choice(INTERESTING_STRINGS)
            else:
                payload = data[f.payload_start:f.end]
                new = payload[: rng.randrange(len(payload) + 1)]
            return (_replace(data, f, f.value_start, f.end, encode_varint(len(new)) + new, True),
                    f"string@{f.start}={new[:20]!r}")
        if kind == "delete" and self.fields:
            f = rng.choice(self.fields)
            return _replace(data, f.parent, f.start, f.end, b"", True) if f.parent else \
                data[:f.start] + data[f.end:], f"delete@{f.start}#{f.number}"
        if kind == "duplicate" and self.fields:
            f = rng.choice(self.fields)
            copy = data[f.start:f.end]
            return _replace(data, f.parent, f.end, f.end, copy * rng.choice((1, 1, 2, 50)), True), \
                f"duplicate@{f.start}#{f.number}"
        if kind == "packed" and self.delimited:
            # Packed numbers (dims, int64_data, floats) read as one long varint run.
            f = rng.choice(self.delimited)
            values = [rng.choice(INTERESTING_VARINTS) for _ in range(rng.randrange(1, 5))]
            new = b"".join(encode_varint(v) for v in values)
            return (_replace(data, f, f.value_start, f.end, encode_varint(len(new)) + new, True),
                    f"packed@{f.start}={values}")
        return _breaking(data, self.fields, rng)


def _breaking(data: bytes, fields: list, rng: random.Random):
    n = len(data)
    if n == 0:
        return b"\x08", "empty->byte"
    kind = rng.choice(("truncate", "bitflip", "bitflip", "bytes", "length", "wiretype", "overlong",
                       "huge_length"))
    if kind == "truncate":
        cut = rng.randrange(n) if not fields or rng.random() < 0.5 else rng.choice(fields).start + 1
        return data[:min(cut, n - 1)], f"truncate@{cut}"
    if kind == "bitflip":
        pos = rng.choice(fields).start if fields and rng.random() < 0.7 else rng.randrange(n)
        pos = min(pos + rng.randrange(3), n - 1)
        out = bytearray(data)
        out[pos] ^= 1 << rng.randrange(8)
        return bytes(out), f"bitflip@{pos}"
    if kind == "bytes":
        pos = rng.randrange(n)
        out = bytearray(data)
        for i in range(pos, min(n, pos + rng.randrange(1, 9))):
            out[i] = rng.choice((0, 0xFF, 0x80, rng.randrange(256)))
        return bytes(out), f"bytes@{pos}"
    delimited = [f for f in fields if f.wire == 2]
    if kind in ("length", "huge_length") and delimited:
        f = rng.choice(delimited)
        old = f.end - f.payload_start
        new_len = (rng.choice((old + 1, old - 1, 0, old * 2, old + 1000)) if kind == "length"
                   else rng.choice((2**31 - 1, 2**31, 2**32 + old, 2**62, 2**64 - 1)))
        new_len = max(new_len, 0)
        return _replace(data, None, f.value_start, f.payload_start, encode_varint(new_len), False), \
            f"{kind}@{f.start}={new_len}"
    if kind == "wiretype" and fields:
        f = rng.choice(fields)
        key = (f.number << 3) | rng.choice([w for w in range(8) if w != f.wire])
        return _replace(data, None, f.start, f.key_end, encode_varint(key), False), f"wiretype@{f.start}"
    if kind == "overlong" and fields:
        f = rng.choice(fields)
        return data[:f.value_start] + b"\xff" * rng.choice((10, 11, 20)) + data[f.value_start:], \
            f"overlong@{f.start}"
    pos = rng.randrange(n)
    return data[:pos] + data[pos + 1:], f"dropbyte@{pos}"
