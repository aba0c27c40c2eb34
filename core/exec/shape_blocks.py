"""Shape arithmetic skipped while the shapes it reads stay the same.

Exporters compute reshape targets, masks and position ranges from `Shape`
at run time: in a torch BERT 353 of 837 live steps are Shape, Gather,
Unsqueeze, Concat, Range ... on tiny integer tensors. Each costs a kernel
call (~1 us) although its result only changes when an input's shape does.

A step is *shape-static* when it is Shape or Size, or a plain deterministic
step whose inputs are all constants or shape-static values (at least one of
the latter). Its result is then a function of the shapes those Shape/Size
steps read, and of nothing else. Consecutive shape-static steps of a plan
form a block. On a repeated run a block looks at those shapes (and at the
identity of the shape-static values it takes from earlier blocks, which
hand out the very same read-only objects when they hit); when they match a
run it remembers, it stores that run's results in one go instead of
calling its steps. Otherwise its steps run one by one, as compiled steps
(errors go through the general path and name the node), and it remembers
what they gave.

Only `compile_runners` uses this, so only runs nobody watches: stepping,
breakpoints and `keep=True` run every node.
"""
from __future__ import annotations

import dataclasses

from .fast_steps import compile_step, frozen
from .plan import NONDETERMINISTIC

_ENTRIES = 8              # runs remembered per block (a decoder's growing cache length adds one a token)
_GIVE_UP = 16             # misses after which a block that rarely hits stops remembering
_MAX_RESULT = 1 << 16     # elements: a larger result (a big mask) is not kept between runs
_SHAPE_OPS = frozenset({"Shape", "Size"})


def shape_static(steps: list, consts, plan_outputs=(), skip=None) -> list:
    """For each step, whether it is shape-static (see module docstring).
    Steps writing one of `plan_outputs` are not: the caller gets fresh
    arrays. `skip[i]` true leaves step i out (not static, its outputs not
    counted as shape values): the debugger passes the plan's folded steps.
    The one test of "shape arithmetic", for repeated runs and for stepping."""
    static_names: set = set()
    flags = []
    for i, s in enumerate(steps):
        ok = ((skip is None or not skip[i]) and s.function is None and s.kernel is not None
              and not s.kernel.context and s.node.op_type not in NONDETERMINISTIC
              and not any(n in plan_outputs for n in s.outputs) and not s.node.subgraphs())
        if ok and s.node.op_type in _SHAPE_OPS and s.node.domain in ("", "ai.onnx"):
            ok = len(s.args) == 1 and bool(s.args[0])
        elif ok:
            names = [n for n in s.inputs if n]
            ok = (bool(names) and all(n in consts or n in static_names for n in names)
                  and any(n in static_names for n in names))
        if ok:
            static_names.update(n for n in s.outputs if n)
        flags.append(ok)
    return flags


def blocks(flags: list) -> list:
    """Runs of consecutive shape-static step indices."""
    out, run = [], []
    for i, ok in enumerate(flags):
        if ok:
            run.append(i)
        elif run:
            out.append(run)
            run = []
    if run:
        out.append(run)
    return out


def block_runner(members: list, exported: list, frees, general, consts):
    """The runner of one block: `exported` are the member outputs read after
    it, `frees` what dies after it."""
    inside = {n for m in members for n in m.outputs if n}
    # shapes read from outside (a Shape of a value made inside follows from the rest)
    shaped = list(dict.fromkeys(m.args[0] for m in members
                                if m.node.op_type in _SHAPE_OPS and m.args[0] not in inside))
    # shape-static values of earlier blocks, recognised by identity
    taken = list(dict.fromkeys(n for m in members for n in m.inputs
                               if n and n not in inside and n not in consts and m.node.op_type not in _SHAPE_OPS))
    steps = [compile_step(dataclasses.replace(m, frees=[]), general) for m in members]
    internal = tuple(n for n in inside if n not in exported)
    exported = tuple(exported)
    frees = tuple(frees)
    cache: dict = {}
    hits = misses = 0

    def run(values, frame):
        nonlocal hits, misses
        key = None
        if misses < _GIVE_UP or hits * 4 >= misses:
            try:
                objects = [values[n] for n in taken]
                key = (*[values[n].shape for n in shaped], *map(id, objects))
            except (KeyError, AttributeError):
                key = None
            entry = cache.get(key) if key is not None else None
            if entry is not None:
                hits += 1
                values.update(entry[1])
                for name in frees:
                    values.pop(name, None)
                return
        for step in steps:
            step(values, frame)
        if key is not None:
            misses += 1
            kept = frozen([values.get(n) for n in exported], _MAX_RESULT)
            if kept is not None:
                if len(cache) >= _ENTRIES:
                    cache.clear()
                # the entry holds the objects its key names by id, so no other object takes those ids
                cache[key] = (objects, tuple(zip(exported, kept)))
                values.update(cache[key][1])
        for name in internal:
            values.pop(name, None)
        for name in frees:
            values.pop(name, None)
    return run
