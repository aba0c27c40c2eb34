"""The text of each box: op type, a few key attributes, folded constants."""
from __future__ import annotations

import re
from operator import itemgetter

from .view import GROUP, INPUT, OP, OUTPUT, NodeLabel

MAX_ATTR_LINES = 3
MAX_TEXT = 28
# Attribute types shown inline (AttributeProto numbers): FLOAT INT STRING FLOATS INTS STRINGS.
_SHOWN_ATTR_TYPES = {1, 2, 3, 6, 7, 8}


def _short(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


# Integers exporters write to mean "no limit": Slice's ends of INT64_MAX
# ("to the end"), INT64_MIN steps back to the start, INT32 limits from older
# exporters. Shown by name: 19 digits on a box read as a size.
_INT_LIMITS = {2**63 - 1: "INT64_MAX", -2**63: "INT64_MIN", 2**31 - 1: "INT32_MAX", -2**31: "INT32_MIN"}


def int_limit_named(v) -> str | None:
    """"INT64_MAX" for 9223372036854775807 (and INT64_MIN, INT32_MAX,
    INT32_MIN for theirs), None for any other value. The one rule for boxes
    and Properties; whoever shows the name keeps the exact number at hand."""
    if isinstance(v, bool) or not isinstance(v, int):
        return None
    return _INT_LIMITS.get(v)


def limits_legend(names) -> str:
    """The exact numbers behind limit names: "INT64_MAX = 9223372036854775807"
    for each of `names`, comma-separated, in a fixed order ("" for none)."""
    return ", ".join(f"{name} = {v}" for v, name in _INT_LIMITS.items() if name in names)


def limits_named_in(lines) -> frozenset | set:
    """The limit names a box's lines show ("ends = [INT64_MAX]" -> {"INT64_MAX"})."""
    text = " ".join(lines)
    if "INT" not in text:       # nearly every box, and the canvas asks for 10k tooltips per edit
        return _NONE
    return {name for name in _INT_LIMITS.values() if re.search(rf"\b{name}\b", text)}


_NONE = frozenset()


def _scalar(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"     # as the tensor editor and Properties write bools
    if isinstance(v, float):
        return f"{v:.6g}"
    named = int_limit_named(v)
    if named is not None:
        return named
    if isinstance(v, bytes):
        return v.decode("utf-8", "replace")
    return str(v)


# INT attributes that hold an element type (Cast "to", RandomNormal "dtype", ...)
_ELEMENT_TYPE_ATTRS = {"to", "dtype", "output_dtype", "output_datatype"}


def element_type_named(attr) -> str | None:
    """The element type an INT attribute holds ("bool" for Cast's to = 9),
    None for any other attribute."""
    v = attr.value
    if attr.name in _ELEMENT_TYPE_ATTRS and attr.type == 2 and isinstance(v, int) and not attr.ref_attr_name:
        return _dtype_name(v)
    return None


def attribute_text(attr) -> str | None:
    if attr.type not in _SHOWN_ATTR_TYPES or attr.ref_attr_name:
        return None
    v = attr.value
    named = element_type_named(attr)
    if named is not None:
        return _short(f"{attr.name} = {named}")   # "to = bool", not "to = 9"
    text = ", ".join(_scalar(x) for x in v) if isinstance(v, (list, tuple)) else _scalar(v)
    return _short(f"{attr.name} = {text}")


def type_text(value_type) -> str:
    """"float32[1, 3, 224, 224]"-style text of an ir.types Type ("" when unknown)."""
    return "" if value_type is None else _short(str(value_type), 40)


def constant_text(formal: str, value, data=None) -> str:
    """One folded constant: "W ⟨64×3×3×3⟩ float32", or "B = 3" for a scalar.

    `data` is what the constant holds when known: an ir Tensor, or the
    Python value of a Constant node's value_float/value_ints/... attribute.
    """
    if data is not None and not hasattr(data, "shape"):
        if isinstance(data, (list, tuple)):
            return _short(f"{formal} = [{', '.join(_scalar(x) for x in data)}]")
        return _short(f"{formal} = {_scalar(data)}")
    dtype, shape = "", None
    if data is not None:
        shape = tuple(getattr(data, "shape", ()) or ())
        dtype = _dtype_name(getattr(data, "dtype", None))
    elif value.type is not None:
        shape = getattr(value.type, "shape", None)
        dtype = _dtype_name(getattr(value.type, "elem_type", None))
    small = data is not None and shape is not None and len(shape) <= 1 and _count(shape) <= 4
    if small and hasattr(data, "numpy"):
        try:
            items = data.numpy().reshape(-1).tolist()
            text = _scalar(items[0]) if len(shape) == 0 else "[" + ", ".join(map(_scalar, items)) + "]"
            return _short(f"{formal} = {text}")
        except Exception:  # noqa: BLE001 - an unreadable constant still gets a shape label below
            pass
    dims = "×".join("?" if d is None else str(d) for d in shape) if shape is not None else "?"
    return _short(f"{formal} ⟨{dims}⟩ {dtype}".rstrip())


def _count(shape) -> int:
    total = 1
    for d in shape:
        total *= d if isinstance(d, int) else 10**9
    return total


def _dtype_name(code) -> str:
    if code is None:
        return ""
    try:
        from ..ir import dtypes
        return dtypes.type_name(code)
    except Exception:  # noqa: BLE001 - unknown element type numbers are shown as numbers
        return str(code)


def op_label(node, folded: list[tuple[str, object, object]]) -> NodeLabel:
    """`folded`: (formal input name, value, constant data) per folded input."""
    lines = []
    if node.domain not in ("", "ai.onnx"):
        lines.append(_short(node.domain))
    shown = 0
    for attr in node.attributes.values():
        if shown == MAX_ATTR_LINES:
            break
        text = attribute_text(attr)
        if text:
            lines.append(text)
            shown += 1
    lines += [constant_text(formal, v, data) for formal, v, data in folded]
    return NodeLabel(OP, node.op_type or "?", tuple(lines))


def io_label(kind: str, value, note: str = "") -> NodeLabel:
    assert kind in (INPUT, OUTPUT)
    lines = tuple(t for t in (type_text(value.type), note) if t)
    return NodeLabel(kind, _short(value.name or "?", 40), lines)


def group_label(path, op_counts: dict, node_count: int, top: int = 3) -> NodeLabel:
    # "1 node" / "N nodes" is translated by ui/canvas/words.py (matched by its text).
    count = f"{node_count} node" if node_count == 1 else f"{node_count} nodes"
    # most_common(top) as documented (sorted, ties in counting order), without
    # its `import heapq` per call: slow under PySide's import hook, per closed group.
    common = sorted(op_counts.items(), key=itemgetter(1), reverse=True)[:top]
    lines = [count] + [f"{op} ×{n}" for op, n in common]
    return NodeLabel(GROUP, _short(path[-1], 40), tuple(lines))
