"""Fewer, cheaper steps for repeated runs nobody watches.

When a plan runs whole (no `keep`, no stepping, no breakpoints: those run
every node through the general path and see exactly what the graph says),
its live steps are compiled into runners once, after the first run. Here
some of them are merged first, where the merged form computes the same
numbers with fewer numpy calls or fewer passes over the data:

- **Shape arithmetic** (Shape and what is computed from shapes and
  constants only) runs in blocks that remember their results per input
  shape: see shape_blocks.py.
- **Repeated computations.** A step with the same operator, attributes and
  inputs (by name, or constant inputs equal by value) as an earlier one
  reuses its result: exporters repeat the same attention-mask arithmetic
  in every layer.
- **MatMul + Adds**: up to two Adds after a product (its bias, then a
  residual or an attention mask) add into the product's fresh buffer.
- **Softmax -> IsNaN -> Where(isnan, 0, softmax)** (what torch writes for
  masked attention): the NaN scrub is skipped when the softmax has no NaN:
  the kernel knows when it cannot have made any (a finite maximum, no row
  summing to ~0), else one isnan pass tells.
- **LayerNormalization whose mean and inverse std nobody reads**: the same
  arithmetic as the kernel, minus the checks and the unused outputs.
- **Elementwise arithmetic in place** (in_place.py): Add/Sub/Mul/Div of
  float tensors write over an operand that dies with the step, when
  nothing else can see it.
- **Gelu as torch exports it** (Div by a constant or Mul, Erf, Add 1, Mul by
  the input, Mul 0.5): the five steps' own operations in one buffer.

A merged unit runs where its last member ran; the names it reads stay in
the frame until then (frees are recomputed for the merged list). When a
merged unit meets anything unexpected (a dtype, a shape, an exception), it
runs its members one by one through the general path instead, so errors
name the node as always; when the members then succeed, fallbacks.py
counts it (the executor's tests fail on any). Intermediates inside a unit are never stored:
that is why none of this happens when values are observed.
"""
from __future__ import annotations

import dataclasses
from functools import partial

import numpy as np

from . import fallbacks, in_place, shape_blocks
from .errors import Cancelled, ExecError
from .fast_steps import compile_step
from .kernels.activation import softmax_last_axis
from .kernels.normalization import normalized_rows
from .plan import NONDETERMINISTIC, Plan, Step
from ..ir.nesting import node_reads

_CSE_CONST_MAX = 256     # constant inputs up to this size are compared by value
# softmax_last_axis is written for these (float16 goes through the kernel);
# not kernels' NATIVE_FLOATS, which has float16 too.
_SOFTMAX_LAST_AXIS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
_MATMUL_ADDS = 2         # Adds merged into a product: its bias, then a residual or a mask


class _Unit:
    """A merged group of steps: `members` in plan order, `reads` the names it
    needs from the frame, `outputs` the names it stores."""

    def __init__(self, members, reads, outputs, make):
        self.members = members
        self.reads = list(dict.fromkeys(reads))
        self.outputs = outputs
        self.make = make        # make(frees, fallback) -> runner
        self.frees: list = []


def compile_runners(plan: Plan, general, const_value) -> list:
    """The plan's live steps as runners, merged where possible (see module
    docstring); `const_value(name)` gives a constant's value."""
    if plan.keep:
        plan.runner_nodes = [(s.node,) for s in plan.live_steps]
        return [compile_step(s, general) for s in plan.live_steps]
    steps = plan.live_steps
    outputs = set(plan.outputs)
    readers: dict = {}
    for i, s in enumerate(steps):
        for v in node_reads(s.node):
            readers.setdefault(v.name, []).append(i)
    ctx = _Matching(steps, readers, outputs, plan.consts, const_value)
    units: list = []
    taken: set = set()
    for block in shape_blocks.blocks(shape_blocks.shape_static(steps, plan.consts, outputs)):
        units.append(_shape_block(block, steps, readers, outputs, plan.consts, general))
        taken.update(block)
    for i, s in enumerate(steps):
        if i in taken:
            continue
        unit = ctx.fuse(i, taken)
        units.append(unit if unit is not None else s)
    # merged units sit at their last member's place
    place = {id(s): i for i, s in enumerate(steps)}
    order = sorted(range(len(units)), key=lambda k: _position(units[k], place))
    units = [units[k] for k in order]
    _assign_frees(units, outputs, set(plan.folded or ()) | set(plan.outer_names))
    untrusted = frozenset(plan.inputs) | frozenset(plan.outer_names)
    runners = []
    for u in units:
        if isinstance(u, _Unit):
            runners.append(u.make(tuple(u.frees), _Fallback(u, general)))
        else:
            steady = not any(n in outputs for n in u.outputs)
            fast = in_place.runner(u, _call_of(u), general, untrusted) if _plain(u) else None
            runners.append(fast or compile_step(u, general, steady=steady, untrusted=untrusted))
    # Which nodes each runner computes: a profiled run (profile.py) times runners, not nodes.
    plan.runner_nodes = [tuple(m.node for m in u.members) if isinstance(u, _Unit) else (u.node,) for u in units]
    return runners


def _shape_block(block, steps, readers, outputs, consts, general) -> _Unit:
    """Steps `block` (consecutive shape-static indices) as one unit (shape_blocks.py)."""
    members = [steps[i] for i in block]
    inside = {n for m in members for n in m.outputs if n}
    reads = [v.name for m in members for v in node_reads(m.node) if v.name not in inside]
    within = set(block)
    exported = [n for m in members for n in m.outputs
                if n and (n in outputs or any(k not in within for k in readers.get(n, ())))]

    def make(frees, fallback):
        return shape_blocks.block_runner(members, exported, frees, general, consts)
    return _Unit(members, reads, exported, make)


def _position(u, place) -> int:
    if isinstance(u, _Unit):
        return max(place[id(m)] for m in u.members)
    return place[id(u)]


def _unit_reads(u) -> list:
    if isinstance(u, _Unit):
        return u.reads
    return [v.name for v in node_reads(u.node)]


def _unit_outputs(u) -> list:
    return u.outputs if isinstance(u, _Unit) else [n for n in u.outputs if n]


def _assign_frees(units, keep: set, never: set) -> None:
    last: dict = {}
    for i, u in enumerate(units):
        for name in _unit_reads(u):
            last[name] = i
    frees = [[] for _ in units]
    for name, i in last.items():
        if name not in keep and name not in never:
            frees[i].append(name)
    for i, u in enumerate(units):
        for name in _unit_outputs(u):
            if name not in last and name not in keep:
                frees[i].append(name)
    for i, (u, f) in enumerate(zip(units, frees)):
        if isinstance(u, _Unit):
            u.frees = f
        else:
            # a copy: the plan's own steps keep their frees for stepping
            units[i] = dataclasses.replace(u, frees=f)


class _Fallback:
    """A unit's members run one at a time through the general path, then
    what the unit frees is dropped. Called directly for inputs a unit
    declines on purpose (a dtype it does not take); `after_error` when the
    unit raised or missed a value, which fallbacks.py counts when the
    members then succeed."""

    def __init__(self, u: _Unit, general):
        self.unit, self.general = u, general
        self.what = "+".join(m.node.op_type for m in u.members)

    def __call__(self, values, frame, frees) -> None:
        u = self.unit
        for m in u.members:
            self.general(dataclasses.replace(m, frees=[]), frame)
        for m in u.members[:-1]:
            for name in m.outputs:
                if name and name not in u.outputs:
                    values.pop(name, None)
        for name in frees:
            values.pop(name, None)

    def after_error(self, values, frame, frees) -> None:
        fallbacks.run_members(self.what, lambda: self(values, frame, frees))


def _guarded(compute, result: str, frees, fallback: _Fallback):
    """The runner of a merged unit: `compute(values)` gives its result; when
    it declines the inputs (fallbacks.Declined) or raises, the members run
    one by one through the general path, which names the node as always."""
    def run(values, frame):
        try:
            y = compute(values)
        except (Cancelled, ExecError):
            raise
        except fallbacks.Declined:
            fallback(values, frame, frees)
            return
        except Exception:  # noqa: BLE001  (the members report it with their context)
            fallback.after_error(values, frame, frees)
            return
        values[result] = y
        for name in frees:
            values.pop(name, None)
    return run


def _call_of(s: Step):
    if s.call is not None:
        return s.call
    return partial(s.kernel.fn, **s.attrs) if s.attrs else s.kernel.fn


def _plain(s: Step) -> bool:
    return (s.function is None and s.kernel is not None and not s.kernel.context
            and s.node.op_type not in NONDETERMINISTIC and not s.node.subgraphs())


class _Matching:
    def __init__(self, steps, readers, outputs, consts, const_value):
        self.steps = steps
        self.readers = readers
        self.outputs = outputs
        self.consts = consts
        self.const_value = const_value
        self.index = {id(s): i for i, s in enumerate(steps)}
        self.const_cache: dict = {}
        self.seen: dict = {}        # CSE key -> representative step's outputs
        self.alias: dict = {}       # name -> the earlier name holding the same value

    def fuse(self, i, taken):
        s = self.steps[i]
        if not _plain(s):
            return None
        op = s.node.op_type
        unit = None
        if op == "MatMul":
            unit = self._matmul_add(i, taken)
        elif op == "Softmax":
            unit = self._softmax_nan_scrub(i, taken)
        elif op == "LayerNormalization":
            unit = self._layer_norm(i)
        elif op in ("Div", "Mul"):
            unit = self._gelu_erf(i, taken)
        if unit is None:
            unit = self._repeated(i)
        return unit

    # -- helpers -------------------------------------------------------------------

    def _const(self, name):
        if not name or name not in self.consts:
            return None
        if name not in self.const_cache:
            try:
                value = self.const_value(name)
            except KeyError:
                value = None
            self.const_cache[name] = value if isinstance(value, np.ndarray) else None
        return self.const_cache[name]

    def _only_reader(self, name, expected) -> bool:
        return name not in self.outputs and self.readers.get(name, []) == expected

    # -- repeated computations ------------------------------------------------------

    def _key(self, s: Step):
        parts = [s.node.domain, s.node.op_type, s.opset]
        for name in s.inputs:
            c = self._const(name)
            if c is not None and c.size <= _CSE_CONST_MAX:
                parts.append(("c", c.dtype.str, c.shape, c.tobytes()))
            elif name in self.consts and c is None and name:
                return None
            else:
                parts.append(("n", self.alias.get(name, name)))
        for k in sorted(s.attrs):
            v = s.attrs[k]
            if isinstance(v, np.ndarray):
                parts.append((k, v.dtype.str, v.shape, v.tobytes()))
            elif isinstance(v, (int, float, str, bytes, type(None))) or (
                    isinstance(v, (list, tuple)) and all(isinstance(x, (int, float, str, bytes)) for x in v)):
                parts.append((k, repr(v)))
            else:
                return None
        return tuple(parts)

    def _repeated(self, i):
        s = self.steps[i]
        if any(n in self.outputs for n in s.outputs) or not any(s.inputs):
            return None
        key = self._key(s)
        if key is None:
            return None
        first = self.seen.get(key)
        if first is None:
            self.seen[key] = [n for n in s.outputs]
            return None
        pairs = [(src, dst) for src, dst in zip(first, s.outputs) if dst]
        if any(not src for src, _ in pairs):
            return None
        for src, dst in pairs:
            self.alias[dst] = self.alias.get(src, src)
        names = [self.alias[dst] for _, dst in pairs]
        dsts = [dst for _, dst in pairs]

        def make(frees, fallback):
            def run(values, frame):
                try:
                    for src, dst in zip(names, dsts):
                        values[dst] = values[src]
                except KeyError:
                    fallback.after_error(values, frame, frees)
                    return
                for name in frees:
                    values.pop(name, None)
            return run
        return _Unit([s], names, dsts, make)

    # -- MatMul + Add --------------------------------------------------------------

    def _matmul_add(self, i, taken):
        """MatMul followed by up to two Adds (a bias, then a residual or an
        attention mask), each added into the product's fresh buffer."""
        mm = self.steps[i]
        out = mm.outputs[0] if mm.outputs else ""
        if len(mm.outputs) != 1 or not out or len(mm.args) != 2 or not all(mm.args):
            return None
        adds = []          # (index, step, the other operand's name, its constant value or None)
        current, inside = out, {out}
        while len(adds) < _MATMUL_ADDS:
            users = self.readers.get(current, [])
            if len(users) != 1 or not self._only_reader(current, users) or users[0] in taken:
                break
            add = self.steps[users[0]]
            if add.node.op_type != "Add" or not _plain(add) or len(add.args) != 2 or add.opset < 7 \
                    or len(add.outputs) != 1 or not add.outputs[0]:
                break
            other = add.args[1] if add.args[0] == current else add.args[0]
            if other == current or not other or other in inside:
                break
            value = self._const(other)
            if other in self.consts and (value is None or value.dtype.kind != "f"):
                break
            adds.append((users[0], add, other, value))
            current = add.outputs[0]
            inside.add(current)
        if not adds:
            return None
        mm_call = _call_of(mm)
        a_name, b_name = mm.args
        plan = [(_call_of(add), other, value, add.args[0] == other) for _, add, other, value in adds]
        result = adds[-1][1].outputs[0]
        taken.update(k for k, _, _, _ in adds)

        def compute(values):
            y = mm_call(values[a_name], values[b_name])
            for add_call, other, value, other_first in plan:
                z = values[other] if value is None else value
                if (type(y) is np.ndarray and type(z) is np.ndarray and y.dtype == z.dtype
                        and y.flags.writeable and in_place.keeps_shape(y, z)):
                    np.add(y, z, out=y)        # addition commutes: the same bits either way
                else:
                    y = add_call(z, y) if other_first else add_call(y, z)
            return y

        def make(frees, fallback):
            return _guarded(compute, result, frees, fallback)
        reads = [a_name, b_name] + [other for _, _, other, value in adds if value is None]
        return _Unit([mm] + [add for _, add, _, _ in adds], reads, [result], make)

    # -- Softmax -> IsNaN -> Where ----------------------------------------------------

    def _softmax_nan_scrub(self, i, taken):
        sm = self.steps[i]
        if len(sm.args) != 1 or not sm.args[0] or len(sm.outputs) != 1 or not sm.outputs[0]:
            return None
        probs = sm.outputs[0]
        users = self.readers.get(probs, [])
        if len(users) != 2 or probs in self.outputs:
            return None
        isnan = next((k for k in users if self.steps[k].node.op_type == "IsNaN"), None)
        where = next((k for k in users if self.steps[k].node.op_type == "Where"), None)
        if isnan is None or where is None or where < isnan:
            return None
        (k_isnan, k_where), isnan, where = (isnan, where), self.steps[isnan], self.steps[where]
        if not _plain(where) or len(where.args) != 3:
            return None
        mask = isnan.outputs[0] if len(isnan.outputs) == 1 else ""
        if not mask or not self._only_reader(mask, [k_where]):
            return None
        zero = self._const(where.args[1])
        if where.args[0] != mask or where.args[2] != probs or zero is None or zero.size != 1 \
                or zero.reshape(-1)[0] != 0 or zero.dtype.kind != "f":
            return None
        sm_call, where_call = _call_of(sm), _call_of(where)
        x_name, result = sm.args[0], where.outputs[0]
        if not result:
            return None
        taken.update((k_isnan, k_where))
        # opset 13 on: the kernel's own last-axis softmax, which can tell it made no NaN
        last_axis = sm.opset >= 13 and sm.attrs.get("axis", -1) == -1

        def compute(values):
            x = values[x_name]
            clean = False
            if last_axis and type(x) is np.ndarray and x.dtype in _SOFTMAX_LAST_AXIS_DTYPES and x.ndim and x.size:
                p, clean = softmax_last_axis(x)
            else:
                p = sm_call(x)
            if not clean and not (type(p) is np.ndarray and p.dtype == zero.dtype and zero.ndim <= p.ndim
                                  and not np.isnan(p).any()):
                p = where_call(np.isnan(p), zero, p)
            return p

        def make(frees, fallback):
            return _guarded(compute, result, frees, fallback)
        return _Unit([sm, isnan, where], [x_name], [result], make)

    # -- Gelu: x * (erf(x / sqrt2) + 1) * 0.5, as torch exports it --------------------------

    def _next(self, name, op):
        """The one step reading `name` (an intermediate) if it is `op`, with its index."""
        users = self.readers.get(name, [])
        if len(users) != 1 or name in self.outputs:
            return None, -1
        s = self.steps[users[0]]
        if s.node.op_type != op or not _plain(s) or len(s.outputs) != 1 or not s.outputs[0]:
            return None, -1
        return s, users[0]

    def _scalar_operand(self, s, name, value):
        """The other input of binary `s` (one of whose inputs is `name`) if it
        is a constant scalar equal to `value` (None: any), else None."""
        if len(s.args) != 2 or s.args[0] == s.args[1] or name not in s.args or s.opset < 7:
            return None
        c = self._const(s.args[1] if s.args[0] == name else s.args[0])
        if c is None or c.size != 1 or c.dtype not in (np.float32, np.float64):
            return None
        if value is not None and float(c.reshape(-1)[0]) != value:
            return None
        return c

    def _gelu_erf(self, i, taken):
        scale = self.steps[i]
        if len(scale.args) != 2 or len(scale.outputs) != 1 or not scale.outputs[0] or scale.opset < 7:
            return None
        x_name = next((n for n in scale.args if self._const(n) is None), "")
        c = self._scalar_operand(scale, x_name, None) if x_name else None
        if c is None or (scale.node.op_type == "Div" and scale.args[0] != x_name):
            return None
        erf, k_erf = self._next(scale.outputs[0], "Erf")
        if erf is None:
            return None
        add, k_add = self._next(erf.outputs[0], "Add")
        one = self._scalar_operand(add, erf.outputs[0], 1.0) if add is not None else None
        if one is None:
            return None
        mul, k_mul = self._next(add.outputs[0], "Mul")
        if mul is None or sorted(mul.args) != sorted([x_name, add.outputs[0]]):
            return None
        last, k_last = self._next(mul.outputs[0], "Mul")
        half = self._scalar_operand(last, mul.outputs[0], 0.5) if last is not None else None
        if half is None:
            return None
        scale_call, erf_call = _call_of(scale), _call_of(erf)
        result = last.outputs[0]
        consts = (c, one, half)
        taken.update((k_erf, k_add, k_mul, k_last))

        def compute(values):
            x = values[x_name]
            if type(x) is not np.ndarray or any(k.dtype != x.dtype or k.ndim > x.ndim for k in consts):
                raise fallbacks.Declined("a dtype or rank the merged Gelu does not take")
            # the members' own operations, in their order, into one buffer
            t = scale_call(*(x if n == x_name else c for n in scale.args))
            y = erf_call(t)
            if not (type(y) is np.ndarray and y.flags.writeable and y.shape == x.shape and y.dtype == x.dtype):
                raise fallbacks.Declined("an Erf result it cannot write into")
            np.add(y, one, out=y)
            np.multiply(y, x, out=y)
            np.multiply(y, half, out=y)
            return y

        def make(frees, fallback):
            return _guarded(compute, result, frees, fallback)
        return _Unit([scale, erf, add, mul, last], [x_name], [result], make)

    # -- LayerNormalization with one used output ---------------------------------------

    def _layer_norm(self, i):
        s = self.steps[i]
        if s.opset < 17 or len(s.args) != 3 or not s.outputs or not s.outputs[0]:
            return None
        if any(n and (n in self.readers or n in self.outputs) for n in s.outputs[1:]):
            return None
        scale, bias = self._const(s.args[1]), self._const(s.args[2])
        axis = s.attrs.get("axis", -1)
        if (scale is None or bias is None or scale.dtype != np.float32 or bias.dtype != np.float32
                or scale.ndim != 1 or bias.shape != scale.shape or s.attrs.get("stash_type", 1) != 1):
            return None
        n = scale.shape[0]
        eps = np.float32(s.attrs.get("epsilon", 1e-5))
        ones = np.ones(n, np.float32)
        x_name, result = s.args[0], s.outputs[0]

        def make(frees, fallback):
            def run(values, frame):
                x = values.get(x_name)
                if type(x) is not np.ndarray or x.dtype != np.float32 or x.ndim < 1 or x.shape[-1] != n \
                        or axis not in (-1, x.ndim - 1):
                    fallback(values, frame, frees)
                    return
                # the kernel's own steps: bit-for-bit the same result
                centered = normalized_rows(x, ones, eps)[0]
                centered *= scale
                centered += bias
                values[result] = centered
                for name in frees:
                    values.pop(name, None)
            return run
        return _Unit([s], [x_name], [result], make)
