"""A minimal protobuf wire-format scanner used while loading.

protobuf copies every `raw_data` field it parses. For large weights that is
the bulk of opening time and doubles memory, so before parsing we walk the
few message levels where weights live (ModelProto.graph -> GraphProto.initializer
-> TensorProto.raw_data) and replace each large raw_data payload by a short
placeholder. The payloads stay where they are (in the memory-mapped file) and
become zero-copy numpy views on demand.
"""
from __future__ import annotations

import os
import struct

STRIP_AT_LEAST = 1024   # smaller payloads are cheaper to let protobuf copy
# Files below this size are parsed as they are: copying their weights costs
# less than walking their fields in Python.
STRIP_FILES_FROM = 16 * 1024 * 1024

_MODEL_GRAPH = 7
_GRAPH_INITIALIZER = 5
_TENSOR_RAW_DATA = 9


class WireError(ValueError):
    pass


def decode_varint(buf, pos: int, end: int) -> tuple[int, int]:
    """The varint at `pos` (not past `end`) and the position after it; WireError
    when it is cut off or longer than ten bytes."""
    result = 0
    shift = 0
    while True:
        if pos >= end:
            raise WireError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise WireError("varint too long")


def encode_varint(n: int) -> bytes:
    n &= (1 << 64) - 1          # a negative int travels as 64-bit two's complement
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _skip(buf, wire_type: int, pos: int, end: int) -> int:
    if wire_type == 0:
        return decode_varint(buf, pos, end)[1]
    if wire_type == 1:
        return pos + 8
    if wire_type == 2:
        n, pos = decode_varint(buf, pos, end)
        return pos + n
    if wire_type == 5:
        return pos + 4
    raise WireError(f"unsupported wire type {wire_type}")


class Stripper:
    """Rewrites a serialized ModelProto with large raw_data moved out."""

    def __init__(self, buf):
        self.buf = buf                   # bytes, mmap or memoryview
        self.view = memoryview(buf)
        self.magic = os.urandom(12)
        self.payloads: list[memoryview] = []

    def placeholder_index(self, raw: bytes) -> int:
        """Index of the payload a placeholder stands for, or -1."""
        if len(raw) == 16 and raw[:12] == self.magic:
            return struct.unpack("<I", raw[12:])[0]
        return -1

    def strip_model(self):
        """The rewritten message, or the original buffer when nothing was large."""
        if len(self.buf) < STRIP_FILES_FROM:
            return self.view
        out = self._rewrite(0, len(self.buf), {_MODEL_GRAPH: self._graph})
        return self.view if out is None else out

    def _graph(self, start: int, end: int) -> bytes:
        return self._rewrite(start, end, {_GRAPH_INITIALIZER: self._tensor})

    def _tensor(self, start: int, end: int) -> bytes:
        return self._rewrite(start, end, {_TENSOR_RAW_DATA: self._raw})

    def _raw(self, start: int, end: int):
        if end - start < STRIP_AT_LEAST:
            return None
        self.payloads.append(self.view[start:end])
        return self.magic + struct.pack("<I", len(self.payloads) - 1)

    def _rewrite(self, start: int, end: int, handlers: dict) -> bytes:
        """Copy fields [start, end) verbatim except length-delimited fields with a
        handler, whose payload is replaced by what the handler returns (None: keep).
        Returns None when nothing changed."""
        buf = self.buf
        chunks = []
        run_start = start
        pos = start
        changed = False
        while pos < end:
            field_start = pos
            key, pos = decode_varint(buf, pos, end)
            number, wire_type = key >> 3, key & 7
            if wire_type == 2 and number in handlers:
                n, data_start = decode_varint(buf, pos, end)
                data_end = data_start + n
                if data_end > end:
                    raise WireError("field runs past the end of its message")
                new = handlers[number](data_start, data_end)
                if new is not None:
                    chunks.append(self.view[run_start:field_start])
                    chunks.append(encode_varint(key) + encode_varint(len(new)) + new)
                    run_start = data_end
                    changed = True
                pos = data_end
            else:
                pos = _skip(buf, wire_type, pos, end)
            if pos > end:
                raise WireError("field runs past the end of its message")
        if not changed:
            return None
        chunks.append(self.view[run_start:end])
        return b"".join(chunks)
