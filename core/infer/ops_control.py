"""If / Loop / Scan: bodies are inferred with the types the node gives them;
outer-scope names are visible inside (the driver resolves them)."""
from __future__ import annotations

from ..ir.dtypes import DataType, type_name
from ..ir.types import TensorType
from .context import rule, tensor
from .findings import axis as axis_in_rank
from .findings import input_label
from .ops_sequence import join_types


def _body(ctx, name):
    return ctx.attrs.get(name)


@rule("If")
def if_op(ctx):
    then_b, else_b = _body(ctx, "then_branch"), _body(ctx, "else_branch")
    if ctx.driver is None:
        return []
    a = ctx.driver.infer_subgraph(then_b, []) if then_b is not None else []
    b = ctx.driver.infer_subgraph(else_b, []) if else_b is not None else []
    _branches_agree_on_element_types(ctx, a, b)
    cond = ctx.const(0)
    if cond is not None and cond.size == 1:
        return a if bool(cond.reshape(-1)[0]) else b
    n = max(len(a), len(b))
    return [join_types(a[i] if i < len(a) else None, b[i] if i < len(b) else None) for i in range(n)]


def _branches_agree_on_element_types(ctx, then_types, else_types) -> None:
    """Each output of an If has one element type whichever branch runs (its
    page: the branches' return values "must be of the same data type"; onnx
    and onnxruntime refuse another, even with a constant condition). Shapes
    may differ."""
    for i, (t, e) in enumerate(zip(then_types, else_types)):
        if isinstance(t, TensorType) and isinstance(e, TensorType) and t.elem_type and e.elem_type \
                and t.elem_type != e.elem_type:
            outputs = ctx.node.outputs if ctx.node is not None else ()
            value = outputs[i] if i < len(outputs) else None
            label = f"output {i} {value.name!r}" if value is not None else f"output {i}"
            ctx.error("node.type-mismatch", f"then_branch gives {label} as {type_name(t.elem_type)} but else_branch "
                                            f"gives it as {type_name(e.elem_type)}: an If's output has one element "
                                            "type whichever branch runs; make both branches give the same type "
                                            "(a Cast in one of them)")
            return


@rule("Loop")
def loop(ctx):
    body = _body(ctx, "body")
    carried = list(ctx.types[2:])
    if ctx.driver is None or body is None:
        return []
    # The body's condition input gets the node's condition as it is (as
    # onnx's inference gives it: a body declaring a scalar against a [1, 1]
    # condition is refused by onnx and onnxruntime); the iteration number
    # is always a scalar.
    cond = ctx.type(1) if ctx.has_input(1) and isinstance(ctx.type(1), TensorType) else None
    ins = [tensor(DataType.INT64, ()), cond or tensor(DataType.BOOL, ())] + carried
    outs = ctx.driver.infer_subgraph(body, ins)
    n_carried = len(carried)
    result = []
    for i in range(n_carried):
        body_t = outs[1 + i] if 1 + i < len(outs) else None
        _carried_type_kept(ctx, i, carried[i], body_t)
        result.append(_carried_join(carried[i], body_t))
    # Scan outputs stack one slice per iteration: with a constant trip count
    # and no condition input the number of iterations is known.
    trips = None
    m = ctx.const(0)
    if m is not None and m.size == 1 and not ctx.has_input(1):
        trips = int(m.reshape(-1)[0])
    for t in outs[1 + n_carried:]:
        if isinstance(t, TensorType):
            result.append(TensorType(t.elem_type, None if t.shape is None else (trips,) + t.shape))
        else:
            result.append(None)
    return result


def _carried_type_kept(ctx, i: int, initial, body) -> None:
    """A loop-carried value keeps its element type: the body's output is its
    next iteration's input (onnx and onnxruntime refuse another)."""
    if isinstance(initial, TensorType) and isinstance(body, TensorType) and initial.elem_type and body.elem_type \
            and initial.elem_type != body.elem_type:
        ctx.error("node.type-mismatch", f"{input_label(ctx, 2 + i)} is {type_name(initial.elem_type)}, but the body "
                                        f"gives that loop-carried value back as {type_name(body.elem_type)} (its "
                                        f"output {1 + i}): each iteration reads what the last one gave, so both "
                                        "have one element type")


def _carried_join(initial, body):
    """Type of a loop-carried value after the loop: the body's output type,
    except dims that the body changes (initial and body disagree) are unknown.
    Where one side knows nothing, the other decides."""
    if body is None:
        return initial
    if not isinstance(initial, TensorType) or not isinstance(body, TensorType):
        return body
    if initial.shape is None or body.shape is None:
        return TensorType(body.elem_type or initial.elem_type, body.shape)
    if len(initial.shape) != len(body.shape):
        return TensorType(body.elem_type, None)
    return TensorType(body.elem_type or initial.elem_type,
                      tuple(b if a is None or a == b else None
                            for a, b in zip(initial.shape, body.shape)))


@rule("Scan", since=9)
def scan(ctx):
    body = _body(ctx, "body")
    if ctx.driver is None or body is None:
        return []
    n_scan = ctx.attr("num_scan_inputs", 0)
    n_state = ctx.num_inputs - n_scan
    in_axes = _scan_axes(ctx, "scan_input_axes", n_scan)
    ins = list(ctx.types[:n_state])
    seq_len = None
    for j in range(n_scan):
        t = ctx.type(n_state + j)
        ax = None
        if isinstance(t, TensorType) and t.shape is not None and in_axes is not None:
            ax = axis_in_rank(ctx, in_axes[j], len(t.shape), "scan_input_axes",
                              what=input_label(ctx, n_state + j))
        if ax is not None:
            seq_len = seq_len if seq_len is not None else t.shape[ax]
            ins.append(TensorType(t.elem_type, t.shape[:ax] + t.shape[ax + 1:]))
        else:
            ins.append(t if not isinstance(t, TensorType) else TensorType(t.elem_type, None))
    outs = ctx.driver.infer_subgraph(body, ins)
    result = [outs[i] if i < len(outs) else None for i in range(n_state)]
    out_axes = _scan_axes(ctx, "scan_output_axes", len(outs) - n_state)
    for j, t in enumerate(outs[n_state:]):
        ax = None
        if isinstance(t, TensorType) and t.shape is not None and out_axes is not None:
            # The output stacks the body's values: one rank more than theirs.
            ax = axis_in_rank(ctx, out_axes[j], len(t.shape) + 1, "scan_output_axes",
                              what=f"scan output {j} (the body's output {n_state + j}, one rank more)")
        if ax is not None:
            result.append(TensorType(t.elem_type, t.shape[:ax] + (seq_len,) + t.shape[ax:]))
        else:
            result.append(TensorType(t.elem_type, None) if isinstance(t, TensorType) else t)
    return result


def _scan_axes(ctx, name, count):
    """A Scan axes attribute (default all 0), or None when it does not hold
    one int per scan input/output (operator_rules reports a wrong length)."""
    axes = ctx.attr(name)
    if axes is None:
        return [0] * count
    if not isinstance(axes, (list, tuple)) or len(axes) != count or not all(type(a) is int for a in axes):
        return None
    return list(axes)


@rule("Scan", since=8)
def scan_v8(ctx):
    # Opset 8: input 0 is the optional sequence_lens and every tensor has a
    # leading batch axis that the body does not see.
    body = _body(ctx, "body")
    if ctx.driver is None or body is None:
        return []
    n_scan = ctx.attr("num_scan_inputs", 0)
    types = ctx.types[1:]
    n_state = len(types) - n_scan
    batch = seq_len = None
    ins = []
    for i, t in enumerate(types):
        if isinstance(t, TensorType) and t.shape is not None and len(t.shape) >= (1 if i < n_state else 2):
            batch = batch if batch is not None else t.shape[0]
            cut = 1 if i < n_state else 2
            if i >= n_state and seq_len is None:
                seq_len = t.shape[1]
            ins.append(TensorType(t.elem_type, t.shape[cut:]))
        else:
            ins.append(TensorType(t.elem_type, None) if isinstance(t, TensorType) else t)
    outs = ctx.driver.infer_subgraph(body, ins)
    result = []
    for i, t in enumerate(outs):
        if isinstance(t, TensorType) and t.shape is not None:
            extra = (batch,) if i < n_state else (batch, seq_len)
            result.append(TensorType(t.elem_type, extra + t.shape))
        else:
            result.append(t)
    return result
