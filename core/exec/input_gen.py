"""Inputs for a run, described by plain data the app can remember per model:
random (seeded; normal, or uniform in a range; integers in a range such as
token ids below the vocabulary size), zeros / ones / a constant, an array
file (.npy, .npz, ONNX TensorProto .pb) or an image file (resized, NCHW or
NHWC, scaled, mean/std normalised).

    spec = InputSpec("input_ids", "random", low=0, high=30521)
    s = InputSet(seed=0, dims={"batch": 1, "seq": 128}, inputs={"input_ids": spec})
    feeds = make_feeds(model.graph.inputs, s)          # FeedError names the input
    s.to_json() / InputSet.from_json(data)             # saved sets and settings

Each input draws from its own random stream (the set's seed and the input's
name), so changing one input's source leaves the others' values as they were.
"""
from __future__ import annotations

import pathlib
import zlib
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

from ..ir import Value
from ..ir.dtypes import DataType, from_numpy_dtype, to_numpy_dtype, type_name
from ..ir.types import OptionalType, SequenceType, TensorType, format_shape
from .errors import FeedError
from .feeds import fill_dims, read_array_file
from .values import ANONYMOUS_DIMS

SOURCES = ("random", "zeros", "ones", "constant", "file", "image")
IMAGE_LAYOUTS = ("NCHW", "NHWC")


@dataclass
class InputSpec:
    name: str
    source: str = "random"
    distribution: str = "normal"          # random floats: "normal" (mean, std) or "uniform" (low, high)
    low: float = 0.0                      # uniform range; integers: low..high inclusive
    high: float = 1.0
    mean: float = 0.0
    std: float = 1.0
    value: float = 0.0                    # source "constant"
    path: str = ""                        # source "file" / "image"
    key: str = ""                         # the array's name inside an .npz
    layout: str = "NCHW"                  # image: NCHW or NHWC
    scale: float = 1.0 / 255.0            # image: pixel * scale, then (x - mean) / std per channel
    channel_mean: list = field(default_factory=lambda: [0.0, 0.0, 0.0])
    channel_std: list = field(default_factory=lambda: [1.0, 1.0, 1.0])
    bgr: bool = False                     # image: channels in B, G, R order

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "InputSpec":
        known = {f for f in cls.__dataclass_fields__}
        spec = cls(**{k: v for k, v in data.items() if k in known})
        if spec.source not in SOURCES:
            raise FeedError(f'input "{spec.name}": unknown source {spec.source!r} (one of {", ".join(SOURCES)})')
        return spec


@dataclass
class InputSet:
    seed: int = 0
    dims: dict = field(default_factory=dict)        # symbolic name or "input[axis]" -> size
    inputs: dict = field(default_factory=dict)      # input name -> InputSpec

    def spec(self, name: str) -> InputSpec:
        return self.inputs.get(name) or InputSpec(name)

    def to_json(self) -> dict:
        return {"format": "onnxstudio-inputs/1", "seed": self.seed, "dims": dict(self.dims),
                "inputs": {k: v.to_json() for k, v in self.inputs.items()}}

    @classmethod
    def from_json(cls, data) -> "InputSet":
        if not isinstance(data, dict):
            raise FeedError("an input set is a JSON object")
        try:
            dims = {str(k): int(v) for k, v in (data.get("dims") or {}).items()}
            inputs = {str(k): InputSpec.from_json({**v, "name": str(k)})
                      for k, v in (data.get("inputs") or {}).items()}
            return cls(int(data.get("seed", 0)), dims, inputs)
        except (TypeError, ValueError, AttributeError) as e:
            raise FeedError(f"not an input set: {e}") from None


# -- shapes ---------------------------------------------------------------------------------

def tensor_type(v: Value) -> Optional[TensorType]:
    t = v.type
    while isinstance(t, (OptionalType, SequenceType)):
        t = t.elem
    return t if isinstance(t, TensorType) else None


def free_dims(inputs) -> list[str]:
    """The sizes a user must choose, in order of first appearance: symbolic
    dim names once each ("batch"), and "input[axis]" for unnamed or unknown ones."""
    out: list[str] = []
    for v in inputs:
        t = tensor_type(v)
        for axis, d in enumerate((t.shape or ()) if t is not None else ()):
            key = d if isinstance(d, str) and d not in ANONYMOUS_DIMS else (
                None if isinstance(d, int) and d >= 0 else f"{v.name}[{axis}]")
            if key is not None and key not in out:
                out.append(key)
    return out


def resolved_shape(v: Value, dims: dict) -> list[int]:
    """`v`'s declared shape with every free dim taken from `dims` (1 when not there)."""
    t = tensor_type(v)
    if t is None or t.shape is None:
        raise FeedError(f'input "{v.name}": its shape is not declared; give it from a file')
    return fill_dims(v.name, t.shape, dims)


def declared_dtype(v: Value) -> np.dtype:
    t = tensor_type(v)
    if t is None or not t.elem_type:
        raise FeedError(f'input "{v.name}": its element type is not declared; give it from a file')
    if t.elem_type not in DataType._value2member_map_:     # a damaged or newer file
        raise FeedError(f'input "{v.name}": element type {t.elem_type} is not one this version knows')
    if t.elem_type == DataType.STRING:
        return np.dtype(object)
    return to_numpy_dtype(DataType(t.elem_type))


def describe_type(v: Value) -> str:
    t = tensor_type(v)
    if t is None:
        return str(v.type) if v.type is not None else "?"
    try:
        name = type_name(DataType(t.elem_type))
    except ValueError:
        name = "?"
    return name + (format_shape(t.shape) if t.shape is not None else "[?]")


# -- making values -----------------------------------------------------------------------------

def _rng(seed: int, name: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(name.encode("utf-8"))])


def make_value(v: Value, spec: InputSpec, seed: int = 0, dims: Optional[dict] = None):
    """The array `spec` describes for input `v`; FeedError names the input."""
    # numpy's generators give scalars, not arrays, for shape (): feeds are arrays.
    value = _make_value(v, spec, seed, dims)
    return np.asarray(value) if not isinstance(value, np.ndarray) else value


def _make_value(v: Value, spec: InputSpec, seed: int, dims: Optional[dict]):
    dims = dims or {}
    where = f'input "{v.name}"'
    if spec.source == "file":
        return _from_file(v, spec)
    if spec.source == "image":
        return image_input(v, spec, dims)
    dtype = declared_dtype(v)
    shape = resolved_shape(v, dims)
    if int(np.prod(shape, dtype=np.int64)) > (1 << 28):
        raise FeedError(f"{where}: {shape} is too large to make; choose smaller dimension sizes")
    if spec.source == "zeros":
        return _filled(shape, dtype, 0)
    if spec.source == "ones":
        return _filled(shape, dtype, 1)
    if spec.source == "constant":
        return _filled(shape, dtype, spec.value)
    if spec.source != "random":
        raise FeedError(f"{where}: unknown source {spec.source!r}")
    rng = _rng(seed, v.name)
    if dtype == object:
        return np.array([f"s{i}" for i in range(int(np.prod(shape)))], dtype=object).reshape(shape)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    is_int = dtype.kind in "iu" or "int" in dtype.name
    if is_int:
        lo, hi = int(np.floor(spec.low)), int(np.floor(spec.high))
        if hi < lo:
            raise FeedError(f"{where}: the integer range {lo}..{hi} is empty")
        return rng.integers(lo, hi + 1, size=shape).astype(dtype)
    if spec.distribution == "uniform":
        if spec.high < spec.low:
            raise FeedError(f"{where}: the range {spec.low}..{spec.high} is empty")
        data = rng.uniform(spec.low, spec.high, size=shape)
    else:
        data = rng.normal(spec.mean, spec.std, size=shape)
    if dtype.kind == "c":
        data = data + 1j * rng.normal(spec.mean, spec.std, size=shape)
    return data.astype(dtype)


def _filled(shape, dtype, value):
    if dtype == object:
        return np.full(shape, str(value), dtype=object)
    return np.full(shape, value, dtype=np.float64 if dtype.kind == "V" else dtype).astype(dtype)


def _from_file(v: Value, spec: InputSpec):
    if not spec.path:
        raise FeedError(f'input "{v.name}": choose a file')
    try:
        arrays = read_array_file(spec.path, spec.key or v.name)
    except FeedError as e:
        raise FeedError(f'input "{v.name}": {e}') from None
    array = next(iter(arrays.values()))
    check_against_type(v, array, spec.path)
    return array


def check_against_type(v: Value, array, where: str = "") -> None:
    """FeedError when `array`'s dtype or fixed dims differ from `v`'s declared type."""
    t = tensor_type(v)
    if t is None or not isinstance(array, np.ndarray):
        return
    origin = f" ({pathlib.Path(where).name})" if where else ""
    try:
        got = type_name(from_numpy_dtype(array.dtype))
    except ValueError:
        got = str(array.dtype)
    got_text = got + format_shape(array.shape)
    if t.elem_type:
        want = declared_dtype(v)
        if want != array.dtype and not (want == object and array.dtype.kind in "OUS"):
            raise FeedError(f'input "{v.name}"{origin}: holds {got_text}, the model wants {describe_type(v)}')
    if t.shape is not None:
        if len(t.shape) != array.ndim:
            raise FeedError(f'input "{v.name}"{origin}: holds {got_text} ({array.ndim} axes), the model wants '
                            f'{describe_type(v)} ({len(t.shape)} axes)')
        for axis, (d, n) in enumerate(zip(t.shape, array.shape)):
            if isinstance(d, int) and d >= 0 and d != n:
                raise FeedError(f'input "{v.name}"{origin}: holds {got_text}, the model wants '
                                f'{describe_type(v)} (axis {axis} must be {d})')


# -- images ------------------------------------------------------------------------------------

def read_image(path) -> np.ndarray:
    """An image file as uint8 [H, W, 3] RGB; FeedError when it cannot be read."""
    from .kernels.image_decoder import image_decoder
    path = pathlib.Path(path)
    try:
        data = np.frombuffer(path.read_bytes(), np.uint8)
    except FileNotFoundError:
        raise FeedError(f"{path}: no such file") from None
    except OSError as e:
        raise FeedError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        return image_decoder(data, "RGB")
    except Exception as e:  # noqa: BLE001  (decoders raise many kinds; the message says which format)
        raise FeedError(f"{path}: cannot read it as an image ({e})") from None


def resize_bilinear(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """[H, W, C] resized with half-pixel-centred bilinear interpolation, as float64."""
    h, w = image.shape[:2]
    src = image.astype(np.float64)
    if (h, w) == (height, width):
        return src

    def axis(n_out, n_in):
        pos = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0, n_in - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, pos - lo
    y0, y1, fy = axis(height, h)
    x0, x1, fx = axis(width, w)
    top = src[y0][:, x0] * (1 - fx)[None, :, None] + src[y0][:, x1] * fx[None, :, None]
    bottom = src[y1][:, x0] * (1 - fx)[None, :, None] + src[y1][:, x1] * fx[None, :, None]
    return top * (1 - fy)[:, None, None] + bottom * fy[:, None, None]


def image_input(v: Value, spec: InputSpec, dims: Optional[dict] = None) -> np.ndarray:
    """The image file of `spec` as input `v`: resized to the input's height
    and width (the file's own size where those are free), channels in the
    input's layout, `pixel * scale` then `(x - mean) / std` per channel."""
    where = f'input "{v.name}"'
    if not spec.path:
        raise FeedError(f"{where}: choose an image file")
    if spec.layout not in IMAGE_LAYOUTS:
        raise FeedError(f"{where}: layout must be one of {', '.join(IMAGE_LAYOUTS)}")
    try:
        rgb = read_image(spec.path)
    except FeedError as e:
        raise FeedError(f"{where}: {e}") from None
    t = tensor_type(v)
    if t is None or t.shape is None or len(t.shape) != 4:
        raise FeedError(f"{where}: an image input needs 4 axes ({spec.layout}); this one is {describe_type(v)}")
    c_axis, h_axis, w_axis = (1, 2, 3) if spec.layout == "NCHW" else (3, 1, 2)
    shape = resolved_shape(v, {**(dims or {})})
    declared = t.shape
    channels = declared[c_axis] if isinstance(declared[c_axis], int) and declared[c_axis] > 0 else 3
    if channels not in (1, 3):
        raise FeedError(f"{where}: axis {c_axis} has {channels} channels; images have 1 or 3")

    def size(axis, own):
        d = declared[axis]
        if isinstance(d, int) and d > 0:
            return d
        key = f"{v.name}[{axis}]"
        named = d if isinstance(d, str) and d not in ANONYMOUS_DIMS else None
        given = (dims or {}).get(key, (dims or {}).get(named) if named else None)
        return int(given) if given else own
    height, width = size(h_axis, rgb.shape[0]), size(w_axis, rgb.shape[1])
    pixels = resize_bilinear(rgb, height, width)
    if spec.bgr:
        pixels = pixels[..., ::-1]
    if channels == 1:
        pixels = (pixels @ np.array([0.299, 0.587, 0.114]))[..., None]
    mean = np.resize(np.asarray(spec.channel_mean, np.float64), channels)
    std = np.resize(np.asarray(spec.channel_std, np.float64), channels)
    if np.any(std == 0):
        raise FeedError(f"{where}: a channel std of 0 would divide by zero")
    pixels = (pixels * spec.scale - mean) / std
    image = np.moveaxis(pixels, -1, 0) if spec.layout == "NCHW" else pixels
    batch = shape[0]
    out = np.repeat(image[None], batch, axis=0)
    return out.astype(declared_dtype(v))


# -- the whole set -------------------------------------------------------------------------------

def make_feeds(inputs, input_set: InputSet, skip=()) -> dict:
    """Every input of `inputs` (IR Values) made as `input_set` says; inputs
    named in `skip` (initializers with defaults, given elsewhere) are left out."""
    feeds = {}
    for v in inputs:
        if v.name in skip:
            continue
        feeds[v.name] = make_value(v, input_set.spec(v.name), input_set.seed, input_set.dims)
    return feeds


def default_spec(v: Value) -> InputSpec:
    """A first guess: random normal floats; integers that index a table (token
    ids into an embedding) anywhere below its size, other integers 0..1 (valid
    as masks and as indices into any axis); the image source for image-shaped
    float inputs is left to the user."""
    spec = InputSpec(v.name)
    try:
        dtype = declared_dtype(v)
    except FeedError:
        return spec
    if dtype.kind in "iu" or "int" in dtype.name:
        rows = _table_rows(v)
        spec.low, spec.high = 0, (rows - 1 if rows else 1)
    return spec


def _table_rows(v: Value) -> Optional[int]:
    """The size of the axis `v` indexes when it is a Gather's indices into a
    constant table (an embedding), else None."""
    sizes = []
    for node, i in v.uses:
        if node.op_type != "Gather" or i != 1 or node.domain not in ("", "ai.onnx"):
            continue
        data = node.inputs[0]
        shape = tuple(data.const.shape) if data is not None and data.const is not None else ()
        axis = node.attr("axis", 0)
        if shape and isinstance(axis, int) and -len(shape) <= axis < len(shape) and shape[axis] > 0:
            sizes.append(int(shape[axis]))
    return min(sizes) if sizes else None


__all__ = ["InputSpec", "InputSet", "SOURCES", "IMAGE_LAYOUTS", "free_dims", "resolved_shape", "make_value",
           "make_feeds", "image_input", "read_image", "resize_bilinear", "check_against_type", "describe_type",
           "default_spec", "declared_dtype"]
