"""External tensor data: safe locations, memory-mapped reads."""
from __future__ import annotations

import mmap
import os
import pathlib
import stat
from typing import Callable, Optional

from ..errors import ExternalDataError
from ..ir.tensor import NAMELESS, ExternalRef
from ..ir.text import as_text
from ..proto import onnx_pb2 as pb

EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def external_ref(t: pb.TensorProto) -> Optional[ExternalRef]:
    if t.data_location != EXTERNAL:
        return None
    # A damaged file may hold any of these strings as invalid UTF-8 (bytes
    # from protobuf): shown with U+FFFD, never as a bytes literal.
    keys = {as_text(e.key): e.value for e in t.external_data}
    where = f"tensor {as_text(t.name)!r}" if t.name else "its tensor"     # an attribute's tensor has no name
    if "location" not in keys:
        raise ExternalDataError(f"{where}: external data without a 'location' entry; name the data file "
                                "there, or store the data in the model")
    if keys["location"].__class__ is bytes:
        raise ExternalDataError(f"{where}: its external data location {as_text(keys['location'])!r} is not "
                                "valid UTF-8 (the file is damaged); name the data file there again, or store "
                                "the data in the model")
    try:
        offset = int(keys.get("offset", "0") or 0)
        length = int(keys["length"]) if keys.get("length") else None
    except ValueError:
        raise ExternalDataError(f"{where}: external data offset/length are not integers "
                                f"({keys.get('offset')!r}, {keys.get('length')!r})") from None
    if offset < 0 or (length is not None and length < 0):
        raise ExternalDataError(f"{where}: negative external data offset or length")
    return ExternalRef(keys["location"], offset, length, as_text(keys.get("checksum", "")))


def safe_path(base_dir: pathlib.Path, location: str, tensor_name: str = "") -> pathlib.Path:
    """Resolve `location` inside `base_dir`, refusing anything that escapes it."""
    where = f"tensor {tensor_name!r}: " if tensor_name else ""
    loc = location.replace("\\", "/")
    if not loc or loc.startswith("/") or (len(loc) > 1 and loc[1] == ":") or os.path.isabs(location):
        raise ExternalDataError(
            f"{where}external data location {location!r} is an absolute path; only files inside "
            f"the model's folder ({base_dir}) are read. Move the data next to the model and use a relative name.")
    if any(part == ".." for part in loc.split("/")):
        raise ExternalDataError(
            f"{where}external data location {location!r} leaves the model's folder ({base_dir}); "
            f"refusing to read it. Move the data next to the model.")
    path = base_dir / loc
    try:
        real = path.resolve()
        base = base_dir.resolve()
    except OSError as e:
        raise ExternalDataError(f"{where}cannot resolve external data {location!r}: {e}") from None
    if real != base and base not in real.parents:
        raise ExternalDataError(
            f"{where}external data {location!r} is a link to {real}, outside the model's folder "
            f"({base}); refusing to read it.")
    return path


class ExternalFiles:
    """Memory maps of the external data files a model uses, opened on demand."""

    def __init__(self, base_dir: pathlib.Path):
        self.base_dir = base_dir
        self._maps: dict[str, object] = {}
        # The main graph's initializers the file stored externally, by name:
        # the data file each one lives in. An edit replaces a tensor with one
        # held in memory; a save that keeps tensors where they were reads
        # here where the edited one was (serde.io.kept_locations).
        self.stored_as_read: dict[str, str] = {}
        # Set by the loader: says where a tensor without a name sits (a
        # Constant's value, another attribute), so an error names the place.
        self.describe: Optional[Callable[[object], str]] = None

    def _where(self, tensor) -> str:
        if tensor.name:
            return f"tensor {tensor.name!r}"
        place = self.describe(tensor) if self.describe is not None else None
        return place or NAMELESS

    def path(self, ref: ExternalRef, tensor_name: str = "") -> pathlib.Path:
        return safe_path(self.base_dir, ref.location, tensor_name)

    def _map(self, ref: ExternalRef, tensor):
        m = self._maps.get(ref.location)
        if m is None:
            path = self.path(ref, tensor.name)
            try:
                # A FIFO would block the open forever and a device has no end:
                # only regular files hold tensor data.
                if not stat.S_ISREG(os.stat(path).st_mode):
                    raise ExternalDataError(
                        f"{self._where(tensor)}: external data {ref.location!r} is not a regular file "
                        f"(a folder, FIFO or device); refusing to read it")
                with open(path, "rb") as f:
                    size = os.fstat(f.fileno()).st_size
                    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else b""
            except FileNotFoundError:
                raise ExternalDataError(
                    f"{self._where(tensor)}: its external data file {ref.location!r} is not found in the "
                    f"model's folder {self.base_dir}; put the file back there, next to the model") from None
            except OSError as e:
                raise ExternalDataError(f"{self._where(tensor)}: cannot read {path}: {e}") from None
            self._maps[ref.location] = m
        return m

    def read(self, tensor) -> memoryview:
        ref = tensor.external
        m = self._map(ref, tensor)
        end = len(m) if ref.length is None else ref.offset + ref.length
        if ref.offset > len(m) or end > len(m):
            raise ExternalDataError(
                f"{self._where(tensor)}: external data {ref.location!r} has {len(m)} bytes, but the tensor "
                f"needs bytes {ref.offset}..{end}; the file is cut short or is not this model's")
        return memoryview(m)[ref.offset:end]


def tensor_place(model, tensor) -> Optional[str]:
    """Where `tensor` sits in `model` when it has no name of its own: the
    node attribute holding it, or the sparse initializer it is part of. Only
    errors ask, so a walk over the model is fine."""
    for g in model.graphs():
        for name, v in g.sparse_initializers.items():
            if tensor is v.const.values or tensor is v.const.indices:
                return f"{g.path}/sparse_initializer {name!r}"
        for n in g.nodes:
            for a in n.attributes.values():
                if _holds(a.value, tensor):
                    return f'{n.path}/attribute "{a.name}"'
    return None


def _holds(value, tensor) -> bool:
    items = value if isinstance(value, (list, tuple)) else [value]
    return any(x is tensor or getattr(x, "values", None) is tensor or getattr(x, "indices", None) is tensor
               for x in items)
