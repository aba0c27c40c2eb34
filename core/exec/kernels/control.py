"""Control flow: If, Loop, Scan. Bodies run through ctx.run_subgraph (once)
or a ctx.runner (per iteration), which see the calling graph's values
(outer scope)."""
from __future__ import annotations

import numpy as np

from ..registry import kernel


def _truth(v) -> bool:
    """A one-element condition tensor as a bool (any rank)."""
    if type(v) is np.ndarray and v.size == 1:
        return bool(v)
    return bool(np.asarray(v).reshape(-1)[0])


@kernel("If", since=1, context=True)
def if_(ctx, cond, then_branch=None, else_branch=None):
    return tuple(ctx.run_subgraph(then_branch if _truth(cond) else else_branch, []))


@kernel("Loop", since=1, context=True)
def loop(ctx, max_trip_count=None, cond=None, *carried, body=None):
    trips = None if max_trip_count is None else int(np.asarray(max_trip_count).reshape(-1)[0])
    keep_going = True if cond is None else _truth(cond)
    state = list(carried)
    n_carried = len(state)
    scans: list[list] = []
    i = 0
    run_body = ctx.runner(body)
    going = np.array(True)    # the body only runs while the condition holds; it never mutates inputs
    while keep_going and (trips is None or i < trips):
        outs = run_body([np.array(i, dtype=np.int64), going, *state])
        keep_going = _truth(outs[0])
        state = outs[1:1 + n_carried]
        if len(outs) > 1 + n_carried:
            if not scans:
                scans = [[] for _ in outs[1 + n_carried:]]
            for lst, v in zip(scans, outs[1 + n_carried:]):
                lst.append(v)
        i += 1
    state = list(state)
    n_scan = ctx.num_outputs - n_carried
    if len(scans) < n_scan:
        scans += [[] for _ in range(n_scan - len(scans))]
    result = state + [_scan_output(lst, body, n_carried + 1 + k) for k, lst in enumerate(scans)]
    return tuple(result)


def _scan_output(values: list, body, body_output_index: int):
    if values and isinstance(values[0], list):
        return values   # sequence scan outputs are kept as a list per iteration
    if values:
        return np.stack([np.asarray(v) for v in values])
    # No iteration ran: an empty tensor of the body output's type.
    from ..values import empty_like_type
    t = body.outputs[body_output_index].type if body_output_index < len(body.outputs) else None
    return empty_like_type(t)


@kernel("Scan", since=8, context=True)
def scan_8(ctx, sequence_lens, *inputs, body=None, num_scan_inputs=0, directions=None):
    # Opset 8: every input has a leading batch axis; the scan axis is axis 1.
    n_state = len(inputs) - num_scan_inputs
    batch = np.asarray(inputs[0]).shape[0] if inputs else 0
    per_batch = []
    for b in range(batch):
        states = [np.asarray(x)[b] for x in inputs[:n_state]]
        scans = [np.asarray(x)[b] for x in inputs[n_state:]]
        length = scans[0].shape[0] if scans else 0
        if sequence_lens is not None and np.asarray(sequence_lens).size:
            length = int(np.asarray(sequence_lens)[b])
        dirs = list(directions or [0] * num_scan_inputs)
        outs_per_iter = []
        run_body = ctx.runner(body)
        for t in range(length):
            elems = [s[length - 1 - t] if d else s[t] for s, d in zip(scans, dirs)]
            outs = run_body([*states, *elems])
            states = list(outs[:n_state])
            outs_per_iter.append(outs[n_state:])
        scan_outs = [np.stack([o[k] for o in outs_per_iter]) for k in range(ctx.num_outputs - n_state)]
        per_batch.append(states + scan_outs)
    return tuple(np.stack([pb[k] for pb in per_batch]) for k in range(ctx.num_outputs))


@kernel("Scan", since=9, context=True)
def scan(ctx, *inputs, body=None, num_scan_inputs=0, scan_input_axes=None, scan_input_directions=None,
         scan_output_axes=None, scan_output_directions=None):
    n_state = len(inputs) - num_scan_inputs
    states = list(inputs[:n_state])
    axes = list(scan_input_axes or [0] * num_scan_inputs)
    dirs = list(scan_input_directions or [0] * num_scan_inputs)
    scans = []
    for x, ax in zip(inputs[n_state:], axes):
        x = np.asarray(x)
        scans.append(np.moveaxis(x, ax % x.ndim, 0))
    length = scans[0].shape[0] if scans else 0
    collected: list[list] = []
    run_body = ctx.runner(body)
    for t in range(length):
        elems = [s[length - 1 - t] if d else s[t] for s, d in zip(scans, dirs)]
        outs = run_body([*states, *elems])
        states = list(outs[:n_state])
        if not collected:
            collected = [[] for _ in outs[n_state:]]
        for lst, v in zip(collected, outs[n_state:]):
            lst.append(np.asarray(v))
    n_scan_out = ctx.num_outputs - n_state
    out_axes = list(scan_output_axes or [0] * n_scan_out)
    out_dirs = list(scan_output_directions or [0] * n_scan_out)
    results = []
    for k in range(n_scan_out):
        lst = collected[k] if k < len(collected) else []
        if out_dirs[k] if k < len(out_dirs) else 0:
            lst = lst[::-1]
        stacked = _scan_output(lst, body, n_state + k)
        ax = out_axes[k] if k < len(out_axes) else 0
        if stacked.ndim:
            stacked = np.moveaxis(stacked, 0, ax % stacked.ndim)
        results.append(stacked)
    return tuple(states + results)
