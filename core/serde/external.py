"""External tensor data: safe locations, memory-mapped reads, and the
tensors whose reference can never be followed (kept as read, marked
unreadable, refused when their data is needed)."""
from __future__ import annotations

import mmap
import os
import pathlib
import stat
from typing import Callable, Optional

from ..errors import ExternalDataError
from ..ir.graph import AttrType
from ..ir.tensor import NAMELESS, ExternalRef, SparseTensor, Tensor
from ..ir.text import as_text
from ..proto import onnx_pb2 as pb

EXTERNAL = 1  # TensorProto.DataLocation.EXTERNAL


def external_ref(t: pb.TensorProto) -> Optional[ExternalRef]:
    """The reference of a tensor stored externally, None for one stored in
    the model. Raises ExternalDataError when the reference cannot be
    followed, in words that follow the tensor's place ("tensor 'w': ...",
    see `tensor_where`)."""
    if t.data_location != EXTERNAL:
        return None
    # A damaged file may hold any of these strings as invalid UTF-8 (bytes
    # from protobuf): shown with U+FFFD, never as a bytes literal.
    keys = {as_text(e.key): e.value for e in t.external_data}
    if "location" not in keys:
        raise ExternalDataError("external data without a 'location' entry; name the data file "
                                "there, or store the data in the model")
    if keys["location"].__class__ is bytes:
        raise ExternalDataError(f"its external data location {as_text(keys['location'])!r} is not "
                                "valid UTF-8 (the file is damaged); name the data file there again, or store "
                                "the data in the model")
    try:
        offset = int(keys.get("offset", "0") or 0)
        length = int(keys["length"]) if keys.get("length") else None
    except ValueError:
        raise ExternalDataError(f"external data offset/length are not integers "
                                f"({keys.get('offset')!r}, {keys.get('length')!r})") from None
    if offset < 0 or (length is not None and length < 0):
        raise ExternalDataError("negative external data offset or length")
    return ExternalRef(keys["location"], offset, length, as_text(keys.get("checksum", "")))


def reference_problem(t: pb.TensorProto, base_dir: Optional[pathlib.Path]) -> Optional[str]:
    """Why the external data of `t` can never be read (no location, offset
    or length not integers, a location outside `base_dir`: absolute, with
    "..", a link leading out), in words that follow the tensor's place; None
    when it can be, or `t` is stored in the model. Without a folder
    (`base_dir` None) only the reference itself is judged. A missing data
    file is no such problem: it is found out when the data is read, and may
    be put back meanwhile."""
    try:
        ref = external_ref(t)
        if ref is not None and base_dir is not None:
            safe_path(base_dir, ref.location)
    except ExternalDataError as e:
        return str(e)
    return None


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
        # (st_dev, st_ino) of each data file mapped: a save in place appends
        # to a data file only while it is the very file the model's
        # references point into (serde.io, _appendable_locations).
        self._mapped_files: dict[str, tuple] = {}
        # Tensors held in memory (edited) that a save in place appended to a
        # data file, by id: (tensor, the ExternalRef written). The next save
        # in place writes that reference again instead of appending them
        # once more. Replaced by each save in place (serde.io).
        self.appended: dict[int, tuple] = {}
        # Set by the loader: says where a tensor without a name sits (a
        # Constant's value, another attribute), so an error names the place.
        self.describe: Optional[Callable[[object], str]] = None

    def _where(self, tensor) -> str:
        return tensor_where(tensor, self.describe)

    def path(self, ref: ExternalRef, tensor_name: str = "") -> pathlib.Path:
        return safe_path(self.base_dir, ref.location, tensor_name)

    def _map(self, ref: ExternalRef, tensor, fresh: bool = False):
        m = self._maps.get(ref.location)
        if m is None or fresh:
            m = self._map_file(ref.location, lambda: self._where(tensor), tensor.name)
        return m

    def _map_file(self, location: str, where: Callable[[], str], tensor_name: str = ""):
        path = safe_path(self.base_dir, location, tensor_name)
        try:
            # A FIFO would block the open forever and a device has no end:
            # only regular files hold tensor data.
            if not stat.S_ISREG(os.stat(path).st_mode):
                raise ExternalDataError(
                    f"{where()}: external data {location!r} is not a regular file "
                    f"(a folder, FIFO or device); refusing to read it")
            with open(path, "rb") as f:
                st = os.fstat(f.fileno())
                m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if st.st_size else b""
        except FileNotFoundError:
            raise ExternalDataError(
                f"{where()}: its external data file {location!r} is not found in the "
                f"model's folder {self.base_dir}; put the file back there, next to the model") from None
        except OSError as e:
            raise ExternalDataError(f"{where()}: cannot read {path}: {e}") from None
        self._maps[location] = m
        self._mapped_files[location] = (st.st_dev, st.st_ino)
        return m

    def size_if_still_mapped(self, location: str) -> Optional[int]:
        """The bytes data file `location` holds now when it is still the file
        this model maps and no shorter than when mapped (it is mapped now if
        nothing was read from it yet), else None: replaced by another
        program or a save that rewrote it, cut short, gone. What a save in
        place asks before it keeps references into the file and appends."""
        try:
            m = self._maps.get(location)
            if m is None:
                m = self._map_file(location, lambda: location)
            st = os.stat(safe_path(self.base_dir, location))
        except (OSError, ExternalDataError):
            return None
        if (st.st_dev, st.st_ino) != self._mapped_files.get(location) or st.st_size < len(m):
            return None
        return st.st_size

    def read(self, tensor) -> memoryview:
        ref = tensor.external
        m = self._map(ref, tensor)
        end = len(m) if ref.length is None else ref.offset + ref.length
        if end > len(m) and self.size_if_still_mapped(ref.location) not in (None, len(m)):
            # A save in place appended to the file after it was mapped: the
            # map ends at the old length, the same file goes on.
            m = self._map(ref, tensor, fresh=True)
            end = len(m) if ref.length is None else ref.offset + ref.length
        if ref.offset > len(m) or end > len(m):
            raise ExternalDataError(
                f"{self._where(tensor)}: external data {ref.location!r} has {len(m)} bytes, but the tensor "
                f"needs bytes {ref.offset}..{end}; the file is cut short or is not this model's")
        return memoryview(m)[ref.offset:end]


def tensor_where(tensor, describe: Optional[Callable[[object], Optional[str]]]) -> str:
    """How an error names `tensor`: by its name, else by its place
    (`describe`, see tensor_place), else as NAMELESS (exec puts the node
    attribute it decodes in front)."""
    if tensor.name:
        return f"tensor {tensor.name!r}"
    place = describe(tensor) if describe is not None else None
    return place or NAMELESS


class Refusal:
    """The reader of tensors whose external data reference can never be
    followed (`Tensor.unreadable` says why): it raises ExternalDataError
    naming the tensor's place. The file opened; reading its data is refused
    as the open used to be, and nothing is read (ever) outside the model's
    folder."""

    def __init__(self) -> None:
        # Set by the loader once the model exists (see ExternalFiles.describe).
        self.describe: Optional[Callable[[object], Optional[str]]] = None

    def __call__(self, tensor):
        raise ExternalDataError(f"{tensor_where(tensor, self.describe)}: {tensor.unreadable}")


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


def unreadable_tensors(model):
    """Every tensor of `model` whose data can never be read (Tensor.unreadable):
    initializers, sparse ones' parts and node attributes, in every graph and
    function body."""
    for g in model.graphs():
        for v in g.initializers.values():
            if v.const.unreadable is not None:
                yield v.const
        for v in g.sparse_initializers.values():
            yield from (t for t in (v.const.values, v.const.indices) if t.unreadable is not None)
        for n in g.nodes:
            for a in n.attributes.values():
                # By type first: a tree ensemble's lists of thousands of
                # numbers are neither decoded nor walked (46 ms a save).
                if a.type in _ONE_TENSOR:
                    yield from (t for t in _parts(a.value) if t.unreadable is not None)
                elif a.type in _TENSOR_LISTS:
                    for x in a.value or ():
                        yield from (t for t in _parts(x) if t.unreadable is not None)


_ONE_TENSOR = frozenset((AttrType.TENSOR, AttrType.SPARSE_TENSOR))
_TENSOR_LISTS = frozenset((AttrType.TENSORS, AttrType.SPARSE_TENSORS))


def _parts(value) -> tuple:
    """The dense tensors an attribute's value is made of (none for others)."""
    if isinstance(value, Tensor):
        return (value,)
    if isinstance(value, SparseTensor):
        return (value.values, value.indices)
    return ()


def unreadable_message(model, tensor) -> str:
    """What reading `tensor` (unreadable, in `model`) raises: its place, then why."""
    return f"{tensor_where(tensor, lambda t: tensor_place(model, t))}: {tensor.unreadable}"


def unreadable_save_problem(model, target: pathlib.Path, data_file: Optional[str]) -> Optional[str]:
    """Why saving `model` to `target` would need the data of a tensor that
    can never be read, or None. Such a tensor is written back as read, its
    external_data entries unchanged, which reads the same bytes only beside
    the file it came from: kept where it was (`data_file` None, serde.io's
    SaveOptions.external_data) into the model's own folder. Anything else
    (another folder, every tensor into the model ("") or into one data
    file) would have to copy bytes that cannot be read, or would leave a
    file that reads other ones: refused, naming the first such tensor."""
    found = next(unreadable_tensors(model), None)
    if found is None:
        return None
    files = model.external_files
    source = files.base_dir if files is not None else None
    if data_file is None and source is not None:
        try:
            if source.resolve() == target.parent.absolute().resolve():
                return None
        except OSError:
            pass
    if data_file == "":
        move = "copies every tensor into the model file"
    elif data_file:
        move = f"copies every tensor into the data file {data_file!r}"
    elif source is None:
        move = "needs it (the model was read without a folder)"
    else:
        move = f"goes to another folder than the model's ({source}), where its reference would point elsewhere"
    what = f"tensor {found.name!r}" if found.name else "that attribute's tensor"
    return (f"{unreadable_message(model, found).rstrip('.')}. Its data cannot be read, and this save {move}: "
            f"save into the model's folder keeping tensors where they are, or replace or remove {what} "
            "first; nothing was written")
