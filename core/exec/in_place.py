"""Elementwise steps written into an operand that dies with the step.

On a repeated run nobody watches (fusion.compile_runners), an Add, Sub, Mul
or Div of two float tensors whose result has the shape of one operand, and
that operand is not read after this step, writes the result over it (so do
Relu and Clip over their input, through the kernels' own `*_into` forms): a
fresh result costs a third more memory traffic (the new buffer is read for
ownership before it is written), which on tensors past the L2 cache made
the step ~2x slower (a 64x80x80 float32 Mul by a scalar: 31 against 16 us).
The same ufunc on the same operands gives the same bits.

An operand is only overwritten when nothing else can see it: no other
object refers to it (no view of it, no second name, not a constant or a
feed: the reference count says so, as numpy's own temporary elision
checks), and if it is a view, nothing but it refers to what it views (a
kernel's reshaped result); it is writeable (shape blocks and remembered
shape arithmetic hand out read-only arrays) and C-contiguous; and it is
neither a feed nor an enclosing graph's value by name.
"""
from __future__ import annotations

import sys

import numpy as np

from . import fallbacks
from .errors import Cancelled, ExecError
from .kernels.activation import relu_into
from .kernels.elementwise_variadic import clip_into
from .plan import Step

_UFUNCS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide}
# op -> (first opset, the kernel's float32/float64 form writing into `out`)
_UNARY = {"Relu": (6, relu_into), "Clip": (11, clip_into)}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
# Below this many elements a tensor sits in cache and the check costs more than it saves.
_MIN_ELEMENTS = 1 << 14


def _references_when_alone() -> int:
    """sys.getrefcount of an array held only by a values dict and one local
    name, measured the way the runner below looks (interpreters differ)."""
    values = {"x": np.empty(1)}

    def probe(values):
        a = values["x"]
        return sys.getrefcount(a)
    return probe(values)


def _base_references_when_alone() -> int:
    """The same for the base of a view nothing else refers to, as
    _writable_alone walks it."""
    x = np.empty(4).reshape(2, 2)
    base = x.base
    return sys.getrefcount(base)


_ALONE = _references_when_alone()
_BASE_ALONE = _base_references_when_alone()


def runner(s: Step, call, general, untrusted):
    """An in-place runner for `s`, or None when it is not such a step."""
    if s.node.op_type in _UNARY and s.node.domain in ("", "ai.onnx") and s.opset >= _UNARY[s.node.op_type][0]:
        return _unary_runner(s, _UNARY[s.node.op_type][1], call, general, untrusted)
    ufunc = _UFUNCS.get(s.node.op_type)
    if (ufunc is None or s.node.domain not in ("", "ai.onnx") or s.opset < 7 or len(s.args) != 2
            or not all(s.args) or s.args[0] == s.args[1] or len(s.outputs) != 1 or not s.outputs[0]):
        return None
    a_name, b_name = s.args
    dies = [n in s.frees and n not in untrusted for n in (a_name, b_name)]
    if not any(dies):
        return None
    a_dies, b_dies = dies
    out, frees = s.outputs[0], tuple(s.frees)
    what = f"{s.node.op_type} in place"
    getrefcount = sys.getrefcount

    def run(values, frame):
        try:
            a = values[a_name]
            b = values[b_name]
        except KeyError:
            fallbacks.run_members(what, lambda: general(s, frame))
            return
        target = None
        if type(a) is np.ndarray and type(b) is np.ndarray and a.dtype == b.dtype and a.dtype in _FLOATS:
            # counted in statements of their own: an argument being passed holds one more
            a_refs = getrefcount(a)
            b_refs = getrefcount(b)
            if (a_dies and a.size >= _MIN_ELEMENTS and a.flags.c_contiguous and _writable_alone(a, a_refs)
                    and keeps_shape(a, b)):
                target = a
            elif (b_dies and b.size >= _MIN_ELEMENTS and b.flags.c_contiguous and _writable_alone(b, b_refs)
                  and keeps_shape(b, a)):
                target = b
        try:
            if target is not None:
                result = ufunc(a, b, out=target)
            else:
                result = call(a, b)
        except (Cancelled, ExecError):
            raise
        except Exception:  # noqa: BLE001  (reported by the general path, with context)
            fallbacks.run_members(what, lambda: general(s, frame))
            return
        values[out] = result
        for name in frees:
            values.pop(name, None)
    return run


# The unary runner repeats the binary one's fall-back and store lines on
# purpose: the operands must be read in the runner's own frame, the one
# _ALONE was measured in, and a shared helper for the rest would add a call
# per step on the hottest lines of a repeated run (as in fast_steps).
def _unary_runner(s: Step, into, call, general, untrusted):
    """Relu, Clip ...: `into(x, *rest, out=x)` when x dies here (rest: the
    step's other inputs, None where omitted)."""
    if len(s.outputs) != 1 or not s.outputs[0] or not s.args or not s.args[0]:
        return None
    x_name, rest = s.args[0], s.args[1:]
    if x_name not in s.frees or x_name in untrusted or x_name in rest:
        return None
    out, frees = s.outputs[0], tuple(s.frees)
    what = f"{s.node.op_type} in place"
    getrefcount = sys.getrefcount

    def run(values, frame):
        try:
            x = values[x_name]
            others = [values[n] if n else None for n in rest]
        except KeyError:
            fallbacks.run_members(what, lambda: general(s, frame))
            return
        refs = getrefcount(x)
        try:
            if (type(x) is np.ndarray and x.dtype in _FLOATS and x.size >= _MIN_ELEMENTS
                    and _writable_alone(x, refs)):
                result = into(x, *others, out=x)
            else:
                result = call(x, *others)
        except (Cancelled, ExecError):
            raise
        except Exception:  # noqa: BLE001  (reported by the general path, with context)
            fallbacks.run_members(what, lambda: general(s, frame))
            return
        values[out] = result
        for name in frees:
            values.pop(name, None)
    return run


def _writable_alone(x: np.ndarray, references: int) -> bool:
    """Whether writing into x changes nothing anyone else can see.
    `references` was taken in run() with x held by the values dict and one
    local name there, as _references_when_alone measures. A view (a kernel's
    reshaped result) qualifies when nothing but it refers to its base.
    C-contiguous: no two elements share memory."""
    if references > _ALONE or not x.flags.writeable or not x.flags.c_contiguous:
        return False
    base = x.base
    while base is not None:
        if type(base) is not np.ndarray or sys.getrefcount(base) > _BASE_ALONE:
            return False
        base = base.base
    return True


def keeps_shape(x: np.ndarray, other: np.ndarray) -> bool:
    """Whether x op other has x's shape (other broadcasts into x); ~4x
    cheaper than comparing with np.broadcast_shapes."""
    if other.ndim > x.ndim:
        return False
    for d, e in zip(x.shape[x.ndim - other.ndim:], other.shape):
        if e != d and e != 1:
            return False
    return True
