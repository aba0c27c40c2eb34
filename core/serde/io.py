"""Load and save models.

Loading maps the file, moves large weights out of the protobuf parse (see
wire.py) and builds the IR; external data is mapped and read on first use.
Saving is atomic: every file is written beside its target, flushed to disk
and renamed over it, so a failed save leaves the old files intact and a file
being read (even by this very model) is never truncated.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import pathlib
import tempfile
import weakref
from dataclasses import dataclass
from typing import Optional, Union

from google.protobuf.message import DecodeError

from ..errors import ExternalDataError, LoadError, SaveError
from ..ir.model import Model
from ..ir.text import as_text
from ..ir.tensor import Tensor
from ..proto import onnx_pb2 as pb
from . import external, wire
from .convert import model_from_proto, model_to_proto

PathLike = Union[str, os.PathLike]

# protobuf refuses messages of 2 GiB or more; keep a margin for the graph itself.
PROTOBUF_LIMIT = 2**31 - 1
MAP_FILES_FROM = 1024 * 1024


def _parse(buf, origin: str):
    stripper = wire.Stripper(buf)
    try:
        data = stripper.strip_model()
    except wire.WireError as e:
        raise LoadError(f"{origin}: not an ONNX model (malformed protobuf: {e})") from None
    mp = pb.ModelProto()
    try:
        mp.ParseFromString(data)
    except DecodeError as e:
        if "MaxDepth" in str(e):
            raise LoadError(f"{origin}: subgraphs nest too deeply: protobuf reads at most 100 levels of "
                            "nested messages (about 30 levels of If/Loop/Scan bodies)") from None
        raise LoadError(f"{origin}: not an ONNX model (its protobuf data is corrupt or truncated)") from None
    except Exception as e:  # noqa: BLE001  (upb raises several kinds)
        raise LoadError(f"{origin}: not an ONNX model ({type(e).__name__}: {e})") from None
    if not mp.HasField("graph") and not mp.HasField("ir_version") and not mp.functions:
        raise LoadError(f"{origin}: not an ONNX model (no graph, no IR version)")
    return mp, stripper


def _build(mp: pb.ModelProto, stripper: wire.Stripper, files: Optional[external.ExternalFiles],
           origin: str) -> Model:
    payloads = stripper.payloads
    base_dir = files.base_dir if files is not None else None
    refusal = external.Refusal()

    def make_tensor(tp: pb.TensorProto) -> Tensor:
        raw = None
        if payloads and tp.HasField("raw_data") and len(tp.raw_data) == 16:
            i = stripper.placeholder_index(tp.raw_data)
            if i >= 0:
                raw = payloads[i]
                tp.ClearField("raw_data")
        if tp.data_location != external.EXTERNAL:
            return Tensor(tp, raw)
        problem = external.reference_problem(tp, base_dir)
        if problem is not None:
            # Kept as read and refused when its data is needed: one bad
            # weight reference no longer stops the whole graph from opening.
            return Tensor.unreadable_as_read(tp, raw, problem, refusal)
        ref = external.external_ref(tp)
        if files is None:
            return Tensor(tp, external=ref)
        return Tensor(tp, raw, external=ref, reader=files.read)

    if files is not None:
        for tp in mp.graph.initializer:
            if tp.data_location == external.EXTERNAL and external.reference_problem(tp, base_dir) is None:
                files.stored_as_read.setdefault(as_text(tp.name), external.external_ref(tp).location)
    model = model_from_proto(mp, make_tensor, lazy=True)
    model.attach_external_files(files)
    # Weakly: the model holds both (through its tensors); a strong reference back would be a cycle.
    owner = weakref.ref(model)
    refusal.describe = lambda t: external.tensor_place(owner(), t) if owner() is not None else None
    if files is not None:
        files.describe = refusal.describe
    return model


def load(path: PathLike) -> Model:
    """Open an .onnx file. Raises LoadError with a one-line reason."""
    path = pathlib.Path(path)
    origin = str(path)
    try:
        if path.exists() and not path.is_dir() and not path.is_file():
            # Opening a FIFO blocks until someone writes to it; a device never ends.
            raise LoadError(f"{origin}: not a regular file (a FIFO, socket or device); refusing to read it")
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size == 0:
                raise LoadError(f"{origin}: the file is empty")
            # Small files are faster to read than to map; large ones are mapped so
            # weights are only paged in when a tensor is used.
            buf = f.read() if size < MAP_FILES_FROM else mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except FileNotFoundError:
        raise LoadError(f"{origin}: no such file") from None
    except IsADirectoryError:
        raise LoadError(f"{origin}: is a folder, not an .onnx file") from None
    except PermissionError:
        raise LoadError(f"{origin}: permission denied") from None
    except OSError as e:
        raise LoadError(f"{origin}: cannot read ({e.strerror or e})") from None
    mp, stripper = _parse(buf, origin)
    model = _build(mp, stripper, external.ExternalFiles(path.parent.absolute()), origin)
    model.path = path
    return model


def load_bytes(data: bytes, base_dir: Optional[PathLike] = None) -> Model:
    """Build a model from serialized bytes; `base_dir` resolves external data."""
    mp, stripper = _parse(data, "<bytes>")
    files = external.ExternalFiles(pathlib.Path(base_dir).absolute()) if base_dir is not None else None
    return _build(mp, stripper, files, "<bytes>")


# --- saving ---------------------------------------------------------------------

@dataclass
class SaveOptions:
    """How tensors are stored.

    external_data: None keeps each tensor where it was (inline, or in an
        external file of the same name next to the new model); a file name puts
        every tensor of at least `size_threshold` bytes in that one file;
        "" writes everything inline.
    protobuf_limit: when the inline model would reach this many bytes, tensors
        move to external data automatically (file `<model file>.data`).
    """
    external_data: Optional[str] = None
    size_threshold: int = 1024
    protobuf_limit: int = PROTOBUF_LIMIT
    align: int = 64


class _ExternalWriter:
    """Collects tensor bytes per external file, then writes each atomically."""

    def __init__(self, folder: pathlib.Path, align: int, models=()):
        self.folder = folder
        self.align = align
        self.files: dict[str, tuple] = {}   # location -> (tmp file object, path)
        self.replaced: list[tuple] = []    # (data file put in place, the old one kept aside or None)
        # The file being written and the one the model came from: weights
        # written over either would leave a model that cannot be read.
        self.models = {p.resolve() for p in models}

    def add(self, location: str, data, with_checksum: bool) -> list[tuple[str, str]]:
        target = external.safe_path(self.folder, location)
        entry = self.files.get(location)
        if entry is None:
            if target.resolve() in self.models:
                raise ExternalDataError(f"external data file {location!r} is the model file {target}; the weights "
                                        "would overwrite the model: give the data file a name of its own")
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
            entry = (os.fdopen(fd, "wb"), pathlib.Path(tmp), target)
            self.files[location] = entry
        f = entry[0]
        pos = f.tell()
        pad = (-pos) % self.align
        if pad:
            f.write(b"\0" * pad)
            pos += pad
        f.write(data)
        keys = [("location", location), ("offset", str(pos)), ("length", str(len(data)))]
        if with_checksum:
            keys.append(("checksum", hashlib.sha1(data).hexdigest()))
        return keys

    def commit(self) -> None:
        """Put each data file in place, keeping the file it replaces aside
        until `finish`: the model file is renamed after its data files, and
        if that rename fails `abort` puts them back, so the old model never
        reads a layout written for the new one. Kept aside as a second link
        (the name stays taken all along); renamed where links are not had."""
        for f, tmp, target in self.files.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
            os.chmod(tmp, _file_mode(target))
            kept = None
            if target.exists():
                kept = target.with_name(f".{target.name}.{os.getpid()}.old")
                try:
                    os.link(target, kept)
                except OSError:
                    os.rename(target, kept)
            self.replaced.append((target, kept))
            os.replace(tmp, target)

    def finish(self) -> None:
        """The model file is in place: the old data files go."""
        for _, kept in self.replaced:
            if kept is not None:
                try:
                    kept.unlink()
                except OSError:
                    pass
        self.replaced = []

    def abort(self) -> None:
        """Drop what was written and put back any data file already replaced."""
        for f, tmp, _ in self.files.values():
            try:
                f.close()
                tmp.unlink()
            except OSError:
                pass
        for target, kept in reversed(self.replaced):
            try:
                if kept is None:
                    target.unlink()
                elif target.exists() and os.path.samefile(kept, target):
                    kept.unlink()          # never replaced; renaming a link onto its twin does nothing
                else:
                    os.replace(kept, target)
            except OSError:
                pass
        self.replaced = []


def _tensors(model: Model):
    """Every initializer (sparse ones as they are) and tensor attribute, in all graphs."""
    for g in model.graphs():
        for v in list(g.initializers.values()) + list(g.sparse_initializers.values()):
            yield v.const
        for n in g.nodes:
            for a in n.attributes.values():
                if isinstance(a.value, Tensor):
                    yield a.value


def inline_size(model: Model) -> int:
    """Bytes the model's tensors take when all are written inside the model file."""
    return sum(c.nbytes if isinstance(c, Tensor) else c.values.nbytes + c.indices.nbytes
               for c in _tensors(model))


def kept_locations(model: Model) -> dict[int, str]:
    """The data file each tensor goes to when a save keeps tensors where
    they were (SaveOptions.external_data None), by id(tensor): every tensor
    read from a data file, and every initializer of the main graph that an
    edit replaced while the file stored it externally. An edited weight is
    held in memory, but "keep" means it stays in a data file: a 250 MB
    embedding edited must not move into the model file, towards protobuf's
    2 GB limit. (An initializer renamed as well as edited is not recognised
    and is written inline.)"""
    out = {id(t): t.external.location for t in _tensors(model) if isinstance(t, Tensor) and t.is_external}
    files = model.external_files
    stored = files.stored_as_read if files is not None else {}
    if stored:
        for name, v in model.graph.initializers.items():
            t = v.const
            if isinstance(t, Tensor) and not t.is_external and name in stored:
                out[id(t)] = stored[name]
    return out


def has_external_data(model: Model) -> bool:
    """Some tensor of the model is stored in an external data file (see kept_locations)."""
    return bool(kept_locations(model))


def _source_data_moves(model: Model, path: pathlib.Path, opts: SaveOptions, kept: dict) -> Optional[str]:
    """The file external tensors kept where they were go to instead, or None.

    Saving a model next to the file it was read from under another name
    would rewrite that file's external data with this save's layout, and
    the file read from, untouched otherwise, would then read wrong bytes
    at its old offsets. Saved into another folder, a data file of the same
    name already there belongs to another model unless the file being
    replaced (`path`) reads it: writing over it would leave that model
    reading this one's bytes (a folder holding model.onnx and
    model.onnx.data, and another export saved there as copy.onnx). In both
    cases its tensors go to `<new model>.data` instead. `kept`: what
    kept_locations says."""
    files = model.external_files
    if opts.external_data is not None or files is None:
        return None
    try:
        # A model with no file of its own (a part extract_model cut) is saved
        # over no source, but can still land beside another model's data file.
        if model.path is not None and pathlib.Path(model.path).resolve() == path.resolve():
            return None
        if files.base_dir.resolve() == path.parent.resolve():
            return _unclaimed_data_name(path)
        taken = [loc for loc in set(kept.values()) if (path.parent / loc).exists()]
        if taken:
            # Only now is the file being replaced read (a load of a large model).
            own = _locations_read_by(path)
            if not set(taken) <= own:
                return _unclaimed_data_name(path, own)
    except OSError:
        return None
    return None


def _unclaimed_data_name(path: pathlib.Path, own: Optional[set] = None) -> str:
    """`<path>.data`, unless a file of that name is there and the file being
    replaced does not read it: then it is another model's (other.onnx reading
    model.onnx.data, and a copy saved beside it as model.onnx), and the first
    `<path>.N.data` that is free or the replaced file's own is taken instead.
    `own`: what the file being replaced reads, when the caller read it."""
    name, n = path.name + ".data", 0
    while (path.parent / name).exists():
        if own is None:
            own = _locations_read_by(path)
        if name in own:
            break
        n += 1
        name = f"{path.name}.{n}.data"
    return name


def _refuse_source_data(model: Model, path: pathlib.Path, name: str) -> None:
    """A copy's external data named after the data file its source still
    reads (convert model.onnx copy.onnx --external-data model.onnx.data)
    would rewrite that file with the copy's layout and leave the source
    reading wrong bytes at its offsets: refused. Saving over the source
    itself may rewrite its own file."""
    files = model.external_files
    if files is None:
        return
    try:
        if model.path is not None and pathlib.Path(model.path).resolve() == path.resolve():
            return
        target = (path.parent / name).resolve()
        read = {(files.base_dir / t.external.location).resolve()
                for t in _tensors(model) if isinstance(t, Tensor) and t.is_external}
    except OSError:
        return
    if target in read:
        source = model.path if model.path is not None else "the model it was cut from"
        raise SaveError(f"{path}: the external data file {name!r} is the one {source} reads its weights "
                        f"from; writing this copy's weights there would break it: give another name")


def _locations_read_by(path: pathlib.Path) -> set:
    """The external data files the model at `path` reads (none when there is
    no model there or it cannot be read: then nothing there is its)."""
    if not path.exists():
        return set()
    try:
        found = load(path)
        return {t.external.location for t in _tensors(found) if isinstance(t, Tensor) and t.is_external}
    except Exception:  # noqa: BLE001 - a file we cannot read owns no data file we would keep
        return set()


def _tensor_writer(opts: SaveOptions, ext: _ExternalWriter, auto_file: Optional[str],
                   moved_to: Optional[str] = None, kept: Optional[dict] = None):
    kept = kept or {}

    def write(t: Tensor) -> pb.TensorProto:
        if t.unreadable is not None:
            if opts.external_data is None:
                return t.to_proto()     # as read: save() let it through (unreadable_save_problem)
            t.raw_bytes()               # refused, naming the tensor (to_bytes: every tensor inline)
        location = None
        if opts.external_data:
            location = opts.external_data if t.nbytes >= opts.size_threshold else None
        elif opts.external_data is None:
            if id(t) in kept:
                location = moved_to or kept[id(t)]
            elif auto_file and t.nbytes >= opts.size_threshold:
                location = auto_file
        if location is None or t.dtype == 8:   # strings cannot be stored externally
            p = t.to_proto()
            if t.is_external:
                p.ClearField("external_data")
                p.ClearField("data_location")
                p.raw_data = bytes(t.raw_bytes())
            return p
        p = t.to_proto(with_data=False)
        data = t.raw_bytes()
        for field in ("raw_data", "float_data", "int32_data", "string_data", "int64_data",
                      "double_data", "uint64_data", "external_data"):
            p.ClearField(field)
        p.data_location = external.EXTERNAL
        had_checksum = bool(t.external and t.external.checksum)
        for k, v in ext.add(location, data, had_checksum):
            e = p.external_data.add()
            e.key, e.value = k, v
        return p
    return write


def save(model: Model, path: PathLike, options: Optional[SaveOptions] = None, **kw) -> None:
    """Write `model` to `path` atomically (see SaveOptions for external data)."""
    opts = options or SaveOptions(**kw)
    path = pathlib.Path(path)
    folder = path.parent.absolute()
    blocking = next((p for p in [folder, *folder.parents] if p.exists()), None)
    if blocking is not None and not blocking.is_dir():
        # The OS says "File exists" or "Not a directory", naming neither.
        raise SaveError(f"{path}: {blocking} is a file, not a folder; nothing was written: choose another place")
    auto_file = None
    if opts.external_data is None and inline_size(model) >= opts.protobuf_limit:
        auto_file = path.name + ".data"
    if opts.external_data == "" and inline_size(model) >= opts.protobuf_limit:
        raise SaveError(f"{path}: the tensors need {inline_size(model)} bytes, more than protobuf's 2 GB "
                        f"limit; save with external data instead")
    if opts.external_data:
        _refuse_source_data(model, path, opts.external_data)
    problem = external.unreadable_save_problem(model, path, opts.external_data)
    if problem is not None:
        raise SaveError(f"{path}: {problem}")
    ext = _ExternalWriter(folder, opts.align, [path] + ([pathlib.Path(model.path)] if model.path else []))
    tmp = None
    try:
        kept = kept_locations(model) if opts.external_data is None else {}
        moved_to = _source_data_moves(model, path, opts, kept)
        mp = model_to_proto(model, _tensor_writer(opts, ext, auto_file, moved_to, kept))
        data = mp.SerializeToString()
        if len(data) >= PROTOBUF_LIMIT:
            raise SaveError(f"{path}: the model is {len(data)} bytes, over protobuf's 2 GB limit; "
                            f"save with external data")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        ext.commit()
        os.chmod(tmp, _file_mode(path))
        os.replace(tmp, path)
        tmp = None
        ext.finish()
        _fsync_dir(folder)
    except ExternalDataError as e:
        ext.abort()
        raise SaveError(f"{path}: {e}") from None
    except OSError as e:
        ext.abort()
        raise SaveError(f"{path}: cannot write ({e.strerror or e}); nothing was changed") from None
    except BaseException:
        # Anything else (a bug, MemoryError, Ctrl+C) half-way: the same, no
        # stray temporary files and the old data files back in place.
        ext.abort()
        raise
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def to_bytes(model: Model) -> bytes:
    """Serialized model with all data inline (external tensors are read in)."""
    return model_to_proto(model, _tensor_writer(SaveOptions(external_data=""), None, None)).SerializeToString()


def _file_mode(target: pathlib.Path) -> int:
    """Keep an existing file's permissions; new files get the usual 0666 & ~umask."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(folder: pathlib.Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
