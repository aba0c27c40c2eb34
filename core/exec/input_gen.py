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
import re
import zlib
from dataclasses import asdict, dataclass, field
from typing import Optional

import numpy as np

from ..ir import Value
from ..ir.dtypes import DataType, from_numpy_dtype, is_known, to_numpy_dtype, type_name
from ..ir.types import OptionalType, SequenceType, TensorType, format_shape
from .dim_sizes import symbols_of
from .errors import FeedError
from .feeds import fill_dims, read_array_file, refuse_absurd_size
from .values import ANONYMOUS_DIMS

SOURCES = ("random", "zeros", "ones", "constant", "file", "image")
SET_FORMAT = "onnxstudio-inputs/2"      # /2: `dims` holds only the sizes the user typed
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
        return {"format": SET_FORMAT, "seed": self.seed, "dims": dict(self.dims),
                "inputs": {k: v.to_json() for k, v in self.inputs.items()}}

    @classmethod
    def from_json(cls, data) -> "InputSet":
        if not isinstance(data, dict):
            raise FeedError("an input set is a JSON object")
        try:
            dims = {str(k): int(v) for k, v in (data.get("dims") or {}).items()}
            if data.get("format") == "onnxstudio-inputs/1":
                # /1 held every size box, 1 where untouched: as typed sizes those 1s
                # would shrink an image input to 1x1 pixels. A 1 made values also get.
                dims = {k: v for k, v in dims.items() if v != 1}
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
    if not is_known(t.elem_type):     # a damaged or newer file
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
    refuse_absurd_size(v.name, shape)
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
    named in `skip` (initializers with defaults, given elsewhere) are left out.

    A file or an image keeps its own size on every axis the user gave no
    size for; made values (random, zeros ...) take the user's sizes, else
    the sizes the model needs to run (`made_sizes`), else 1."""
    feeds = {}
    made_dims = made_sizes(inputs, input_set.dims)
    for v in inputs:
        if v.name in skip:
            continue
        spec = input_set.spec(v.name)
        dims = input_set.dims if spec.source in ("file", "image") else made_dims
        feeds[v.name] = make_value(v, spec, input_set.seed, dims)
    return feeds


def default_spec(v: Value, outputs=()) -> InputSpec:
    """A first guess: random normal floats; integers that index a table (token
    ids into an embedding) anywhere below its size, other integers 0..1 (valid
    as masks and as indices into any axis); a sample rate its usual value and
    a state fed back from an output (among `outputs`) zeros, as a model
    starts from (`runnable_spec`); the image source for image-shaped float
    inputs is left to the user."""
    runnable = runnable_spec(v, outputs)
    if runnable is not None:
        return runnable
    spec = InputSpec(v.name)
    try:
        dtype = declared_dtype(v)
    except FeedError:
        return spec
    if dtype.kind in "iu" or "int" in dtype.name:
        rows = _table_rows(v)
        spec.low, spec.high = 0, (rows - 1 if rows else 1)
    return spec


# Operators that hand on their first input's elements unchanged, only reshaped: GPT-2's
# exports (legacy, dynamo, dynamically quantized) Reshape input_ids before the embedding's
# Gather, and their token ids were made 0..1: two tokens of the vocabulary.
_SAME_ELEMENTS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Expand"})


def _table_rows(v: Value, depth: int = 3) -> Optional[int]:
    """The size of the axis `v` indexes when it is a Gather's indices into a
    constant table (an embedding), directly or through up to `depth`
    reshapes, else None."""
    sizes = []
    for node, i in v.uses:
        if node.domain not in ("", "ai.onnx"):
            continue
        if node.op_type in _SAME_ELEMENTS and i == 0 and depth > 0 and node.outputs and node.outputs[0] is not None:
            rows = _table_rows(node.outputs[0], depth - 1)
            if rows:
                sizes.append(rows)
            continue
        if node.op_type != "Gather" or i != 1:
            continue
        data = node.inputs[0]
        shape = tuple(data.const.shape) if data is not None and data.const is not None else ()
        axis = node.attr("axis", 0)
        if shape and isinstance(axis, int) and -len(shape) <= axis < len(shape) and shape[axis] > 0:
            sizes.append(int(shape[axis]))
    return min(sizes) if sizes else None


# -- defaults a model can run on -------------------------------------------------------------
#
# Random values of the declared types run most models, but not those that
# test an input against a few allowed values (a sample rate), carry a state
# from one call to the next, or slide a window along an axis. What the model
# itself says is read here, so the app and `onnxstudio run --random` agree.

DEFAULT_SAMPLE_RATE = 16000         # the usual speech rate, when the model names none
_SAMPLE_RATE = re.compile(r"(?:^|[_.\-])(?:sr|fs|sample_?rate|sampling_?rate|samplerate|sampling_frequency)$",
                          re.IGNORECASE)
_COMPARISONS = frozenset({"Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual"})
# A fed-back state's output is the input's name with one of these after it
# (silero's state -> stateN, h -> hn, state_in -> state_out), or past_* -> present_*.
_STATE_SUFFIXES = ("n", "_n", "out", "_out", ".out", "new", "_new", "next", "_next")
_STATE_WORDS = frozenset({"state", "states", "hidden", "cell", "cache", "memory", "h", "c", "h0", "c0"})


def _constant(v: Optional[Value]):
    """`v`'s array when it is an initializer or a Constant node's output, else None."""
    if v is None:
        return None
    try:
        if v.const is not None:
            from .values import normalize
            return np.asarray(normalize(v.const))
        node = v.producer
        if node is not None and node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            for attr in ("value", "value_int", "value_ints", "value_float", "value_floats"):
                got = node.attr(attr)
                if got is not None:
                    return np.asarray(got.numpy() if hasattr(got, "numpy") else got)
    except Exception:  # noqa: BLE001  (an unreadable constant only means no hint from it)
        return None
    return None


def sample_rate(v: Value) -> Optional[int]:
    """The rate for an integer scalar input named like a sample rate (sr,
    sample_rate, sampling_rate ...): a constant the model compares it with
    (16000 when that is one of them), else DEFAULT_SAMPLE_RATE; None for
    any other input."""
    t = tensor_type(v)
    if t is None or t.shape is None or tuple(t.shape) not in ((), (1,)):       # a scalar, or one number
        return None
    if not _SAMPLE_RATE.search(v.name) or not _is_int(v):
        return None
    found = []
    for node, i in v.uses:
        if node.op_type not in _COMPARISONS or len(node.inputs) != 2:
            continue
        other = _constant(node.inputs[1 - i])
        if other is not None and other.size == 1 and other.dtype.kind in "iuf" and float(other.flat[0]) > 0:
            found.append(int(other.flat[0]))
    if not found or DEFAULT_SAMPLE_RATE in found:
        return DEFAULT_SAMPLE_RATE
    return found[0]


def _is_int(v: Value) -> bool:
    try:
        dtype = declared_dtype(v)
    except FeedError:
        return False
    return dtype.kind in "iu"


def fed_back_from(v: Value, outputs) -> Optional[Value]:
    """The output (among `outputs`) that gives `v`'s value for the next call
    (a recurrent state, a key/value cache), or None. Paired by name (state ->
    stateN, h -> hn, past_key -> present_key) with the same element type and
    rank, or, for a name like a state (state, hidden, cache, h, c ...), by the
    same element type and fully declared shape."""
    t = tensor_type(v)
    if t is None or t.shape is None:
        return None
    name = v.name.lower()
    words = set(re.split(r"[^a-z0-9]+", name))
    for out in outputs:
        o = tensor_type(out)
        if o is None or o.elem_type != t.elem_type:
            continue
        other = out.name.lower()
        paired = (any(other == name + s for s in _STATE_SUFFIXES)
                  or ("past" in name and other == name.replace("past", "present", 1))
                  or (name.endswith("_in") and other == name[:-3] + "_out"))
        if paired and (o.shape is None or _compatible(t.shape, o.shape)):
            return out
        if words & _STATE_WORDS and o.shape is not None and tuple(o.shape) == tuple(t.shape) \
                and all(isinstance(d, int) and d >= 0 for d in t.shape):
            return out
    return None


def _compatible(a, b) -> bool:
    """Same rank, and every axis fixed on both sides the same size."""
    if len(a) != len(b):
        return False
    return all(not (isinstance(x, int) and x >= 0 and isinstance(y, int) and y >= 0) or x == y
               for x, y in zip(a, b))


def runnable_spec(v: Value, outputs=()) -> Optional[InputSpec]:
    """The source `v` needs for the model to run, where a random value of its
    type would not do: a sample rate its rate (a random 0 or 1 matches no
    branch of the model), a fed-back state zeros (the first call's state).
    None when random is as good as anything."""
    rate = sample_rate(v)
    if rate is not None:
        return InputSpec(v.name, "constant", value=float(rate))
    if fed_back_from(v, outputs) is not None:
        return InputSpec(v.name, "zeros")
    return None


# Ops whose output keeps each input axis where it was, counted from the last
# axis (elementwise ops broadcast by aligning the last axes; Pad only resizes).
_ALIGNED = frozenset({"Identity", "Cast", "CastLike", "Relu", "LeakyRelu", "Abs", "Neg", "Sqrt", "Exp", "Log",
                      "Tanh", "Sigmoid", "Clip", "Add", "Sub", "Mul", "Div", "Pow", "Pad", "Dropout",
                      "BatchNormalization", "InstanceNormalization", "Where"})
_WINDOWED = frozenset({"Conv", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool"})
_WALK_LIMIT = 64            # values followed from one input: a window is met early or not at all


def runnable_sizes(inputs) -> dict:
    """{dim key: size} for the free sequence axes a window slides along: the
    smallest size the first Conv or pooling it reaches can run on (its
    dilated kernel less its padding), where that is more than 1. A sequence
    axis is any free axis of an input of 1 to 3 axes but a batch axis (the
    first of 2 or 3): audio samples, frames, tokens. Image axes are left to
    their file, or to the user; an axis no window reads stays 1."""
    sizes: dict = {}
    for v in inputs:
        t = tensor_type(v)
        if t is None or t.shape is None or not 1 <= len(t.shape) <= 3:
            continue
        rank = len(t.shape)
        for axis, d in enumerate(t.shape):
            if (axis == 0 and rank > 1) or (isinstance(d, int) and d >= 0):
                continue
            need = _window_need(v, axis - rank, rank)
            if need > 1:
                key = d if isinstance(d, str) and d not in ANONYMOUS_DIMS else f"{v.name}[{axis}]"
                sizes[key] = max(sizes.get(key, 1), need)
    return sizes


def _window_need(start: Value, axis: int, rank: int) -> int:
    """The largest size a window needs along `axis` (counted from the end) of
    `start`, over the paths from `start` through axis-keeping ops (into
    subgraphs too) to the first windowed op on each path; 1 for none."""
    need, todo, seen = 1, [(start, axis, rank)], set()
    while todo and len(seen) < _WALK_LIMIT:
        v, axis, rank = todo.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        for node, i in v.uses:
            if node.domain not in ("", "ai.onnx"):
                continue
            if node.op_type in _WINDOWED and i == 0:
                need = max(need, _window_size(node, axis, rank))
                continue
            out_rank = _rank_after(node, i, rank)
            if out_rank is None:
                continue
            moved = _axis_after(node, axis, rank, out_rank)
            if moved is not None:
                todo += [(o, moved, out_rank) for o in node.outputs if o is not None]
    return need


_FIRST_INPUT_ONLY = frozenset({"Pad", "BatchNormalization", "InstanceNormalization", "Clip", "Dropout", "CastLike"})


def _rank_after(node, i: int, rank: int) -> Optional[int]:
    """The rank of `node`'s output when its input `i` has `rank`; None when
    the axis cannot be followed through it."""
    if node.op_type in _FIRST_INPUT_ONLY:
        return rank if i == 0 else None          # pads, scales, bounds: the data's own axes
    if node.op_type in _ALIGNED:
        ranks = [rank]
        for j, other in enumerate(node.inputs):
            if j != i and other is not None:
                ot = tensor_type(other)
                if ot is None or ot.shape is None:
                    return None
                ranks.append(len(ot.shape))
        return max(ranks)                         # broadcasting adds axes in front
    if node.op_type == "Unsqueeze" and i == 0:
        axes = _unsqueeze_axes(node)
        return rank + len(axes) if axes is not None else None
    return None


def _unsqueeze_axes(node) -> Optional[list]:
    if len(node.inputs) > 1:
        axes = _constant(node.inputs[1])
        return [int(a) for a in axes.ravel()] if axes is not None else None
    axes = node.attr("axes")
    return list(axes) if axes else None


def _axis_after(node, axis: int, rank: int, out_rank: int) -> Optional[int]:
    """Where `axis` (counted from the end) of the input is in the output."""
    if node.op_type != "Unsqueeze":
        return axis
    inserted = {a % out_rank for a in _unsqueeze_axes(node)}
    kept = [p for p in range(out_rank) if p not in inserted]
    return kept[rank + axis] - out_rank


def _window_size(node, axis: int, rank: int) -> int:
    """The size `node`'s window needs along `axis` of its input: the dilated
    kernel less the padding on that axis (explicit pads; SAME pads to fit)."""
    spatial = rank + axis - 2
    if spatial < 0:
        return 1
    kernel = node.attr("kernel_shape")
    if not kernel and len(node.inputs) > 1 and node.op_type in ("Conv", "ConvInteger"):
        w = node.inputs[1]
        wt = tensor_type(w) if w is not None else None
        shape = tuple(wt.shape) if wt is not None and wt.shape is not None else ()
        if not shape:
            c = _constant(w)
            shape = c.shape if c is not None else ()
        kernel = shape[2:]
    if not kernel or spatial >= len(kernel) or not isinstance(kernel[spatial], int):
        return 1
    if str(node.attr("auto_pad", "NOTSET")).startswith("SAME"):
        return 1
    dilations = node.attr("dilations") or [1] * len(kernel)
    pads = node.attr("pads") or [0] * (2 * len(kernel))
    span = (kernel[spatial] - 1) * dilations[spatial] + 1
    return max(1, span - pads[spatial] - pads[spatial + len(kernel)])


# One part of a dim written as a sum: a sign, then a whole number or a name.
_SUM_PART = re.compile(r"\s*([+-])\s*([^\s+-]+)")


def _sum_parts(dim: str, symbols) -> Optional[list]:
    """[(sign, part)] when `dim` reads as a sum of whole numbers and other
    symbolic dims of the run's inputs (`symbols`), at least one of them; None
    for anything else: a plain name, or one such as "batch-size" whose parts
    size nothing, stays a name of its own."""
    text = dim if dim.lstrip().startswith(("+", "-")) else "+" + dim
    parts, end = [], 0
    for m in _SUM_PART.finditer(text):
        if m.start() != end:
            return None
        end = m.end()
        sign, part = (1 if m.group(1) == "+" else -1), m.group(2)
        if part.isdigit():
            parts.append((sign, int(part)))
        elif part in symbols and part != dim:
            parts.append((sign, part))
        else:
            return None
    if end != len(text.rstrip()) or not any(isinstance(p, str) for _, p in parts):
        return None
    return parts


# Dims named as the sum of two others by a convention of their exporter,
# used only when the model's inputs have all three: onnxruntime-genai's
# decoders declare the attention mask [batch_size, total_sequence_length]
# beside past keys of past_sequence_length and input_ids of sequence_length.
_NAMED_SUMS = {"total_sequence_length": ("past_sequence_length", "sequence_length")}


def derived_sizes(inputs, dims: dict) -> dict:
    """{dim: size} for the dims of `inputs` written as a sum of their other
    dims and whole numbers that `dims` gives no size: the sum of the parts'
    sizes (1 for a part `dims` does not size, as made values get). Decoders
    with past key/values declare their attention mask so (optimum's exports:
    [batch_size, "past_sequence_length + 1"] beside past keys of
    "past_sequence_length"); sized 1, it would fit no past and the run fail.
    So does onnxruntime-genai's total_sequence_length (`_NAMED_SUMS`)."""
    symbols = set(symbols_of(inputs))
    out: dict = {}
    for dim in symbols:
        if dim in dims:
            continue
        named = _NAMED_SUMS.get(dim)
        if named is not None and symbols.issuperset(named):
            parts = [(1, part) for part in named]
        else:
            parts = _sum_parts(dim, symbols)
        if parts is None:
            continue
        size = sum(sign * (int(dims.get(p, 1)) if isinstance(p, str) else p) for sign, p in parts)
        if size >= 1:
            out[dim] = size
    return out


def made_sizes(inputs, dims: dict) -> dict:
    """The sizes made values of `inputs` get: `dims` (the user's), else what
    the model needs to run (`runnable_sizes`), and the dims written as sums
    of those (`derived_sizes`); any other dim is 1."""
    sizes = {**runnable_sizes(inputs), **dims}
    sizes.update(derived_sizes(inputs, sizes))
    return sizes


def runnable_defaults(inputs, outputs, names, seed: int = 0, dims: Optional[dict] = None) -> tuple[dict, dict]:
    """What `onnxstudio run --random` takes from the model, as the app does:
    ({name: value} for those of `names` (among the graph `inputs`) that a
    random value would not run (`runnable_spec`), `dims` with the sizes of
    `made_sizes` added where `dims` gives none)."""
    sizes = made_sizes(inputs, dims or {})
    feeds = {}
    for v in inputs:
        spec = runnable_spec(v, outputs) if v.name in names else None
        if spec is not None:
            feeds[v.name] = make_value(v, spec, seed, sizes)
    return feeds, sizes


def default_input_set(inputs, outputs=(), seed: int = 0, dims: Optional[dict] = None) -> InputSet:
    """The set a model's inputs start from in the app's Run dock, and what
    `onnxstudio run --random --seed N` makes: each of `inputs` its
    `default_spec` (reading `outputs` for fed-back states), the seed, and
    the sizes the user gave (`dims`). Made by `make_feeds`, so the app and
    the command line give the same arrays, bit for bit, for one seed."""
    return InputSet(int(seed), dict(dims or {}), {v.name: default_spec(v, outputs) for v in inputs})


def unsized_dims(inputs, input_set: InputSet, skip=()) -> list:
    """The dims `make_feeds` makes 1 for want of a size (neither typed in
    `input_set.dims`, nor needed by a window, nor a sum of others:
    `made_sizes`), over the inputs it makes (not in `skip`, not from a file
    or an image)."""
    from .feeds import defaulted_dims
    sizes = made_sizes(inputs, input_set.dims)
    found: list = []
    for v in inputs:
        if v.name in skip or input_set.spec(v.name).source in ("file", "image"):
            continue
        found += [d for d in defaulted_dims(v, sizes) if d not in found]
    return found


def specs_from_npz(inputs, path) -> tuple[dict, list]:
    """({input name: file spec} for every array of the .npz at `path` named
    like one of `inputs`, [the array names no input has]); FeedError names
    the file when it cannot be read."""
    arrays = read_array_file(path)
    if not str(path).lower().endswith(".npz"):
        raise FeedError(f"{path}: not an .npz file; give each input its own file instead")
    names = {v.name for v in inputs}
    specs = {k: InputSpec(k, "file", path=str(path), key=k) for k in arrays if k in names}
    return specs, [k for k in arrays if k not in names]


__all__ = ["InputSpec", "InputSet", "SOURCES", "IMAGE_LAYOUTS", "free_dims", "resolved_shape", "make_value",
           "make_feeds", "image_input", "read_image", "resize_bilinear", "check_against_type", "describe_type",
           "default_spec", "declared_dtype", "runnable_spec", "runnable_sizes", "sample_rate", "fed_back_from",
           "specs_from_npz", "runnable_defaults", "DEFAULT_SAMPLE_RATE", "default_input_set", "unsized_dims",
           "derived_sizes", "made_sizes"]
