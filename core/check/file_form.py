"""The file form the checker judges, without the weights.

The rules read a tensor's raw_data only for its length. A tensor loaded
from a file keeps its raw bytes outside its message (a view of the mapped
file, see serde/wire.py); writing them into a second message would copy
every weight (bert_small: 44 MB) and page the whole file in. So the
checker's file form gives such a tensor a 20-byte stand-in for raw_data
that records the length, and the tensor rules read lengths through
`raw_data_length`. The stand-in starts with 12 bytes drawn at random per
process, so no tensor's real data is taken for one. Tensors whose message
holds its own data (built or edited from Python) are written as serde
writes them, and so are sparse tensors: their indices are read (range,
order).

A file checked as written (`check(path)`, `check(bytes)`) is parsed the
same way: serde's Stripper (serde/wire.py) finds the large raw_data of
main-graph initializers without copying them, and each gets a stand-in.
"""
from __future__ import annotations

import os

from ..proto import onnx_pb2 as pb
from ..serde import wire
from ..serde.convert import ProtoWriter, model_to_proto

_MAGIC = os.urandom(12)
STAND_IN_SIZE = len(_MAGIC) + 8


def raw_data_length(raw: bytes) -> int:
    """The length of the raw data that `raw` (a raw_data field as read) is
    or stands for."""
    if len(raw) == STAND_IN_SIZE and raw[:12] == _MAGIC:
        return int.from_bytes(raw[12:], "little")
    return len(raw)


def _stand_in(size: int) -> bytes:
    return _MAGIC + size.to_bytes(8, "little")


def _tensor_without_weights(tensor) -> pb.TensorProto:
    size = tensor.detached_raw_size
    if size is None:
        return tensor.to_proto()
    proto = tensor.to_proto(with_data=False)
    proto.raw_data = _stand_in(size)
    return proto


class _FileFormWriter(ProtoWriter):
    def sparse(self, s):
        # With their data: the rules read sparse indices (range, order).
        return s.to_proto()


def writer_for(model, on_bad_value=None) -> ProtoWriter:
    """A writer of the checker's file form of `model` (dense tensors without
    their detached bytes). Fields our schema does not know are left out:
    no rule reads them, and finding out whether the file had any copies
    and sizes the whole source message (serde's has_unknown_fields: 46 ms
    of each full check of ppocr_v4_det)."""
    writer = _FileFormWriter(_tensor_without_weights, keep_unknown=False)
    writer.on_bad_value = on_bad_value
    return writer


def file_form(model, on_bad_value=None) -> pb.ModelProto:
    """What serde would write for `model`, with stand-ins for detached raw
    data; equal to `model_to_proto(model)` but for those."""
    return model_to_proto(model, writer=writer_for(model, on_bad_value))


def parse_without_weights(buf) -> pb.ModelProto:
    """The ModelProto in `buf` (bytes, mmap or memoryview), with stand-ins
    for the raw data serde's Stripper moves out of large files. Malformed
    input raises what protobuf's own parse raises."""
    stripper = wire.Stripper(buf)
    try:
        data = stripper.strip_model()
    except wire.WireError:
        data = bytes(buf)           # protobuf says what is wrong, as for any file
        stripper.payloads.clear()
    proto = pb.ModelProto()
    proto.ParseFromString(data)
    if stripper.payloads:
        for t in proto.graph.initializer:
            if t.HasField("raw_data"):
                index = stripper.placeholder_index(t.raw_data)
                if index >= 0:
                    t.raw_data = _stand_in(stripper.payloads[index].nbytes)
    return proto
