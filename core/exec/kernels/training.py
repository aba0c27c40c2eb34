"""ai.onnx.preview.training optimizers: Adagrad, Adam, Momentum.

Each takes the learning rate R and step count T, then n tensors to optimize
followed by their gradients and optimizer state, grouped per kind
(X1..Xn, G1..Gn, state1..staten); it returns the new tensors and new states
in the same grouping. `Gradient` needs automatic differentiation of a graph,
which the executor does not do, so it has no kernel.
"""
from __future__ import annotations

import numpy as np

from ..registry import kernel

DOMAIN = "ai.onnx.preview.training"


def _groups(tensors, kinds: int, op: str):
    if len(tensors) % kinds:
        raise ValueError(f"{op} expects its tensor inputs in {kinds} groups of equal size, "
                         f"got {len(tensors)} inputs after R and T")
    n = len(tensors) // kinds
    return [tensors[i * n:(i + 1) * n] for i in range(kinds)]


def _same_type(value, like):
    return np.asarray(value).astype(like.dtype, copy=False)


@kernel("Adagrad", since=1, domain=DOMAIN)
def adagrad(r, t, *tensors, decay_factor=0.0, epsilon=1e-6, norm_coefficient=0.0):
    xs, gs, hs = _groups(tensors, 3, "Adagrad")
    # the learning rate decays with the number of steps already taken
    rate = float(r) / (1 + float(t) * decay_factor)
    new_x, new_h = [], []
    for x, g, h in zip(xs, gs, hs):
        g_reg = norm_coefficient * x + g
        h_next = h + g_reg * g_reg
        x_next = x - rate * g_reg / (np.sqrt(h_next) + epsilon)
        new_x.append(_same_type(x_next, x))
        new_h.append(_same_type(h_next, h))
    return tuple(new_x + new_h)


@kernel("Adam", since=1, domain=DOMAIN)
def adam(r, t, *tensors, alpha=0.9, beta=0.999, epsilon=1e-6, norm_coefficient=0.0,
         norm_coefficient_post=0.0):
    xs, gs, vs, hs = _groups(tensors, 4, "Adam")
    step = float(t)
    rate = float(r)
    if step > 0:
        # bias correction of the two running averages
        rate = rate * np.sqrt(1 - beta ** step) / (1 - alpha ** step)
    new_x, new_v, new_h = [], [], []
    for x, g, v, h in zip(xs, gs, vs, hs):
        g_reg = norm_coefficient * x + g
        v_next = alpha * v + (1 - alpha) * g_reg
        h_next = beta * h + (1 - beta) * g_reg * g_reg
        x_next = x - rate * v_next / (np.sqrt(h_next) + epsilon)
        x_next = (1 - norm_coefficient_post) * x_next
        new_x.append(_same_type(x_next, x))
        new_v.append(_same_type(v_next, v))
        new_h.append(_same_type(h_next, h))
    return tuple(new_x + new_v + new_h)


@kernel("Momentum", since=1, domain=DOMAIN)
def momentum(r, t, *tensors, alpha, beta, mode, norm_coefficient):
    xs, gs, vs = _groups(tensors, 3, "Momentum")
    if mode not in ("standard", "nesterov"):
        raise ValueError(f'mode must be "standard" or "nesterov", got {mode!r}')
    rate = float(r)
    # the very first step (T == 0) takes the gradient at full weight
    grad_weight = beta if float(t) > 0 else 1.0
    new_x, new_v = [], []
    for x, g, v in zip(xs, gs, vs):
        g_reg = norm_coefficient * x + g
        v_next = alpha * v + grad_weight * g_reg
        if mode == "standard":
            x_next = x - rate * v_next
        else:
            x_next = x - rate * (g_reg + alpha * v_next)
        new_x.append(_same_type(x_next, x))
        new_v.append(_same_type(v_next, v))
    return tuple(new_x + new_v)
