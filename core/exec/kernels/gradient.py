"""ai.onnx.preview.training Gradient (opset 1) by reverse-mode autodiff.

The node names, in attributes, the part of its own graph to differentiate: the
nodes that compute `y` from the tensors `xs` (differentiated) and `zs` (held
fixed). Its inputs are the values at which to evaluate, so the part is run
forward again with those values, then the output gradient (ones shaped like y:
the gradient of sum(y)) flows backwards through one vector-Jacobian product
rule per operator. An operator on the path without a rule is refused by name.
"""
from __future__ import annotations

import numpy as np

from ...opsets import canonical_domain
from ..plan import node_attrs
from ..registry import KernelContext, find_kernel, kernel
from ..values import normalize
from .reduce import keeps_dims


def _unbroadcast(grad, shape):
    """Sum `grad` over the axes numpy broadcasting added or stretched to reach it."""
    shape = tuple(shape)
    extra = grad.ndim - len(shape)
    if extra > 0:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad.reshape(shape)


def _matmul_vjp(g, a, b):
    # Treat 1-D operands as a row (left) or a column (right) matrix, as MatMul does.
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g.reshape(np.matmul(a2, b2).shape)
    da = np.matmul(g2, np.swapaxes(b2, -1, -2))
    db = np.matmul(np.swapaxes(a2, -1, -2), g2)
    return _unbroadcast(da, a2.shape).reshape(a.shape), _unbroadcast(db, b2.shape).reshape(b.shape)


def _gemm_vjp(g, ins, out, at):
    a, b = ins[0], ins[1]
    alpha, beta = at.get("alpha", 1.0), at.get("beta", 1.0)
    a_eff = a.T if at.get("transA", 0) else a
    b_eff = b.T if at.get("transB", 0) else b
    da = alpha * g @ b_eff.T
    db = alpha * a_eff.T @ g
    grads = [da.T if at.get("transA", 0) else da, db.T if at.get("transB", 0) else db]
    if len(ins) > 2 and ins[2] is not None:
        grads.append(_unbroadcast(beta * g, ins[2].shape))
    return grads


def _reduce_axes(ins, at, ndim):
    axes = at.get("axes")
    if axes is None and len(ins) > 1 and ins[1] is not None:
        axes = np.asarray(ins[1]).reshape(-1).tolist()
    if not axes:
        if at.get("noop_with_empty_axes", 0):
            return ()
        return tuple(range(ndim))
    return tuple(a % ndim for a in axes)


def _reduce_vjp(g, ins, at, mean):
    x = ins[0]
    axes = _reduce_axes(ins, at, x.ndim)
    if not keeps_dims(at.get("keepdims", 1)):
        g = np.expand_dims(g, axes)
    g = np.broadcast_to(g, x.shape)
    if mean:
        g = g / max(int(np.prod([x.shape[a] for a in axes])), 1)
    return [g]


def _pow_vjp(g, ins, out):
    a, b = ins
    da = g * b * np.power(a, b - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        # d(a^b)/db = a^b ln a; where a^b is 0 the contribution is 0.
        db = np.where(out == 0, 0, g * out * np.log(np.where(a > 0, a, 1)))
    return [_unbroadcast(da, a.shape), _unbroadcast(db, b.shape)]


def _transpose_vjp(g, ins, at):
    perm = at.get("perm") or list(range(ins[0].ndim))[::-1]
    return [np.transpose(g, np.argsort(perm))]


def _softmax_vjp(g, out, at, log):
    # Opset 13 normalises along one axis (default -1); older versions along
    # all axes from `axis` (default 1) on, flattened into one.
    shape = out.shape
    if at["_opset"] < 13:
        axis = at.get("axis", 1) % max(out.ndim, 1)
        rows = int(np.prod(shape[:axis]))
        g, out, axis = g.reshape(rows, -1), out.reshape(rows, -1), -1
    else:
        axis = at.get("axis", -1)
    if log:
        grad = g - np.exp(out) * g.sum(axis=axis, keepdims=True)
    else:
        grad = out * (g - (g * out).sum(axis=axis, keepdims=True))
    return [grad.reshape(shape)]


def _concat_vjp(g, ins, at):
    ends = np.cumsum([x.shape[at["axis"]] for x in ins])[:-1]
    return np.split(g, ends, axis=at["axis"])


def _clip_vjp(g, ins, at):
    x = ins[0]
    low = ins[1] if len(ins) > 1 and ins[1] is not None else at.get("min")
    high = ins[2] if len(ins) > 2 and ins[2] is not None else at.get("max")
    inside = np.ones(x.shape, bool)
    if low is not None:
        inside &= x >= low
    if high is not None:
        inside &= x <= high
    return [g * inside, None, None]


def _extreme_vjp(g, ins, out):
    # The gradient goes to the first input holding the extreme (ties: once).
    taken = np.zeros(out.shape, bool)
    grads = []
    for x in ins:
        mine = (np.broadcast_to(x, out.shape) == out) & ~taken
        taken |= mine
        grads.append(_unbroadcast(g * mine, x.shape))
    return grads


def _where_vjp(g, ins):
    cond = np.broadcast_to(ins[0], g.shape)
    return [None, _unbroadcast(np.where(cond, g, 0), ins[1].shape),
            _unbroadcast(np.where(cond, 0, g), ins[2].shape)]


# op_type -> rule(g, inputs, output, attributes) -> gradient per input (None =
# not differentiable, such as a shape input). Single-output operators only.
_RULES = {
    "Identity": lambda g, i, o, at: [g],
    "Neg": lambda g, i, o, at: [-g],
    "Add": lambda g, i, o, at: [_unbroadcast(g, i[0].shape), _unbroadcast(g, i[1].shape)],
    "Sub": lambda g, i, o, at: [_unbroadcast(g, i[0].shape), _unbroadcast(-g, i[1].shape)],
    "Mul": lambda g, i, o, at: [_unbroadcast(g * i[1], i[0].shape), _unbroadcast(g * i[0], i[1].shape)],
    "Div": lambda g, i, o, at: [_unbroadcast(g / i[1], i[0].shape),
                                _unbroadcast(-g * i[0] / (i[1] * i[1]), i[1].shape)],
    "Sum": lambda g, i, o, at: [_unbroadcast(g, x.shape) for x in i],
    "MatMul": lambda g, i, o, at: list(_matmul_vjp(g, i[0], i[1])),
    "Gemm": lambda g, i, o, at: _gemm_vjp(g, i, o, at),
    "Relu": lambda g, i, o, at: [g * (i[0] > 0)],
    "Sigmoid": lambda g, i, o, at: [g * o * (1 - o)],
    "Tanh": lambda g, i, o, at: [g * (1 - o * o)],
    "Exp": lambda g, i, o, at: [g * o],
    "Log": lambda g, i, o, at: [g / i[0]],
    "Sqrt": lambda g, i, o, at: [g / (2 * o)],
    "Reciprocal": lambda g, i, o, at: [-g * o * o],
    "Abs": lambda g, i, o, at: [g * np.sign(i[0])],
    "Pow": lambda g, i, o, at: _pow_vjp(g, i, o),
    "Transpose": lambda g, i, o, at: _transpose_vjp(g, i, at),
    "Reshape": lambda g, i, o, at: [g.reshape(i[0].shape), None],
    "Flatten": lambda g, i, o, at: [g.reshape(i[0].shape)],
    "Squeeze": lambda g, i, o, at: [g.reshape(i[0].shape), None],
    "Unsqueeze": lambda g, i, o, at: [g.reshape(i[0].shape), None],
    "ReduceSum": lambda g, i, o, at: _reduce_vjp(g, i, at, mean=False) + [None],
    "ReduceMean": lambda g, i, o, at: _reduce_vjp(g, i, at, mean=True) + [None],
    "Softmax": lambda g, i, o, at: _softmax_vjp(g, o, at, log=False),
    "LogSoftmax": lambda g, i, o, at: _softmax_vjp(g, o, at, log=True),
    "LeakyRelu": lambda g, i, o, at: [g * np.where(i[0] > 0, 1, at.get("alpha", 0.01))],
    "Clip": lambda g, i, o, at: _clip_vjp(g, i, at),
    "Max": lambda g, i, o, at: _extreme_vjp(g, i, o),
    "Min": lambda g, i, o, at: _extreme_vjp(g, i, o),
    "Where": lambda g, i, o, at: _where_vjp(g, i),
    "Concat": lambda g, i, o, at: _concat_vjp(g, i, at),
    "Expand": lambda g, i, o, at: [_unbroadcast(g, i[0].shape), None],
    "Cast": lambda g, i, o, at: [g.astype(i[0].dtype) if np.issubdtype(i[0].dtype, np.inexact) else None],
}


def _model_opsets(graph):
    while graph.parent_graph is not None:
        graph = graph.parent_graph
    return dict(getattr(graph.owner, "opset_imports", None) or {"": 1})


def _path_nodes(graph, y, leaves):
    """Nodes of `graph` computing `y` when the names in `leaves` are given."""
    needed, chosen = {y} - set(leaves), []     # y given as an input: nothing to recompute
    for node in reversed(list(graph.nodes)):
        outs = {v.name for v in node.outputs if v is not None}
        if not outs & needed:
            continue
        chosen.append(node)
        needed -= outs
        needed.update(v.name for v in node.inputs if v is not None and v.name and v.name not in leaves)
    for name in needed - set(leaves):
        v = graph.lookup(name)
        if v is None or v.const is None:
            raise ValueError(f"y {y!r} depends on {name!r}, which is neither in xs/zs nor a constant")
    return chosen[::-1], {n: normalize(graph.lookup(n).const) for n in needed - set(leaves)}


def _forward(ctx, nodes, values, opsets):
    for node in nodes:
        domain = canonical_domain(node.domain)
        k = find_kernel(domain, node.op_type, opsets.get(domain, 0))
        if k is None:
            raise ValueError(f"no kernel for {node.op_type} (node {node.name!r}) on the differentiated path")
        args = [values[v.name] if v is not None and v.name else None for v in node.inputs]
        attrs = node_attrs(node)
        if k.context:
            sub = KernelContext(opset=opsets.get(domain, 0), num_outputs=len(node.outputs), rng=ctx.rng,
                                node=node, run_subgraph=ctx.run_subgraph)
            out = k.fn(sub, *args, **attrs)
        else:
            out = k.fn(*args, **attrs)
        out = out if isinstance(out, tuple) else (out,)
        for v, x in zip(node.outputs, out):
            if v is not None and v.name:
                values[v.name] = x


def _backward(nodes, values, y, wanted, opsets):
    grads = {y: np.ones_like(values[y])}
    for node in reversed(nodes):
        outs = [v.name for v in node.outputs if v is not None and v.name]
        g = grads.get(outs[0]) if outs else None
        if g is None:
            continue
        rule = _RULES.get(node.op_type) if canonical_domain(node.domain) == "" and len(outs) == 1 else None
        if rule is None:
            raise ValueError(f"Gradient cannot differentiate {node.op_type} (node {node.name!r}); "
                             f"supported: {', '.join(sorted(_RULES))}")
        ins = [values[v.name] if v is not None and v.name else None for v in node.inputs]
        attrs = dict(node_attrs(node), _opset=opsets.get("", 1))
        for v, d in zip(node.inputs, rule(g, ins, values[outs[0]], attrs)):
            if v is None or not v.name or d is None or not np.issubdtype(np.asarray(values[v.name]).dtype,
                                                                          np.inexact):
                continue
            # A value read by several nodes (or twice by one) sums its gradients.
            grads[v.name] = grads[v.name] + d if v.name in grads else d
    return [grads.get(x) for x in wanted]


@kernel("Gradient", since=1, domain="ai.onnx.preview.training", context=True)
def gradient(ctx, *inputs, xs=None, zs=None, y=None):
    xs, zs = list(xs or []), list(zs or [])
    if len(inputs) != len(xs) + len(zs):
        raise ValueError(f"Gradient has {len(inputs)} inputs for {len(xs)} xs and {len(zs)} zs")
    graph = ctx.node.graph
    leaves = xs + zs
    nodes, constants = _path_nodes(graph, y, set(leaves))
    if any(n is ctx.node for n in nodes):
        raise ValueError(f"y {y!r} depends on this Gradient node itself")
    values = dict(constants)
    values.update({name: np.asarray(x) for name, x in zip(leaves, inputs)})
    opsets = _model_opsets(graph)
    _forward(ctx, nodes, values, opsets)
    if y not in values:
        raise ValueError(f"y {y!r} is not computed from xs/zs")
    grads = _backward(nodes, values, y, xs, opsets)
    out = []
    for name, g in zip(xs, grads):
        x = values[name]
        # No path from x to y: its gradient is zero.
        out.append(np.zeros_like(x) if g is None else np.asarray(g, dtype=x.dtype).reshape(x.shape))
    return tuple(out)
