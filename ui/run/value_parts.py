"""Where the tensor inspector is inside a run value that is not one tensor.

A value may be a sequence (a list), a map (a dict), nested ones (ZipMap
gives a sequence of maps, SplitToSequence a sequence of tensors) or an
empty optional (None). A path of sequence positions and map keys picks one
part, which the inspector shows with the views it has for a tensor. A map
whose every entry is one number or string (a classifier's probability per
class) is a part of its own: a column of values labelled by the keys.

Qt-free: the inspector builds its controls from `levels`."""
from __future__ import annotations

from typing import Optional

import numpy as np

from onnxstudio.core.exec.compare import plain_key

# The element kinds a map of scalars may hold: numbers, booleans, strings.
_SCALAR_KINDS = frozenset("biufcUSO")


def is_container(value) -> bool:
    return isinstance(value, (list, tuple, dict))


def scalar_map(value) -> Optional[tuple[list, np.ndarray]]:
    """(keys, values as a 1-D array) of a non-empty map whose every entry is
    one element; None for any other value."""
    if not isinstance(value, dict) or not value:
        return None
    elements = []
    for v in value.values():
        if is_container(v) or v is None:
            return None
        a = np.asarray(v)
        if a.size != 1 or a.dtype.kind not in _SCALAR_KINDS:
            return None
        elements.append(a.reshape(()))
    try:
        values = np.array(elements)
    except (TypeError, ValueError):      # entries numpy cannot put in one array
        return None
    if values.ndim != 1:
        return None
    return list(value), values


def _choices(container) -> list:
    return list(container) if isinstance(container, dict) else list(range(len(container)))


def _fits(container, choice) -> bool:
    if isinstance(container, dict):
        try:
            return choice in container
        except TypeError:               # an unhashable key asked of a map
            return False
    return isinstance(choice, int) and 0 <= choice < len(container)


def fit_path(value, wanted: list) -> list:
    """The path into `value` the inspector shows: each choice of `wanted`
    kept while it still names a part of the value as it is now (a step may
    shorten a sequence), the first element or key otherwise, down to a
    tensor, a map of scalars, an empty sequence or map, or None."""
    path = []
    part = value
    while is_container(part) and len(part) and scalar_map(part) is None:
        level = len(path)
        choice = wanted[level] if level < len(wanted) and _fits(part, wanted[level]) else _choices(part)[0]
        path.append(choice)
        part = part[choice]
    return path


def part_at(value, path: list):
    """The part of `value` that `path` names; KeyError when it names none
    (a compared-with value of another structure)."""
    for choice in path:
        if not is_container(value) or not _fits(value, choice):
            raise KeyError(choice)
        value = value[choice]
    return value


def levels(value, path: list) -> list[tuple[object, object]]:
    """(container, choice) for each level of `path`, outermost first."""
    out = []
    for choice in path:
        out.append((value, choice))
        value = value[choice]
    return out


def path_text(value, path: list) -> str:
    """`[2]` for a sequence position, `{'cat'}` for a map key, as the
    comparison report spells a place inside a value."""
    return "".join(f"{{{plain_key(choice)!r}}}" if isinstance(container, dict) else f"[{choice}]"
                   for container, choice in levels(value, path))


def aligned_values(ours: dict, other) -> Optional[np.ndarray]:
    """`other`'s entries in the order of `ours`' keys, as one array, when
    `other` is a map of scalars with the same keys; None otherwise."""
    found = scalar_map(other)
    if found is None:
        return None
    keys, values = found
    position = {plain_key(k): i for i, k in enumerate(keys)}
    try:
        order = [position[plain_key(k)] for k in ours]
    except KeyError:
        return None
    return values[order] if len(order) == len(position) else None
