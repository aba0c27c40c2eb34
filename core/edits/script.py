"""Edit scripts: a history written out as JSON and replayed on another file.

A script is a list of objects, one per edit: {"kind": "set_attribute",
"node": "conv1", "name": "group", "type": 2, "value": 2}. Names and values
only, so a user who fixed an exported model by hand can re-apply the same
fixes after exporting it again. Values that are not plain JSON are tagged:

  {"$array": {"dtype": 1, "shape": [2, 2], "data": [1, 2, 3, 4]}}   small arrays, readable
  {"$array": {"dtype": 1, "shape": [512], "base64": "..."}}           larger ones, raw little-endian
  {"$sparse": {"values": ..., "indices": ..., "dims": [...]}}
  {"$graph": "<base64 GraphProto>"}, {"$type": "<base64 TypeProto>"}, {"$bytes": "..."}

`dtype` is the ONNX element type number. Edits name nodes and values, never
positions: scripts written before node orders were recorded by name (a
`set_node_order` listing every node's index) still load, and replay moves
the nodes by name instead (`portable`). Replaying stops at the first step
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
from .refs import REF_FORMS, node_names_indexed
from .step_wording import already_holds, describe_step, step_line
# Every edit kind registered (EDIT_KINDS) before a script is read or written:
# the package imports its modules only on first use.
from . import model_edits, node_edits, node_order, values, wiring  # noqa: F401

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
    from ..serde.convert import graph_to_proto
    from ..serde.type_proto import type_to_proto
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
        gp = graph_to_proto(value)
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
    from ..serde.type_proto import type_from_proto
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
            from ..serde.convert import graph_from_proto
            gp = pb.GraphProto()
            gp.ParseFromString(base64.b64decode(body))
            return graph_from_proto(gp)
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
    if cls is None and kind is None:
        raise ScriptError(f"{where}: no \"kind\" naming the edit (as Document.script() writes it, e.g. "
                          f"\"set_attribute\")")
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
            if not isinstance(value, (list, type(None))):
                raise ScriptError(f"{where} ({kind}): field 'edits' must be a list of edits, not {_json_kind(value)}")
            args[name] = [edit_from_json(e, f"{where}, sub-edit {i + 1}") for i, e in enumerate(value or [])]
        elif name == "graph":
            args[name] = _graph_path(value, f"{where} ({kind})")
        elif name == "attributes" and isinstance(value, dict):
            args[name] = {k: _attribute_spec(spec, f'{where} ({kind}): attribute "{k}"')
                          for k, spec in value.items()}
        else:
            try:
                args[name] = decode(value)
            except (KeyError, ValueError, TypeError, AttributeError) as e:
                raise ScriptError(f"{where} ({kind}): field {name!r} holds a malformed value ({e})") from None
            _check_field_form(fields[name].type, name, args[name], f"{where} ({kind})")
    try:
        return cls(**args)
    except TypeError as e:
        raise ScriptError(f"{where} ({kind}): {e}") from None


def _json_kind(value) -> str:
    """What a JSON value is, in JSON's words (for messages)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    return {str: "a string", int: "a number", float: "a number", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


# Fields that list value names (a node's inputs and outputs, the values
# whose producers move).
_NAME_LISTS = frozenset({"names", "inputs", "outputs", "values"})


def _check_field_form(annotation: str, name: str, value, place: str) -> None:
    """A hand-written script's field of the wrong form is refused here, by
    name, rather than as whatever Python error it would raise mid-edit.
    Annotations are strings (postponed evaluation), read as written."""
    if annotation == "str" and not isinstance(value, str):
        raise ScriptError(f"{place}: field {name!r} must be a string, not {_json_kind(value)}")
    if annotation == "list" and name in _NAME_LISTS and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)):
        raise ScriptError(f"{place}: field {name!r} must be a list of value names (strings, \"\" for one "
                          f"not given), not {value!r}")
    if annotation == "NodeRef" and not _is_node_ref(value):
        raise ScriptError(f"{place}: field {name!r} must be {REF_FORMS}, not {value!r}")


def _is_node_ref(value) -> bool:
    if isinstance(value, str):
        return True
    if not isinstance(value, dict) or len(value) != 1:
        return False
    if "output" in value:
        return isinstance(value["output"], str)
    return "index" in value and isinstance(value["index"], int) and not isinstance(value["index"], bool)


def _graph_path(value, place: str) -> tuple:
    """A graph path as JSON writes it: a list of steps, each a list starting
    with "node" (node reference, attribute[, position]) or "function"
    (domain, name, overload)."""
    steps = value or ()
    ok = isinstance(steps, (list, tuple)) and all(
        isinstance(s, (list, tuple)) and len(s) >= 3
        and ((s[0] == "node" and _is_node_ref(s[1]) and isinstance(s[2], str)
              and (len(s) == 3 or (len(s) == 4 and isinstance(s[3], int))))
             or (s[0] == "function" and len(s) in (3, 4) and all(isinstance(x, str) for x in s[1:])))
        for s in steps)
    if not ok:
        raise ScriptError(f"{place}: field 'graph' must be a graph path, a list of steps such as "
                          f'[["node", "If_0", "then_branch"]] or [["function", "domain", "name", ""]] '
                          f"([] for the main graph), not {value!r}")
    return tuple(tuple(s) for s in steps)


def _attribute_spec(spec, place: str) -> tuple:
    """An attribute of add_node as [type, value] (or [type, value, ref_attr_name])."""
    if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
        raise ScriptError(f"{place}: write it as [type, value], the type an AttributeProto number "
                          f"(1 float, 2 int, 3 string, 6 floats, 7 ints ...), e.g. [1, 0.5]; "
                          f"not {spec!r}")
    try:
        return tuple(decode(x) for x in spec)
    except (KeyError, ValueError, TypeError, AttributeError) as e:
        raise ScriptError(f"{place}: malformed value ({e})") from None


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


def portable(edits: list) -> tuple[list, dict]:
    """The edits with every absolute node order (`set_node_order`, which
    lists node positions of the file it was recorded on) replaced by an edit
    that names what it moves: an order followed by a rewiring of a node's
    inputs (what connecting by drag recorded) becomes "move the producers of
    what it now reads before it"; any other order becomes "sort the nodes
    topologically" (the only other edit that recorded one). Returns the
    edits and {top-level step index: why it was changed}."""
    from .node_order import MoveProducersBefore, SortNodes
    from .wiring import SetNodeInput, SetNodeInputs, SetNodeOrder

    def convert(seq: list) -> tuple[list, set]:
        """The same edits one for one; the positions of those changed."""
        out, changed = [], set()
        for i, e in enumerate(seq):
            nxt = seq[i + 1] if i + 1 < len(seq) else None
            same_graph = nxt is not None and tuple(getattr(nxt, "graph", ())) == tuple(getattr(e, "graph", ()))
            if isinstance(e, SetNodeOrder):
                changed.add(i)
                if isinstance(nxt, SetNodeInput) and same_graph:
                    out.append(MoveProducersBefore(nxt.node, [nxt.value], e.graph))
                elif isinstance(nxt, SetNodeInputs) and same_graph:
                    out.append(MoveProducersBefore(nxt.node, [n for n in nxt.names if n], e.graph))
                else:
                    out.append(SortNodes(e.graph))
            elif isinstance(e, Macro):
                inner, sub = convert(list(e.edits))
                out.append(Macro(inner, e.name) if sub else e)
                if sub:
                    changed.add(i)
            else:
                out.append(e)
        return out, changed

    converted, changed = convert(list(edits))
    why = ("its node order was recorded as positions in another file; replayed as moving only the "
           "nodes it needs, by name")
    return converted, {i: why for i in changed}


class ReplayLines(list):
    """The report lines of a replay (one per step); `changed` counts the
    steps that changed the model (the others were already so)."""
    changed: int = 0


def replay_report(document, data, name: str = "Replay edit script") -> ReplayLines:
    """Apply every step of a script to `document` as one undo step and say
    what each did, one line per step in the wording of `step_wording`
    ('step 1: Set attribute epsilon of LayerNormalization "/m/ln" to 1e-05').
    A step that sets what the model already holds is not applied and reads
    "step 1: already so: ...; nothing to undo"; when every step is so, no
    undo step is added. A step that no longer applies raises ScriptError
    naming the step and the reason (its `report` holds the lines of the
    steps before it); the document is then as it was. Absolute node orders
    of older scripts are replayed by name (`portable`)."""
    edits, notes = portable(from_script(data))
    step = 0
    lines = ReplayLines()
    try:
        # Inside the macro: an undo of the steps after a failure looks names up as any undo does.
        with document.macro(name), node_names_indexed(document.model) as names:
            for step, edit in enumerate(edits, 1):
                # Described before it applies: the node it names may be renamed or removed by it.
                description = describe_step(document.model, edit)
                if already_holds(document.model, edit):
                    lines.append(step_line(step, description, already=True))
                    continue
                names.follow(document.apply(edit))
                lines.changed += 1
                lines.append(step_line(step, description, note=notes.get(step - 1, "")))
    except ScriptError as e:
        e.report = lines
        raise
    except EditError as e:
        raise _failed(f"step {step} ({edits[step - 1].describe()}) no longer applies: {e}", lines) from None
    except (KeyError, ValueError, TypeError, IndexError, AttributeError) as e:
        # A hand-written step with a field of the wrong shape (the document
        # was rolled back by the macro).
        raise _failed(f"step {step} ({edits[step - 1].kind}) is malformed: {type(e).__name__}: {e}",
                      lines) from None
    return lines


def _failed(message: str, lines: list) -> ScriptError:
    """The error of a replay that stopped; `report` holds the lines of the
    steps that had applied before it (undone again)."""
    error = ScriptError(message)
    error.report = lines
    return error


def replay(document, data, name: str = "Replay edit script") -> int:
    """`replay_report` without the report: the number of steps applied."""
    return len(replay_report(document, data, name))
