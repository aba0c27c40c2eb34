"""Constant tensors: initializers and tensor-valued attributes.

A Tensor decodes its data on first use and keeps the array. Until it is
edited it also keeps the message it came from, so saving an untouched tensor
writes back exactly what was read. Raw bytes may live in a memory-mapped
model file or in an external data file; nothing is read before it is needed.

A tensor whose external data reference can never be followed (no location,
a location outside the model's folder...) is still part of the model, so
the file opens and its graph can be explored: it is marked `unreadable`
with the reason, and reading its data raises (see `unreadable_as_read`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..proto import onnx_pb2 as pb
from ..serde import codec
from .dtypes import DataType, is_known, itemsize_bits


@dataclass(frozen=True)
class ExternalRef:
    """Where a tensor's bytes live outside the model file."""
    location: str          # as written in the file (relative to the model folder)
    offset: int
    length: Optional[int]  # None: to the end of the file
    checksum: str = ""


# How errors start for a tensor without a name; exec replaces it by the
# node attribute holding the tensor.
NAMELESS = "a tensor with no name"


class Tensor:
    __slots__ = ("_proto", "_raw", "_array", "external", "_reader", "_dtype", "_shape", "_name", "unreadable")

    def __init__(self, proto: pb.TensorProto, raw=None, external: Optional[ExternalRef] = None,
                 reader: Optional[Callable[["Tensor"], object]] = None):
        # `proto` may have its raw_data moved out into `raw` (a memoryview of the
        # mapped file) to avoid copying weights while loading.
        self._proto = proto
        self._raw = raw
        self._array: Optional[np.ndarray] = None
        self.external = external
        self._reader = reader
        self._dtype = DataType(proto.data_type) if is_known(proto.data_type) else proto.data_type
        self._shape = tuple(proto.dims)
        self._name = proto.name
        # Why the data can never be read (serde's words, after the tensor's
        # place), or None. Such a tensor has no `external` reference: nothing
        # ever resolves its location to a path.
        self.unreadable: Optional[str] = None

    @classmethod
    def unreadable_as_read(cls, proto: pb.TensorProto, raw, reason: str,
                           refuse: Callable[["Tensor"], object]) -> "Tensor":
        """A tensor as read whose external data reference cannot be followed.
        Its message (and any `raw` moved out of it) is kept as read, so a
        save that keeps it writes back the very same entries; reading its
        data calls `refuse`, which raises (serde's ExternalDataError, naming
        the tensor's place: ir raises none of core's errors itself)."""
        t = cls(proto, raw)
        t.unreadable = reason
        t._reader = refuse
        return t

    @classmethod
    def from_numpy(cls, array, name: str = "", data_type: Optional[int] = None) -> "Tensor":
        array = np.asarray(array)
        t = cls(codec.from_numpy(array, name, data_type))
        arr = array if data_type is None or array.dtype == t.numpy_dtype else None
        if arr is not None:
            arr = arr.view()
            arr.flags.writeable = False
            t._array = arr
        return t

    # -- identity ---------------------------------------------------------------

    @property
    def name(self) -> str:
        return self._name

    @name.setter
    def name(self, value: str) -> None:
        self._name = value

    def _who(self) -> str:
        # A Constant's value (any attribute's tensor) has no name: the caller
        # that knows the node puts its place in front (exec's node_attrs).
        return f"tensor {self._name!r}" if self._name else NAMELESS

    @property
    def dtype(self) -> int:
        return self._dtype

    @property
    def shape(self) -> tuple:
        return self._shape

    @property
    def numpy_dtype(self):
        from .dtypes import to_numpy_dtype
        return to_numpy_dtype(self._dtype)

    @property
    def size(self) -> int:
        return codec.element_count(self._shape)

    @property
    def nbytes(self) -> int:
        """Bytes of storage (packed for sub-byte types; strings: their UTF-8 length)."""
        if self._dtype == DataType.STRING:
            return sum(len(s) for s in self._proto.string_data)
        try:
            return (self.size * itemsize_bits(self._dtype) + 7) // 8
        except ValueError:
            return 0

    @property
    def is_external(self) -> bool:
        return self.external is not None

    @property
    def external_location(self) -> Optional[str]:
        return self.external.location if self.external else None

    @property
    def doc_string(self) -> str:
        return self._proto.doc_string

    @property
    def detached_raw_size(self) -> Optional[int]:
        """Bytes of raw data kept outside the message (a view of the loaded
        file, moved out at load so weights are not copied), or None when the
        message holds its data itself. Reading it pages nothing in."""
        if self._raw is None or self.external is not None:
            return None
        return memoryview(self._raw).nbytes

    # -- data ----------------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """The data as a numpy array (read-only; decoded once)."""
        if self._array is None:
            self._refuse_if_unreadable()
            raw = self._raw
            if self.external is not None:
                if self._reader is None:
                    raise codec.TensorDataError(
                        f"{self._who()}: its data is in external file "
                        f"{self.external.location!r}, but the model was loaded from bytes without a folder")
                raw = self._reader(self)
            try:
                arr = codec.to_numpy(self._proto, raw)
            except codec.TensorDataError as e:
                raise codec.TensorDataError(f"{self._who()}: {e} (the file holds damaged data; "
                                            "`onnxstudio check` lists every such tensor)") from None
            if not arr.flags.aligned:
                # raw_data inside a protobuf message lands at any byte offset;
                # numpy and BLAS are many times slower on misaligned arrays,
                # so pay for one copy on first use. (Our external files align.)
                arr = arr.copy()
            if arr.flags.writeable:
                arr.flags.writeable = False
            self._array = arr
        return self._array

    def _refuse_if_unreadable(self) -> None:
        if self.unreadable is not None:
            if self._reader is not None:
                self._reader(self)          # raises
            raise codec.TensorDataError(f"{self._who()}: {self.unreadable}")

    def raw_bytes(self):
        """Little-endian storage bytes (a memoryview where possible, no decoding)."""
        if self._array is None:
            self._refuse_if_unreadable()
        if self.external is not None and self._array is None:
            if self._reader is None:
                self.numpy()                # raises: loaded from bytes without a folder
            return self._reader(self)
        if self._raw is not None and self._array is None:
            return self._raw
        if self._array is None and self._proto.HasField("raw_data"):
            return self._proto.raw_data
        return codec.tensor_bytes(self.numpy(), self._dtype)

    def to_proto(self, *, with_data: bool = True) -> pb.TensorProto:
        """The TensorProto for this tensor, with its data inline.

        An unedited tensor comes back as it was read (typed fields stay typed).
        External tensors come back with their external_data entries unless the
        caller (serde.save) decides to re-home the data.
        """
        p = pb.TensorProto()
        p.CopyFrom(self._proto)
        if p.name != self._name:
            if self._name:
                p.name = self._name
            else:
                p.ClearField("name")
        if with_data and self._raw is not None and self.external is None:
            p.raw_data = bytes(self._raw)
        return p

    def __repr__(self) -> str:
        from .dtypes import type_name
        ext = f" external={self.external.location!r}" if self.external else ""
        ext += " unreadable" if self.unreadable is not None else ""
        return f"Tensor({self._name!r}, {type_name(self._dtype)}{list(self._shape)}{ext})"


class SparseTensor:
    """A COO sparse tensor: `values` (1-D), `indices` and the dense `dims`."""
    __slots__ = ("values", "indices", "dims", "_proto")

    def __init__(self, values: Tensor, indices: Tensor, dims: tuple, proto: Optional[pb.SparseTensorProto] = None):
        self.values = values
        self.indices = indices
        self.dims = tuple(dims)
        self._proto = proto

    @property
    def name(self) -> str:
        return self.values.name

    def to_dense(self) -> np.ndarray:
        return codec.sparse_to_dense(self.values.numpy(), self.indices.numpy(), self.dims)

    def to_proto(self, tensor_proto: Optional[Callable[[Tensor], pb.TensorProto]] = None) -> pb.SparseTensorProto:
        """The message; `tensor_proto` decides how values/indices are stored (serde.save)."""
        write = tensor_proto or (lambda t: t.to_proto())
        p = pb.SparseTensorProto()
        if self._proto is not None:
            p.CopyFrom(self._proto)   # keeps fields we do not model
            p.ClearField("values")
            p.ClearField("indices")
            p.ClearField("dims")
        p.values.CopyFrom(write(self.values))
        p.indices.CopyFrom(write(self.indices))
        p.dims.extend(self.dims)
        return p

    def __repr__(self) -> str:
        return f"SparseTensor({self.name!r}, dims={list(self.dims)}, nnz={self.values.size})"
