"""Edit scripts: a history written out as JSON and replayed on another file.

A script is a list of objects, one per edit: {"kind": "set_attribute",
"node": "conv1", "name": "group", "type": 2, "value": 2}. Names and values
only, so a user who fixed an exported model by hand can re-apply the same
fixes after exporting it again. Values that are not plain JSON are tagged:

  {"$array": {"dtype": 1, "shape": [2, 2], "data": [1, 2, 3, 4]}}   small arrays, readable
  {"$array": {"dtype": 1, "shape": [512], "base64": "..."}}           larger ones, raw little-endian
  {"$sparse": {"values": ..., "indices": ..., "dims": [...]}}
  {"$graph": "<base64 GraphProto>"}, {"$type": "<base64 TypeProto>"}, {"$bytes": "..."}

`dtype` is the ONNX element type number. Replaying stops at the first step
that no longer applies, names it and what is missing, and leaves the model
(and the document's history) as it was.
"""
from __future__ import annotations

import base64
import dataclasses
import json
from typing import Any, Iterable

import numpy as np

from ..ir import SparseTensor, Tensor
from ..ir.types import MapType, OpaqueType, OptionalType, SequenceType, SparseTensorType, TensorType, UndefinedType
from .base import EDIT_KINDS, Edit, EditError, Macro

SMALL_ARRAY = 64          # arrays up to this many elements are written as lists
_TYPES = (TensorType, SparseTensorType, SequenceType, MapType, OptionalType, OpaqueType, UndefinedType)


class ScriptError(EditError):
    """A script could not be read or one of its steps no longer applies."""


# -- encoding ----------------------------------------------------------------------------------

def _encode_array(arr: np.ndarray, data_type=None) -> dict:
    t = Tensor.from_numpy(arr, data_type=data_type)
    out = {"dtype": int(t.dtype), "shape": [int(d) for d in arr.shape]}
    if arr.size <= SMALL_ARRAY:
        out["data"] = arr.reshape(-1).tolist() if arr.dtype != object else [str(x) for x in arr.reshape(-1)]
    else:
        out["base64"] = base64.b64encode(bytes(t.raw_bytes())).decode("ascii")
    return {"$array": out}


def encode(value: Any) -> Any:
    """A JSON-able form of an edit field's value."""
    from ..serde.convert import ProtoWriter
    from ..ir.types import type_to_proto
    from ..proto import onnx_pb2 as pb
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return _encode_array(value)
    if isinstance(value, Tensor):
        return _encode_array(value.numpy(), int(value.dtype))
    if isinstance(value, SparseTensor):
        return {"$sparse": {"values": encode(value.values), "indices": encode(value.indices),
                            "dims": list(value.dims)}}
    if isinstance(value, _TYPES):
        return {"$type": base64.b64encode(type_to_proto(value).SerializeToString()).decode("ascii")}
    if hasattr(value, "nodes") and hasattr(value, "inputs"):       # an IR Graph
        gp = pb.GraphProto()
        ProtoWriter(lambda t: t.to_proto(), False).graph(value, gp)
        return {"$graph": base64.b64encode(gp.SerializeToString()).decode("ascii")}
    if isinstance(value, (bytes, bytearray)):
        return {"$bytes": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Edit):
        return edit_to_json(value)
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    raise ScriptError(f"cannot write a {type(value).__name__} into an edit script")


def edit_to_json(edit: Edit) -> dict:
    if type(edit).kind not in EDIT_KINDS or EDIT_KINDS[type(edit).kind] is not type(edit):
        raise ScriptError(f"{type(edit).__name__} is not an edit kind scripts know")
    out = {"kind": edit.kind}
    for f in dataclasses.fields(edit):
        if not f.metadata.get("json", True):
            continue
        out[f.name] = encode(getattr(edit, f.name))
    return out


def to_script(edits: Iterable[Edit]) -> list[dict]:
    """The edits as JSON-able objects, one per edit."""
    return [edit_to_json(e) for e in edits]


def dumps(edits: Iterable[Edit]) -> str:
    return json.dumps(to_script(edits), indent=1)


# -- decoding ----------------------------------------------------------------------------------

def _decode_array(spec: dict) -> np.ndarray:
    from ..ir.dtypes import to_numpy_dtype
    from ..serde import codec
    from ..proto import onnx_pb2 as pb
    dtype, shape = int(spec["dtype"]), [int(d) for d in spec["shape"]]
    if "data" in spec:
        np_dtype = to_numpy_dtype(dtype)
        return np.array(spec["data"], dtype=np_dtype).reshape(shape)
    tp = pb.TensorProto()
    tp.data_type = dtype
    tp.dims.extend(shape)
    tp.raw_data = base64.b64decode(spec["base64"])
    return codec.to_numpy(tp, None)


def decode(value: Any) -> Any:
    from ..proto import onnx_pb2 as pb
    from ..ir.types import type_from_proto
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (tag, body), = value.items()
        if tag == "$array":
            return _decode_array(body)
        if tag == "$sparse":
            return SparseTensor(Tensor.from_numpy(decode(body["values"])), Tensor.from_numpy(decode(body["indices"])),
                                tuple(body["dims"]))
        if tag == "$type":
            tp = pb.TypeProto()
            tp.ParseFromString(base64.b64decode(body))
            return type_from_proto(tp)
        if tag == "$graph":
            from ..serde.convert import _Reader
            gp = pb.GraphProto()
            gp.ParseFromString(base64.b64decode(body))
            return _Reader(Tensor).graph(gp)
        if tag == "$bytes":
            return base64.b64decode(body)
    if "kind" in value and value.get("kind") in EDIT_KINDS:
        return edit_from_json(value)
    return {k: decode(v) for k, v in value.items()}


def edit_from_json(data: dict, where: str = "") -> Edit:
    where = where or "edit"
    if not isinstance(data, dict):
        raise ScriptError(f"{where}: expected an object, got {type(data).__name__}")
    kind = data.get("kind")
    cls = EDIT_KINDS.get(kind)
    if cls is None:
        raise ScriptError(f"{where}: unknown edit kind {kind!r}")
    fields = {f.name: f for f in dataclasses.fields(cls) if f.metadata.get("json", True)}
    unknown = sorted(set(data) - set(fields) - {"kind"})
    if unknown:
        raise ScriptError(f"{where} ({kind}): unknown field(s) {', '.join(unknown)}")
    args = {}
    for name, value in data.items():
        if name == "kind":
            continue
        if cls is Macro and name == "edits":
            args[name] = [edit_from_json(e, f"{where}, sub-edit {i + 1}") for i, e in enumerate(value or [])]
        elif name == "graph":
            args[name] = tuple(tuple(s) for s in (value or ()))
        elif name == "attributes" and isinstance(value, dict):
            args[name] = {k: tuple(decode(x) for x in spec) for k, spec in value.items()}
        else:
            try:
                args[name] = decode(value)
            except (KeyError, ValueError, TypeError, AttributeError) as e:
                raise ScriptError(f"{where} ({kind}): field {name!r} holds a malformed value ({e})") from None
    try:
        return cls(**args)
    except TypeError as e:
        raise ScriptError(f"{where} ({kind}): {e}") from None


def from_script(data) -> list[Edit]:
    """Edits from a script: the list `to_script` wrote, its JSON text, or an
    object {"edits": [...]}."""
    if isinstance(data, (str, bytes)):
        try:
            data = json.loads(data)
        except ValueError as e:
            raise ScriptError(f"not an edit script (invalid JSON: {e})") from None
    if isinstance(data, dict) and "edits" in data:
        data = data["edits"]
    if not isinstance(data, list):
        raise ScriptError("an edit script is a JSON list of edits")
    return [edit_from_json(d, f"step {i + 1}") for i, d in enumerate(data)]


def replay(document, data, name: str = "Replay edit script") -> int:
    """Apply every step of a script to `document` as one undo step. A step
    that no longer applies raises ScriptError naming the step and the
    reason; the document is then as it was. Returns the number of steps."""
    edits = from_script(data)
    step = 0
    try:
        with document.macro(name):
            for step, edit in enumerate(edits, 1):
                document.apply(edit)
    except ScriptError:
        raise
    except EditError as e:
        raise ScriptError(f"step {step} ({edits[step - 1].describe()}) no longer applies: {e}") from None
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
        # A hand-written step with a field of the wrong shape (the document
        # was rolled back by the macro).
        raise ScriptError(f"step {step} ({edits[step - 1].kind}) is malformed: {type(e).__name__}: {e}") from None
    return len(edits)
