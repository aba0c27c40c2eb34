"""A kernel's failure as a user reads it: one line naming the node (its path
into bodies), its op, what went wrong in plain words and its inputs' types
and shapes; what numpy said is kept as the error's `detail`.

numpy's own messages speak of gufunc signatures, operands and remapped
shapes; the common ones (a matrix product of mismatched inner dimensions,
shapes that do not broadcast, a reshape to another element count, an index
or axis out of range, a concatenation of mismatched tensors) are put in
other words here. Anything else is shown as numpy said it.
"""
from __future__ import annotations

import re

from .errors import ExecError, KernelInputError
from .values import describe

_MATMUL = re.compile(r"matmul: Input operand (\d) has a mismatch in its core dimension (\d).*"
                     r"\(size (\d+) is different from (\d+)\)")
_DOT = re.compile(r"shapes (\([\d, ]*\)) and (\([\d, ]*\)) not aligned: (\d+) \(dim \d+\) != (\d+)")
_BROADCAST = re.compile(r"could not be broadcast together with (?:remapped )?shapes"
                        r"(?: \[original->remapped\])?:? (.*)")
_BROADCAST_ARGS = re.compile(r"Mismatch is between arg \d+ with shape (\([\d, ]*\)) and arg \d+ with shape "
                             r"(\([\d, ]*\))")
_RESHAPE = re.compile(r"cannot reshape array of size (\d+) into shape (\(.*\))")
_INDEX = re.compile(r"index (-?\d+) is out of bounds for (?:axis \d+ with )?size (\d+)")
_AXIS = re.compile(r"axis (-?\d+) is out of bounds for array of dimension (\d+)")
_CONCAT_DIMS = re.compile(r"along dimension (\d+), the array at index (\d+) has size (\d+) "
                          r"and the array at index (\d+) has size (\d+)")
_CONCAT_RANKS = re.compile(r"the array at index (\d+) has (\d+) dimension\(s\) and the array at index (\d+) "
                           r"has (\d+) dimension\(s\)")
_SHAPES = re.compile(r"\([\d, ]*\)")


def plain_words(text: str) -> str | None:
    """`text` (a numpy error message) in a user's words, or None when it is
    not one of the common kinds."""
    m = _MATMUL.search(text)
    if m:
        operand, _dim, theirs, ours = m.groups()
        if operand == "1":
            return (f"matrix product with mismatched inner dimensions: the first operand's last axis is {ours} "
                    f"long, the second's second-to-last is {theirs} (they must be equal)")
        return (f"matrix product with mismatched inner dimensions ({theirs} against {ours}): the first operand's "
                "last axis must equal the second's second-to-last")
    m = _DOT.search(text)
    if m:
        a, b, x, y = m.groups()
        return (f"matrix product with mismatched inner dimensions: {a} by {b} ({x} against {y}); the first "
                "operand's last axis must equal the second's second-to-last")
    m = _BROADCAST.search(text) or _BROADCAST_ARGS.search(text)
    if m:
        shapes = _SHAPES.findall(m.group(0))
        shapes = list(dict.fromkeys(shapes))
        listed = (", ".join(shapes[:-1]) + " and " + shapes[-1]) if len(shapes) > 1 else m.group(1).strip()
        return (f"shapes {listed} do not broadcast: counted from the last axis, each pair of sizes must be "
                "equal or one of them 1")
    m = _RESHAPE.search(text)
    if m:
        size, shape = m.groups()
        return (f"cannot reshape {size} elements into shape {shape}: the new shape must hold the same "
                "number of elements")
    m = _INDEX.search(text)
    if m:
        index, size = m.groups()
        n = int(size)
        valid = f"from {-n} to {n - 1}" if n else "none: the axis is empty"
        return f"index {index} is out of range for an axis of size {size} (valid indices: {valid})"
    m = _AXIS.search(text)
    if m:
        axis, rank = m.groups()
        r = int(rank)
        return f"axis {axis} is out of range for a tensor of rank {rank} (valid axes: {-r} to {r - 1})"
    m = _CONCAT_DIMS.search(text)
    if m:
        axis, i, a, j, b = m.groups()
        return (f"inputs {i} and {j} differ on axis {axis} ({a} against {b}): every axis but the joined one "
                "must have the same size")
    m = _CONCAT_RANKS.search(text)
    if m:
        i, a, j, b = m.groups()
        return f"inputs {i} and {j} have different ranks ({a} against {b}): they must have the same rank"
    if "repeated axis in transpose" in text:
        return "the permutation names an axis twice: it must list each axis once"
    if "cannot select an axis to squeeze out which has size not equal to one" in text:
        return "an axis to squeeze is not of size 1: only axes of size 1 can be removed"
    if "can only specify one unknown dimension" in text:
        return "the new shape has more than one -1: only one size can be left for the data to decide"
    if "negative dimensions are not allowed" in text:
        return "a size below 0 (only Reshape's -1 means \"what is left\")"
    return None


def node_failure(node, names, args, error: Exception) -> ExecError:
    """The ExecError for `node` failing with `error` on `args` (read from
    the values `names`)."""
    ins = ", ".join(f"{n or '(none)'}: {describe(a)}" for n, a in zip(names, args))
    said = " ".join(str(error).split())     # names from a damaged file may hold line breaks
    if isinstance(error, KernelInputError):
        what, detail = said, ""
    else:
        raw = f"{type(error).__name__}: {said}"
        plain = plain_words(said)
        what, detail = (plain, raw) if plain else (raw, "")
    return ExecError(f"{node.path}: {node.op_type} failed: {what} [inputs: {ins}]", node, detail)


def in_function_call(call_node, error: ExecError) -> ExecError:
    """`error` (of a node inside a model-local function) with the calling
    node in front of its path, so the message leads from the graph to it."""
    return ExecError(f"{call_node.path}, calling {error}", error.node, error.detail, (call_node, *error.via))


__all__ = ["plain_words", "node_failure", "in_function_call"]
