"""Steps compiled into closures for repeated runs.

After a plan's first run (which folds constants and lets kernels prepare),
each live step becomes one small function of (values, frame) with
everything it needs bound as closure variables: where its arguments come
from, the callable to use (prepared kernel, or kernel with its attributes
bound by functools.partial), where its result goes and what dies after it.
Per node this costs a fraction of the general `Session._run_step`, which
matters for graphs of many tiny tensors (control flow bodies, shape
arithmetic, streaming audio models).

Anything unusual takes the general path: context kernels (control flow,
random ops), model-local functions, omitted inputs between others, and
every failure, which the general path runs again to report with the node's
context. Nodes with several outputs store them as the general path does.
"""
from __future__ import annotations

from functools import partial
from typing import Callable

import numpy as np

from .errors import Cancelled, ExecError
from .plan import NONDETERMINISTIC, Step

# Shape arithmetic (Gather/Unsqueeze/Concat on the output of Shape ...) works
# on tiny integer tensors whose values repeat from run to run: such steps
# remember their results by input value. Above this size an input is data.
_MEMO_MAX_ELEMENTS = 64
_MEMO_ENTRIES = 32
# Results (ConstantOfShape, Range ... can be large) are kept only up to this
# size, so a step's memory stays small whatever shapes come by.
_MEMO_MAX_RESULT = 4096
_MEMO_GIVE_UP = 64      # misses after which a step that rarely hits stops looking

Runner = Callable[[dict, object], None]


# Context kernels that read only the node's fixed facts (num_outputs, opset)
# from their context, never the frame, a body or the random generator: their
# step's context, made on the first run, is bound once like an attribute.
# Split is one (equal parts need the output count): through the general step
# it cost ~15 us a call, a transformer's per-layer QKV split.
_CONTEXT_WITHOUT_FRAME = frozenset({"Split"})


def compile_step(s: Step, general: Callable, *, steady: bool = False, untrusted=frozenset()) -> Runner:
    """A runner for `s`; `general(s, frame)` is the session's full step.

    With `steady` (a plan run whole, whose values nobody watches) a Shape
    step hands out the same read-only array while its input's shape stays
    the same, and remembered shape arithmetic recognises inputs that are
    the very objects of the last run (not for `untrusted` names: feeds and
    enclosing values, which a caller may change in place between runs), so
    a chain of shape arithmetic costs a few identity checks per node."""
    context = s.context if s.call is None and s.kernel is not None and s.kernel.context else None
    bound_context = (context is not None and s.kernel.domain == "" and s.node.op_type in _CONTEXT_WITHOUT_FRAME)
    if s.function is not None or s.kernel is None or (s.kernel.context and context is None) \
            or (not s.single and s.fetch is None):
        return lambda values, frame: general(s, frame)
    if context is not None:
        call = partial(s.kernel.fn, context, **s.attrs)
        if not bound_context:
            return _in_frame(s, call, general, tuple(s.frees))
    elif s.call is not None:
        call = s.call
    elif s.attrs:
        call = partial(s.kernel.fn, **s.attrs)
    else:
        call = s.kernel.fn
    frees = tuple(s.frees)
    outputs = tuple(s.outputs)
    single = s.single
    if s.memo:
        return _memoised(s, call, general, frees, steady and not any(n in untrusted for n in s.args))
    if steady and s.node.op_type == "Shape" and s.kernel.domain == "" and single and len(outputs) == 1:
        return _steady_shape(s, call, general, frees)
    if len(outputs) != 1 or not outputs[0]:
        return _general_result(s, call, general, frees)
    out = outputs[0]
    # The two runners below differ only in how they fetch arguments: one
    # input is read directly, several through the plan's itemgetter. Kept
    # apart on purpose, as these are the hottest lines of a repeated run.
    if single:
        def run(values, frame):
            try:
                result = call(values[single])
            except (Cancelled, ExecError):
                raise
            except Exception:  # noqa: BLE001  (reported by the general path, with context)
                general(s, frame)
                return
            if type(result) is not tuple:
                values[out] = result
            elif result:
                values[out] = result[0]
            for name in frees:
                values.pop(name, None)
        return run
    fetch = s.fetch

    def run_many(values, frame):
        try:
            result = call(*fetch(values))
        except (Cancelled, ExecError):
            raise
        except Exception:  # noqa: BLE001
            general(s, frame)
            return
        if type(result) is not tuple:
            values[out] = result
        elif result:
            values[out] = result[0]
        for name in frees:
            values.pop(name, None)
    return run_many


def store_result(values: dict, outputs, result, frees) -> None:
    """Put a kernel's result (one value, or a tuple for several outputs) under
    the step's output names ("" = omitted), then drop the values no later
    step reads."""
    if type(result) is not tuple:
        if outputs and outputs[0]:     # a node may declare no outputs at all
            values[outputs[0]] = result
    else:
        for name, value in zip(outputs, result):
            if name:
                values[name] = value
    for name in frees:
        values.pop(name, None)


def _in_frame(s: Step, call, general, frees) -> Runner:
    """A context kernel that reads the running frame (If, Loop, Scan: their
    bodies see the enclosing values): its context, made on the first run,
    is pointed at the frame each call, as the general step does, without
    the general step's per-call dispatch (~1 us of a small If's ~2)."""
    ctx, stored = s.context, _general_result(s, call, general, frees)

    def run(values, frame):
        ctx.frame = frame
        stored(values, frame)
    return run


def _general_result(s: Step, call, general, frees) -> Runner:
    """Several (or unnamed) outputs: the result is stored as _run_step does."""
    single, fetch, outputs = s.single, s.fetch, s.outputs

    def run(values, frame):
        try:
            result = call(values[single]) if single else call(*fetch(values))
        except (Cancelled, ExecError):
            raise
        except Exception:  # noqa: BLE001
            general(s, frame)
            return
        store_result(values, outputs, result, frees)
    return run


def memo_candidate(s: Step, args, plan_outputs) -> bool:
    """Whether `s` (about to run with `args` on a plan's first run) looks like
    shape arithmetic worth remembering: a plain deterministic kernel on tiny
    integer inputs whose results are not handed to the caller."""
    if (s.function is not None or s.kernel is None or s.kernel.context or not args
            or s.node.op_type in NONDETERMINISTIC or any(n in plan_outputs for n in s.outputs)):
        return False
    return _key(args) is not None


def _key(args):
    """The inputs as a hashable value, or None when one is not a tiny integer tensor."""
    parts = []
    for a in args:
        if a is None:
            parts.append(None)
        elif type(a) is np.ndarray and a.size <= _MEMO_MAX_ELEMENTS and a.dtype.kind in "biu":
            parts.append((a.dtype.str, a.shape, a.tobytes()))
        else:
            return None
    return tuple(parts)


def _memoised(s: Step, call, general, frees, by_identity: bool = False) -> Runner:
    single, fetch, outputs = s.single, s.fetch, s.outputs
    cache: dict = {}
    misses = hits = 0
    last_args: tuple = ()
    last_result = None

    def run(values, frame):
        nonlocal misses, hits, last_args, last_result
        try:
            args = (values[single],) if single else fetch(values)
        except KeyError:
            general(s, frame)
            return
        if last_args and len(args) == len(last_args) and all(a is b for a, b in zip(args, last_args)):
            # the same read-only objects as last time: the same result
            hits += 1
            store_result(values, outputs, last_result, frees)
            return
        # values that never repeat (a loop counter) make remembering a loss: stop
        key = _key(args) if misses < _MEMO_GIVE_UP or hits * 4 >= misses else None
        result = cache.get(key) if key is not None else None
        if result is not None:
            hits += 1
        else:
            misses += key is not None
            try:
                result = call(*args)
            except (Cancelled, ExecError):
                raise
            except Exception:  # noqa: BLE001
                general(s, frame)
                return
            kept = _frozen(result) if key is not None else None
            if kept is not None:
                if len(cache) >= _MEMO_ENTRIES:
                    cache.clear()
                cache[key] = result = kept
            else:
                key = None
        if by_identity and key is not None and all(a is None or not a.flags.writeable for a in args):
            last_args, last_result = tuple(args), result
        store_result(values, outputs, result, frees)
    return run


def _steady_shape(s: Step, call, general, frees) -> Runner:
    """Shape handing out one read-only array per input shape, so the steps
    reading it see the same object from run to run (see _memoised)."""
    single, out = s.single, s.outputs[0]
    seen: dict = {}

    def run(values, frame):
        try:
            x = values[single]
            result = seen.get(x.shape)
            if result is None:
                result = np.array(call(x))      # owns its memory
                result.flags.writeable = False
                if len(seen) >= _MEMO_ENTRIES:
                    seen.clear()
                seen[x.shape] = result
        except (Cancelled, ExecError):
            raise
        except Exception:  # noqa: BLE001  (reported by the general path, with context)
            general(s, frame)
            return
        values[out] = result
        for name in frees:
            values.pop(name, None)
    return run


def frozen(parts, max_elements: int):
    """`parts` (a list or tuple of results) made safe to hand out again on
    later runs: arrays read-only and owning their memory (a view could show
    a fed array the caller changes later), numpy scalars as they are (they
    cannot change; 0-d kernels may give them). None when one part is
    anything else or an array over `max_elements`. Shared by the remembered
    steps here and shape_blocks.py."""
    kept = []
    for p in parts:
        if isinstance(p, np.generic):
            kept.append(p)
        elif type(p) is np.ndarray and p.size <= max_elements:
            p = p if p.base is None else p.copy()
            p.flags.writeable = False
            kept.append(p)
        else:
            return None
    return kept


def _frozen(result):
    """A kernel's result (one value or a tuple) through `frozen`, same form back."""
    kept = frozen(result if type(result) is tuple else (result,), _MEMO_MAX_RESULT)
    if kept is None:
        return None
    return tuple(kept) if type(result) is tuple else kept[0]
