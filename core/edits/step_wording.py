"""How a replayed edit-script step is reported: the one wording shared by
Edit ▸ Apply Edit Script and `onnxstudio edit`.

An edit's own `describe()` is short because it reads no model (menus, the
history). A replay report reads the model, so each line can name what the
step touched and what it set ("Set attribute epsilon of LayerNormalization
"/m/ln" to 1e-05"), and say when the model already held it, so replaying a
script twice reads as "nothing changed" rather than as a second edit.
"""
from __future__ import annotations

import numpy as np

from ..ir import AttrType, Tensor
from .base import EditError
from .node_edits import SetAttribute
from .refs import find_graph, find_node

_LONG_LIST = 8          # list values longer than this are shortened in a report line


def format_value(value) -> str:
    """A short readable form of an attribute value: floats at float32
    precision (what the file keeps), long lists cut, tensors by type and shape."""
    if isinstance(value, float):
        return f"{value:.7g}"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, Tensor):
        arr = value.numpy()
        return f"a tensor {arr.dtype}{list(arr.shape)}"
    if isinstance(value, np.ndarray):
        return f"a tensor {value.dtype}{list(value.shape)}"
    if isinstance(value, (list, tuple)):
        shown = ", ".join(format_value(v) for v in value[:_LONG_LIST])
        more = f", … ({len(value)} in all)" if len(value) > _LONG_LIST else ""
        return f"[{shown}{more}]"
    return str(value)


def _node(model, edit):
    """The node a node edit names, or None when it cannot be found (the step
    will then fail, and that failure names it)."""
    try:
        return find_node(find_graph(model, edit.graph), edit.node)
    except EditError:
        return None


def _same_attr_value(attr_type: int, held, wanted) -> bool:
    """Whether two attribute values are the same in the file: floats compared
    at float32 (what an ONNX attribute stores); graphs never count as equal."""
    if attr_type in (AttrType.FLOAT, AttrType.FLOATS):
        try:
            return np.array_equal(np.asarray(held, np.float32), np.asarray(wanted, np.float32))
        except (TypeError, ValueError):
            return False
    if attr_type in (AttrType.INT, AttrType.INTS, AttrType.STRING, AttrType.STRINGS):
        return held == wanted
    if attr_type == AttrType.TENSOR and isinstance(held, Tensor):
        wanted = wanted.numpy() if isinstance(wanted, Tensor) else np.asarray(wanted)
        arr = held.numpy()
        return arr.dtype == wanted.dtype and arr.shape == wanted.shape and np.array_equal(arr, wanted)
    return False


def already_holds(model, edit) -> bool:
    """True when applying `edit` would change nothing: the model already holds
    what it sets. Only edits that set a value can be no-ops this way; any
    other edit counts as a change."""
    if not isinstance(edit, SetAttribute) or edit.restore is not None:
        return False
    node = _node(model, edit)
    if node is None:
        return False
    held = node.attributes.get(edit.name)
    if edit.type is None:
        return held is None
    if held is None or held.ref_attr_name != edit.ref_attr_name or int(held.type) != int(edit.type):
        return False
    return bool(edit.ref_attr_name) or _same_attr_value(int(edit.type), held.value, edit.value)


def describe_step(model, edit) -> str:
    """What `edit` does on `model`, naming the node (op and name) and the
    value it sets where the edit has them; else the edit's own description."""
    if isinstance(edit, SetAttribute) and edit.restore is None:
        node = _node(model, edit)
        where = f' of {node.op_type} "{node.name}"' if node is not None else f" of node {edit.node}"
        if edit.type is None:
            return f"Remove attribute {edit.name}{where}"
        if edit.ref_attr_name:
            return f"Set attribute {edit.name}{where} to refer to {edit.ref_attr_name}"
        return f"Set attribute {edit.name}{where} to {format_value(edit.value)}"
    return edit.describe()


def step_line(step: int, description: str, already: bool = False, note: str = "") -> str:
    """One report line: "step 2: …", or "step 2: already so: …; nothing to undo"."""
    if already:
        return f"step {step}: already so: {description}; nothing to undo"
    return f"step {step}: {description}" + (f" ({note})" if note else "")
