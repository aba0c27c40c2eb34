"""Load and save models.

Loading maps the file, moves large weights out of the protobuf parse (see
wire.py) and builds the IR; external data is mapped and read on first use.
Saving is atomic: the model file, and every data file the save rewrites,
is written beside its target, flushed to disk and renamed over it, so a
failed save leaves the old files intact and a file being read (even by this
very model) is never truncated. Saved in place, the model's own data files
are not rewritten but appended to (_ExternalWriter): no byte of an unedited
weight is copied, and every offset a reader uses stays valid.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import pathlib
import tempfile
import weakref
from dataclasses import dataclass, field
from typing import Optional, Union

from google.protobuf.message import DecodeError

from ..errors import ExternalDataError, LoadError, SaveError
from ..ir.model import Model
from ..ir.text import as_text
from ..ir.tensor import ExternalRef, Tensor
from ..proto import onnx_pb2 as pb
from ..whole_file import file_mode
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


def _build(mp: pb.ModelProto, stripper: wire.Stripper, files: Optional[external.ExternalFiles]) -> Model:
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
    """Open an .onnx file. Raises LoadError with a one-line reason when the
    file is no model. A tensor whose external data reference cannot be
    followed does not refuse it: it is kept as read, marked
    `Tensor.unreadable`, and refused when its data is read (external.Refusal)
    or a save would have to copy it (external.unreadable_save_problem)."""
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
    model = _build(mp, stripper, external.ExternalFiles(path.parent.absolute()))
    model.path = path
    return model


def load_bytes(data: bytes, base_dir: Optional[PathLike] = None) -> Model:
    """Build a model from serialized bytes; `base_dir` resolves external data."""
    mp, stripper = _parse(data, "<bytes>")
    files = external.ExternalFiles(pathlib.Path(base_dir).absolute()) if base_dir is not None else None
    return _build(mp, stripper, files)


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


class _AppendFailed(Exception):
    """Appending to a data file failed (an OSError): the save starts again
    and rewrites the data files whole, as a save elsewhere does."""


@dataclass
class Saved:
    """What a save did beyond writing the model file. appended: the data
    files a save in place grew, each with the bytes it grew by (padding
    included); empty when every weight was already there."""
    appended: dict = field(default_factory=dict)


class _ExternalWriter:
    """Collects tensor bytes per external file, then writes each atomically.

    Saving in place (`append_to`), the model's own data files are not
    rewritten: a tensor the file already holds keeps its external_data
    entries as read, and one not there yet (an edited weight, a new large
    one) is appended at the end of its data file. Every offset any reader
    uses (this model, its old file, another .onnx reading the same data
    file) stays valid; the appended tail is unreferenced until the model
    file is renamed into place, and `abort` cuts it off again."""

    def __init__(self, folder: pathlib.Path, align: int, models=(), files=None, append_to=None):
        self.folder = folder
        self.align = align
        self.files: dict[str, tuple] = {}   # location -> (tmp file object, path)
        self.replaced: list[tuple] = []    # (data file put in place, the old one kept aside or None)
        # The file being written and the one the model came from: weights
        # written over either would leave a model that cannot be read.
        self.models = {p.resolve() for p in models}
        self.model_files = files           # the model's ExternalFiles (its records of appended tensors)
        self.append_to: dict[str, int] = dict(append_to or {})   # location -> its size before this save
        self.appends: dict[str, tuple] = {}     # location -> (file object, path), opened on the first append
        self.appended_now: dict[int, tuple] = {}   # id(tensor) -> (tensor, ExternalRef) where this save put it

    def keeps(self, t: Tensor, location: str) -> bool:
        """`t` is already in `location`, a data file appended to: its
        external_data entries are written again as read (no byte copied)."""
        size = self.append_to.get(location)
        ref = t.external
        return (size is not None and ref is not None and ref.location == location and ref.length is not None
                and ref.offset + ref.length <= size)

    def add(self, location: str, t: Tensor, with_checksum: bool) -> list[tuple[str, str]]:
        if location in self.append_to:
            return _ref_entries(self._append(location, t, with_checksum))
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
        data = t.raw_bytes()
        pos = f.tell()
        pad = (-pos) % self.align
        if pad:
            f.write(b"\0" * pad)
            pos += pad
        f.write(data)
        return _ref_entries(ExternalRef(location, pos, len(data),
                                        hashlib.sha1(data).hexdigest() if with_checksum else ""))

    def _append(self, location: str, t: Tensor, with_checksum: bool) -> ExternalRef:
        ref = self._written_before(t, location)
        if ref is None:
            data = t.raw_bytes()        # before the file is touched: a tensor that cannot be read appends nothing
            try:
                entry = self.appends.get(location)
                if entry is None:
                    target = external.safe_path(self.folder, location)
                    entry = self.appends[location] = (open(target, "r+b"), target)
                f = entry[0]
                # Aligned as a rewritten file would be: the end of what was
                # there (or of the last tensor appended) rounded up.
                pos = f.seek(0, os.SEEK_END)
                pad = (-pos) % self.align
                if pad:
                    f.write(b"\0" * pad)
                    pos += pad
                f.write(data)
            except OSError as e:
                raise _AppendFailed(e) from None
            ref = ExternalRef(location, pos, len(data), hashlib.sha1(data).hexdigest() if with_checksum else "")
        self.appended_now[id(t)] = (t, ref)
        return ref

    def _written_before(self, t: Tensor, location: str) -> Optional[ExternalRef]:
        """Where this save (a tensor used twice) or an earlier save in place
        appended `t` to `location`, when the file still holds those bytes."""
        found = self.appended_now.get(id(t))
        if found is None and self.model_files is not None:
            found = self.model_files.appended.get(id(t))
            if found is not None and found[1].offset + found[1].length > self.append_to[location]:
                found = None
        if found is None or found[0] is not t or found[1].location != location:
            return None
        return found[1]

    def appended_bytes(self) -> dict:
        """location -> bytes appended to it by this save (after commit), for
        the data files that grew."""
        out = {}
        for location, (_, target) in self.appends.items():
            try:
                grown = target.stat().st_size - self.append_to[location]
            except OSError:
                continue
            if grown > 0:
                out[location] = grown
        return out

    def commit(self) -> None:
        """Flush the appended tails to disk, then put each rewritten data
        file in place, keeping the file it replaces aside
        until `finish`: the model file is renamed after its data files, and
        if that rename fails `abort` puts them back, so the old model never
        reads a layout written for the new one. Kept aside as a second link
        (the name stays taken all along); renamed where links are not had."""
        for f, _ in self.appends.values():
            try:
                f.flush()
                os.fsync(f.fileno())
                f.close()
            except OSError as e:
                raise _AppendFailed(e) from None
        for f, tmp, target in self.files.values():
            f.flush()
            os.fsync(f.fileno())
            f.close()
            os.chmod(tmp, file_mode(target))
            kept = None
            if target.exists():
                kept = target.with_name(f".{target.name}.{os.getpid()}.old")
                try:
                    os.link(target, kept)
                except OSError:
                    os.rename(target, kept)
            self.replaced.append((target, kept))
            os.replace(tmp, target)

    def finish(self, files) -> None:
        """The model file is in place: the old data files go, and the
        model's ExternalFiles (`files`, saved in place; else None) learn
        where this save appended the tensors it holds in memory."""
        for _, kept in self.replaced:
            if kept is not None:
                try:
                    kept.unlink()
                except OSError:
                    pass
        self.replaced = []
        if files is not None:
            files.appended = self.appended_now

    def abort(self) -> None:
        """Drop what was written, cut the appended tails off and put back
        any data file already replaced."""
        for f, tmp, _ in self.files.values():
            try:
                f.close()
                tmp.unlink()
            except OSError:
                pass
        for location, (f, target) in self.appends.items():
            try:
                f.close()
                # Unreferenced anyway (the old model file is in place); cut
                # off so a failed save leaves the data file as it was.
                os.truncate(target, self.append_to[location])
            except OSError:
                pass
        self.appends = {}
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


def _ref_entries(ref: ExternalRef) -> list[tuple[str, str]]:
    keys = [("location", ref.location), ("offset", str(ref.offset)), ("length", str(ref.length))]
    if ref.checksum:
        keys.append(("checksum", ref.checksum))
    return keys


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


def _appendable_locations(model: Model, path: pathlib.Path, opts: SaveOptions, moved_to: Optional[str]) -> dict:
    """The data files a save appends to instead of rewriting, each with its
    size now: saving in place (the model's own path, keeping tensors where
    they were), the model's own data files in its folder that are still
    the files it maps. Not one that a reference reads to its end (no
    length: it would read the appended bytes too) or that is the model
    file itself. Empty otherwise: the data files are written whole."""
    files = model.external_files
    if opts.external_data is not None or files is None or moved_to is not None or model.path is None:
        return {}
    try:
        if (pathlib.Path(model.path).resolve() != path.resolve()
                or files.base_dir.resolve() != path.parent.resolve()):
            return {}
    except OSError:
        return {}
    to_the_end, own = set(), set(files.stored_as_read.values())
    for t in _tensors(model):
        if isinstance(t, Tensor) and t.is_external:
            own.add(t.external.location)
            if t.external.length is None:
                to_the_end.add(t.external.location)
    out = {}
    for location in sorted(own - to_the_end):
        try:
            if (files.base_dir / location).resolve() == path.resolve():
                continue
        except OSError:
            continue
        size = files.size_if_still_mapped(location)
        if size is not None:
            out[location] = size
    return out


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
        if ext.keeps(t, location):
            return t.to_proto()
        p = t.to_proto(with_data=False)
        for field_name in ("raw_data", "float_data", "int32_data", "string_data", "int64_data",
                           "double_data", "uint64_data", "external_data"):
            p.ClearField(field_name)
        p.data_location = external.EXTERNAL
        had_checksum = bool(t.external and t.external.checksum)
        for k, v in ext.add(location, t, had_checksum):
            e = p.external_data.add()
            e.key, e.value = k, v
        return p
    return write


def save(model: Model, path: PathLike, options: Optional[SaveOptions] = None, **kw) -> Saved:
    """Write `model` to `path` atomically (see SaveOptions for external data).

    Saved in place with tensors kept where they were, the model's data
    files are not rewritten: what they hold stays, what they lack is
    appended (see _ExternalWriter), so a data file only grows; the result
    says by how much. When appending fails the data files are rewritten
    whole instead."""
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
    try:
        return _write(model, path, opts, auto_file, append=True)
    except _AppendFailed:
        # Cut off again by the first attempt; a platform that refuses to
        # extend a mapped file still gets a correct save.
        return _write(model, path, opts, auto_file, append=False)


def _write(model: Model, path: pathlib.Path, opts: SaveOptions, auto_file: Optional[str], append: bool) -> Saved:
    folder = path.parent.absolute()
    tmp = None
    ext = None
    try:
        kept = kept_locations(model) if opts.external_data is None else {}
        moved_to = _source_data_moves(model, path, opts, kept)
        append_to = _appendable_locations(model, path, opts, moved_to) if append else {}
        in_place = model.external_files if _saved_in_place(model, path, opts) else None
        ext = _ExternalWriter(folder, opts.align, [path] + ([pathlib.Path(model.path)] if model.path else []),
                              in_place, append_to)
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
        os.chmod(tmp, file_mode(path))
        os.replace(tmp, path)
        tmp = None
        ext.finish(in_place)
        _fsync_dir(folder)
        return Saved(ext.appended_bytes())
    except _AppendFailed:
        ext.abort()
        raise
    except ExternalDataError as e:
        _abort(ext)
        raise SaveError(f"{path}: {e}") from None
    except OSError as e:
        _abort(ext)
        raise SaveError(f"{path}: cannot write ({e.strerror or e}); nothing was changed") from None
    except BaseException:
        # Anything else (a bug, MemoryError, Ctrl+C) half-way: the same, no
        # stray temporary files and the old data files back in place.
        _abort(ext)
        raise
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _abort(ext: Optional[_ExternalWriter]) -> None:
    if ext is not None:
        ext.abort()


def _saved_in_place(model: Model, path: pathlib.Path, opts: SaveOptions) -> bool:
    """Saved over the file it was read from, tensors kept where they were."""
    if opts.external_data is not None or model.path is None or model.external_files is None:
        return False
    try:
        return pathlib.Path(model.path).resolve() == path.resolve()
    except OSError:
        return False


def to_bytes(model: Model) -> bytes:
    """Serialized model with all data inline (external tensors are read in)."""
    return model_to_proto(model, _tensor_writer(SaveOptions(external_data=""), None, None)).SerializeToString()


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
