"""Making inputs for a run: from .npy/.npz/.pb files, or random ones that fit
the declared types."""
from __future__ import annotations

import os
import pathlib
from typing import Optional

import numpy as np

from ..ir import Value
from ..ir.dtypes import DataType, is_known, to_numpy_dtype
from ..ir.types import MapType, OptionalType, SequenceType, TensorType
from ..proto import onnx_pb2 as pb
from ..serde import codec
from .errors import FeedError
from .values import ANONYMOUS_DIMS


def read_array_file(path, name: Optional[str] = None) -> dict:
    """{name: array} from .npy (needs `name`), .npz (all arrays, or just `name`)
    or .pb (a serialized TensorProto; its own name unless `name` is given)."""
    path = pathlib.Path(path)
    where = str(path)
    try:
        suffix = path.suffix.lower()
        if suffix in (".npy", ".npz") and not _numpy_file(path):
            # numpy would try it as a pickle, refuse, and advise loading it unsafely with allow_pickle=True.
            raise FeedError(f"{where}: is not a {suffix} file (numpy's save and savez write them); "
                            "check the file, or save the arrays again")
        if suffix == ".npy":
            if not name:
                raise FeedError(f"{where}: say which input it is for: NAME={path.name}")
            return {name: np.load(path, allow_pickle=False)}
        if suffix == ".npz":
            loaded = np.load(path, allow_pickle=False)
            if isinstance(loaded, np.ndarray):
                raise FeedError(f"{where}: holds one array as numpy's save writes it, not an archive of arrays: "
                                "name it .npy, or write it with numpy's savez")
            with loaded as z:
                arrays = {k: z[k] for k in z.files}
            if name:
                if name in arrays:
                    return {name: arrays[name]}
                if len(arrays) == 1:
                    return {name: next(iter(arrays.values()))}
                raise FeedError(f"{where}: has no array named {name!r} (it has {', '.join(arrays)})")
            return arrays
        if suffix == ".pb":
            t = pb.TensorProto()
            t.ParseFromString(path.read_bytes())
            key = name or t.name
            if not key:
                raise FeedError(f"{where}: the tensor has no name; say which input it is for: NAME={path.name}")
            return {key: codec.to_numpy(t)}
    except FeedError:
        raise
    except FileNotFoundError:
        raise FeedError(f"{where}: no such file") from None
    except Exception as e:  # noqa: BLE001  (numpy/protobuf raise many kinds)
        raise FeedError(f"{where}: cannot read it as {path.suffix or 'an array file'} ({e})") from None
    if not path.exists():
        raise FeedError(f"{where}: no such file")
    raise FeedError(f"{where}: unsupported input file type {path.suffix!r}; use .npy, .npz or .pb")


def _numpy_file(path: pathlib.Path) -> bool:
    """Whether the file starts as numpy's .npy or a zip archive (.npz) does;
    np.load takes either, whatever the suffix."""
    with open(path, "rb") as f:
        head = f.read(6)
    return head == b"\x93NUMPY" or head[:4] in (b"PK\x03\x04", b"PK\x05\x06")


RANDOM_INT_RANGE = (0, 1)      # inclusive


def _tensor_type(t):
    """The tensor type a random value of type `t` is made of (through
    optional and sequence), or `t` itself when there is none."""
    while isinstance(t, (OptionalType, SequenceType)):
        t = t.elem
    return t


def defaulted_dims(v: Value, dims: Optional[dict] = None) -> list:
    """The dims of `v` random_value sizes 1 for want of a size: symbolic
    names not in `dims`, and `input[axis]` for unnamed or unknown ones
    (exporters such as Paddle write -1 for "any size")."""
    dims = dims or {}
    t = _tensor_type(v.type)
    found = []
    for axis, d in enumerate(getattr(t, "shape", None) or ()):
        if f"{v.name}[{axis}]" in dims:
            continue
        if isinstance(d, str) and d not in ANONYMOUS_DIMS:
            if d not in dims:
                found.append(d)
        elif not isinstance(d, int) or d < 0:
            found.append(f"{v.name}[{axis}]")
    return found


def fill_dims(name: str, shape, dims: dict) -> list[int]:
    """Input `name`'s declared `shape` with every free dim given a size: from
    `dims` by axis ("name[2]") or by symbol, else 1."""
    out = []
    for axis, d in enumerate(shape):
        if f"{name}[{axis}]" in dims:
            out.append(int(dims[f"{name}[{axis}]"]))
        elif isinstance(d, int) and d >= 0:
            out.append(d)
        elif isinstance(d, str) and d not in ANONYMOUS_DIMS and d in dims:
            out.append(int(dims[d]))
        else:
            out.append(1)
    return out


def random_value(v: Value, rng: np.random.Generator, dims: Optional[dict] = None):
    """A random value fitting `v`'s declared type. A dim takes its size from
    `dims`, by "NAME[AXIS]" (NAME the input's) or by its symbolic name;
    otherwise fixed dims keep theirs and the others (unnamed, unknown,
    negative) are 1."""
    dims = dims or {}
    t = v.type
    if isinstance(t, OptionalType):
        t = t.elem
    if isinstance(t, SequenceType):
        inner = Value(v.name, t.elem)
        return [random_value(inner, rng, dims) for _ in range(2)]
    if isinstance(t, MapType):
        raise FeedError(f'input "{v.name}": cannot make a random map; give it with --input')
    if not isinstance(t, TensorType):
        raise FeedError(f'input "{v.name}": its type is not declared; give it with --input')
    if t.shape is None:
        raise FeedError(f'input "{v.name}": its rank is not declared; give it with --input')
    shape = fill_dims(v.name, t.shape, dims)
    code = DataType(t.elem_type) if is_known(t.elem_type) else DataType.UNDEFINED
    if code == DataType.UNDEFINED:
        raise FeedError(f'input "{v.name}": its element type is not declared; give it with --input')
    refuse_absurd_size(v.name, shape)
    try:
        return _random_array(code, shape, rng)
    except MemoryError:
        raise FeedError(f'input "{v.name}": not enough memory for a random value of shape '
                        f'{shape}; give smaller sizes with --dim') from None


def refuse_absurd_size(name: str, shape: list) -> None:
    """A declared shape (possibly damaged) can ask for terabytes; refuse
    before numpy tries: making the value takes about 8 bytes an element.
    The CLI and the app's inputs panel (input_gen) both ask here."""
    count = 1
    for d in shape:
        count *= d
    if count * 8 > _physical_memory():
        raise FeedError(f'input "{name}": a random value of shape {shape} ({count:,} elements) would '
                        f'not fit in this machine\'s memory; give its dims smaller sizes')


def _physical_memory() -> int:
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):   # not POSIX: numpy's MemoryError says it
        return 1 << 62


def _random_array(code: DataType, shape: list, rng: np.random.Generator):
    if code == DataType.STRING:
        return np.array([f"s{i}" for i in range(int(np.prod(shape)))], dtype=object).reshape(shape)
    if code == DataType.BOOL:
        return np.asarray(rng.random(shape) < 0.5)
    dt = to_numpy_dtype(code)
    if code in (DataType.COMPLEX64, DataType.COMPLEX128):
        return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
    if dt.kind in "iu" or code in (DataType.INT4, DataType.UINT4, DataType.INT2, DataType.UINT2):
        # 0 or 1 (RANDOM_INT_RANGE): valid as token ids, token types, masks and
        # indices into any non-empty axis, which larger ranges are not.
        return rng.integers(RANDOM_INT_RANGE[0], RANDOM_INT_RANGE[1] + 1, size=shape).astype(dt)
    return rng.standard_normal(shape).astype(np.float32).astype(dt)
