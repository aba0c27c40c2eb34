"""Recurrent layers: RNN, GRU, LSTM (directions, layouts, sequence_lens,
clip, custom activations, peepholes, linear_before_reset).

Time steps are inherently sequential; everything else is batched: the input
projection of every step is one BLAS matmul before the loop, and each step
does one matmul with the recurrence weights.
"""
from __future__ import annotations

import numpy as np

from ..errors import KernelInputError
from ..registry import VARIES, kernel


def _sigmoid(x):
    # exp(-|x|) never overflows; 1/(1+e) for x >= 0 and e/(1+e) below keep
    # full relative precision on both sides (no boolean-mask copies)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


_ACTIVATIONS = {
    "sigmoid": (lambda x, a, b: _sigmoid(x), None, None),
    "tanh": (lambda x, a, b: np.tanh(x), None, None),
    "relu": (lambda x, a, b: np.maximum(x, 0), None, None),
    "affine": (lambda x, a, b: a * x + b, 1.0, 0.0),
    "leakyrelu": (lambda x, a, b: np.where(x >= 0, x, a * x), 0.01, None),
    "thresholdedrelu": (lambda x, a, b: np.where(x > a, x, 0), 1.0, None),
    "scaledtanh": (lambda x, a, b: a * np.tanh(b * x), 1.0, 1.0),
    "hardsigmoid": (lambda x, a, b: np.clip(a * x + b, 0, 1), 0.2, 0.5),
    "elu": (lambda x, a, b: np.where(x >= 0, x, a * (np.exp(np.minimum(x, 0)) - 1)), 1.0, None),
    "softsign": (lambda x, a, b: x / (1 + np.abs(x)), None, None),
    "softplus": (lambda x, a, b: np.logaddexp(0, x), None, None),
}


def _activation_fns(names, alphas, betas, per_dir, num_dirs, defaults):
    """One list of callables per direction; alpha/beta lists are consumed in
    order by the activations that take them."""
    names = list(names) if names else defaults * num_dirs
    if len(names) == per_dir and num_dirs == 2:
        names = names * 2           # one direction's list serves both
    alphas, betas = list(alphas or []), list(betas or [])
    fns = []
    for name in names:
        fn, da, db = _ACTIVATIONS[name.lower()]
        a = alphas.pop(0) if da is not None and alphas else da
        b = betas.pop(0) if db is not None and betas else db
        fns.append(lambda x, fn=fn, a=a, b=b: fn(x, a, b))
    return [fns[d * per_dir:(d + 1) * per_dir] for d in range(num_dirs)]


class _Layout:
    """Moves the layout=1 (batch-major) tensors to seq-major and back."""

    def __init__(self, layout):
        self.batch_first = layout == 1

    def x_in(self, x):
        return x.transpose(1, 0, 2) if self.batch_first else x

    def state_in(self, s):
        return None if s is None else (s.transpose(1, 0, 2) if self.batch_first else s)

    def y_out(self, y):          # y: [seq, dirs, batch, hidden]
        return y.transpose(2, 0, 1, 3) if self.batch_first else y

    def state_out(self, s):
        return s.transpose(1, 0, 2) if self.batch_first else s


def _run_directions(x, num_dirs, direction, sequence_lens, step_dir):
    """Run `step_dir(d, xs, mask)` per direction on sequences reversed per
    batch item where needed; returns stacked Y [seq, dirs, batch, hidden] and
    the list of final states each step_dir returned."""
    seq, batch = x.shape[:2]
    lens = (np.full(batch, seq, dtype=np.int64) if sequence_lens is None
            else np.asarray(sequence_lens, dtype=np.int64).reshape(-1))
    t = np.arange(seq).reshape(-1, 1)
    mask = t < lens.reshape(1, -1)                          # [seq, batch]
    rev_idx = np.where(mask, lens.reshape(1, -1) - 1 - t, t)
    bidx = np.arange(batch).reshape(1, -1)
    ys, finals = [], []
    for d in range(num_dirs):
        reverse = direction == "reverse" or (direction == "bidirectional" and d == 1)
        xs = x[rev_idx, bidx] if reverse else x
        y, final = step_dir(d, xs, mask)
        if reverse:
            y = y[rev_idx, bidx]
        y[~mask] = 0
        ys.append(y)
        finals.append(final)
    return np.stack(ys, axis=1), finals


def _prep(x, w, r, b, initial, layout, gates):
    lay = _Layout(layout)
    x = lay.x_in(x)
    num_dirs, _, hidden = r.shape
    seq, batch = x.shape[:2]
    if b is None:
        b = np.zeros((num_dirs, 2 * gates * hidden), dtype=x.dtype)
    h0 = lay.state_in(initial)
    if h0 is None:
        h0 = np.zeros((num_dirs, batch, hidden), dtype=x.dtype)
    return lay, x, num_dirs, hidden, b, h0


def _clip(v, clip):
    return v if clip is None else np.clip(v, -clip, clip)


def _plain_rnn(x, w, r, b, h0):
    """Forward tanh RNN in the _is_plain case; x, h0 seq-major."""
    hidden = r.shape[2]
    seq, batch = x.shape[:2]
    xw = x @ w[0].T
    if b is not None:
        xw += b[0, :hidden] + b[0, hidden:]
    rt = r[0].T
    h = _initial(h0, batch, hidden, x.dtype)
    y = np.empty((seq, 1, batch, hidden), dtype=x.dtype)
    for t in range(seq):
        h = xw[t] + h @ rt
        np.tanh(h, out=h)
        y[t, 0] = h
    return y, h[None]


def _plain_gru(x, w, r, b, h0, linear_before_reset):
    """Forward GRU in the _is_plain case; x, h0 seq-major."""
    H = r.shape[2]
    seq, batch = x.shape[:2]
    xw = x @ w[0].T                                   # gates z, r, h
    rb = None
    if b is not None:
        xw += b[0, :3 * H]
        xw[..., :2 * H] += b[0, 3 * H:5 * H]          # the z, r recurrence biases add straight on
        rb = b[0, 5 * H:]
    rzr, rh = r[0][:2 * H].T, r[0][2 * H:].T
    h = _initial(h0, batch, H, x.dtype)
    y = np.empty((seq, 1, batch, H), dtype=x.dtype)
    for t in range(seq):
        zr = _sigmoid_in_place(xw[t, :, :2 * H] + h @ rzr)
        z, reset = zr[:, :H], zr[:, H:]
        if linear_before_reset:
            inner = h @ rh
            if rb is not None:
                inner += rb
            inner *= reset
        else:
            inner = (reset * h) @ rh
            if rb is not None:
                inner += rb
        inner += xw[t, :, 2 * H:]
        cand = np.tanh(inner, out=inner)
        h = cand + z * (h - cand)                     # (1 - z) * cand + z * h
        y[t, 0] = h
    return y, h[None]


@kernel("RNN", since=1)
def rnn(x, w, r, b=None, sequence_lens=None, initial_h=None, *, activation_alpha=None,
        activation_beta=None, activations=None, clip=None, direction="forward", hidden_size=None,
        layout=0, output_sequence=0):
    _check_shapes(x, w, 1)
    if _is_plain(("tanh",), x, w, r, sequence_lens, activations, activation_alpha, activation_beta,
                 clip, direction):
        lay = _Layout(layout)
        y, h = _plain_rnn(lay.x_in(x), w, r, b, lay.state_in(initial_h))
        return lay.y_out(y), lay.state_out(h)
    lay, x, num_dirs, hidden, b, h0 = _prep(x, w, r, b, initial_h, layout, 1)
    acts = _activation_fns(activations, activation_alpha, activation_beta, 1, num_dirs, ["Tanh"])

    def step_dir(d, xs, mask):
        xw = xs @ w[d].T + (b[d, :hidden] + b[d, hidden:])
        h = h0[d]
        ys = np.empty(xs.shape[:2] + (hidden,), dtype=x.dtype)
        for t in range(xs.shape[0]):
            hn = acts[d][0](_clip(xw[t] + h @ r[d].T, clip))
            h = np.where(mask[t, :, None], hn, h)
            ys[t] = hn
        return ys, h

    y, finals = _run_directions(x, num_dirs, direction, sequence_lens, step_dir)
    return lay.y_out(y).astype(x.dtype, copy=False), lay.state_out(np.stack(finals)).astype(x.dtype, copy=False)


@kernel("GRU", since=1)
def gru(x, w, r, b=None, sequence_lens=None, initial_h=None, *, activation_alpha=None,
        activation_beta=None, activations=None, clip=None, direction="forward", hidden_size=None,
        layout=0, linear_before_reset=0, output_sequence=0):
    _check_shapes(x, w, 3)
    if _is_plain(("sigmoid", "tanh"), x, w, r, sequence_lens, activations, activation_alpha, activation_beta,
                 clip, direction):
        lay = _Layout(layout)
        y, h = _plain_gru(lay.x_in(x), w, r, b, lay.state_in(initial_h), linear_before_reset)
        return lay.y_out(y), lay.state_out(h)
    lay, x, num_dirs, hidden, b, h0 = _prep(x, w, r, b, initial_h, layout, 3)
    acts = _activation_fns(activations, activation_alpha, activation_beta, 2, num_dirs, ["Sigmoid", "Tanh"])
    H = hidden

    def step_dir(d, xs, mask):
        f, g = acts[d]
        wb, rb = b[d, :3 * H], b[d, 3 * H:]
        xw = xs @ w[d].T + wb                        # gates z, r, h
        rzr, rh = r[d][:2 * H], r[d][2 * H:]
        h = h0[d]
        ys = np.empty(xs.shape[:2] + (H,), dtype=x.dtype)
        for t in range(xs.shape[0]):
            zr = f(_clip(xw[t, :, :2 * H] + h @ rzr.T + rb[:2 * H], clip))
            z, rg = zr[:, :H], zr[:, H:]
            if linear_before_reset:
                hh = g(_clip(xw[t, :, 2 * H:] + rg * (h @ rh.T + rb[2 * H:]), clip))
            else:
                hh = g(_clip(xw[t, :, 2 * H:] + (rg * h) @ rh.T + rb[2 * H:], clip))
            hn = (1 - z) * hh + z * h
            h = np.where(mask[t, :, None], hn, h)
            ys[t] = hn
        return ys, h

    y, finals = _run_directions(x, num_dirs, direction, sequence_lens, step_dir)
    return lay.y_out(y).astype(x.dtype, copy=False), lay.state_out(np.stack(finals)).astype(x.dtype, copy=False)


_LSTM_DEFAULTS = ("sigmoid", "tanh", "tanh")


def _plain_lstm(x, w, r, b, h0, c0):
    """Forward LSTM without peepholes in the _is_plain case (what exporters
    emit): a few ufunc calls per time step. The general path costs ~100 us of
    set-up even for one step, which dominates small streaming models.
    x, h0, c0 are seq-major."""
    return _lstm_steps(x, *_lstm_weights(w, r, b), h0, c0)


def _lstm_weights(w, r, b):
    """W and R transposed for x @ W^T, and the two biases summed (or None)."""
    hidden = r.shape[2]
    bias = None if b is None else b[0, :4 * hidden] + b[0, 4 * hidden:]
    return w[0].T, r[0].T, bias


def _lstm_steps(x, wt, rt, bias, h0, c0):
    hidden = rt.shape[0]
    seq, batch = x.shape[:2]
    xw = x @ wt                                       # gates i, o, f, c
    if bias is not None:
        xw += bias
    h = _initial(h0, batch, hidden, x.dtype)
    c = _initial(c0, batch, hidden, x.dtype)
    y = np.empty((seq, 1, batch, hidden), dtype=x.dtype)
    three = 3 * hidden
    for t in range(seq):
        gates = xw[t] + h @ rt
        s = _sigmoid_in_place(gates[:, :three])
        cand = np.tanh(gates[:, three:])
        c = s[:, 2 * hidden:] * c + s[:, :hidden] * cand
        h = s[:, hidden:2 * hidden] * np.tanh(c)
        y[t, 0] = h
    return y, h[None], c[None]


def _is_plain(defaults, x, w, r, sequence_lens, activations, activation_alpha, activation_beta, clip,
              direction) -> bool:
    """Forward, default activations, no clip or sequence_lens, one float type:
    the case the few-ufunc recurrences below serve."""
    return (direction == "forward" and clip is None and sequence_lens is None
            and not activation_alpha and not activation_beta
            and x.dtype in (np.float32, np.float64) and w.dtype == x.dtype and r.dtype == x.dtype
            and (not activations or tuple(a.lower() for a in activations) == defaults))


def _sigmoid_in_place(v):
    # sigmoid(v) = (tanh(v/2) + 1) / 2: cannot overflow, and fewer passes than 1/(1+exp(-v))
    v *= 0.5
    np.tanh(v, out=v)
    v += 1
    v *= 0.5
    return v


def _check_shapes(x, w, gates: int) -> None:
    """X is [seq, batch, input] (or [batch, seq, input]), W [dirs, gates*hidden, input]:
    anything else would fail later in a product with numpy's words, or not at all."""
    if x.ndim != 3 or w.ndim != 3:
        raise KernelInputError(f"X must have rank 3 ([seq, batch, input] or [batch, seq, input]) and W rank 3; "
                               f"got X of rank {x.ndim} {list(x.shape)} and W of rank {w.ndim}")
    if x.shape[2] != w.shape[2]:
        raise KernelInputError(f"X has {x.shape[2]} features on its last axis but W expects {w.shape[2]} "
                               f"(W is {list(w.shape)}: [directions, {gates} x hidden, input size])")


def _initial(state, batch, hidden, dtype):
    return state[0] if state is not None else np.zeros((batch, hidden), dtype)


def _prepare_lstm(consts, attrs):
    """Constant weights of a plain LSTM (what exporters emit): the checks,
    the transposes and the bias sum done once; the same arithmetic per call."""
    names = ("x", "w", "r", "b", "sequence_lens", "initial_h", "initial_c", "p")
    given = dict(zip(names, consts))
    w, r, b = given.get("w"), given.get("r"), given.get("b")
    if (not isinstance(w, np.ndarray) or not isinstance(r, np.ndarray) or b is VARIES
            or given.get("sequence_lens") is not None or given.get("p") is not None
            or attrs.get("input_forget") or w.ndim != 3 or w.shape[0] != 1 or r.ndim != 3
            or (b is not None and (b.dtype != w.dtype or b.shape != (1, 8 * r.shape[2])))):
        return None
    fake = np.empty(0, w.dtype)     # _is_plain on the attributes, with x's type to be checked per call
    if not _is_plain(_LSTM_DEFAULTS, fake, w, r, None, attrs.get("activations"), attrs.get("activation_alpha"),
                     attrs.get("activation_beta"), attrs.get("clip"), attrs.get("direction", "forward")):
        return None
    wt, rt, bias = _lstm_weights(w, r, b)
    lay = _Layout(attrs.get("layout", 0))

    def run(x, w_, r_, b_=None, sequence_lens=None, initial_h=None, initial_c=None, p=None):
        if x.ndim != 3 or x.shape[2] != w.shape[2]:
            _check_shapes(x, w, 4)
        if x.dtype != w.dtype:
            return lstm(x, w_, r_, b_, sequence_lens, initial_h, initial_c, p, **attrs)
        y, h, c = _lstm_steps(lay.x_in(x), wt, rt, bias, lay.state_in(initial_h), lay.state_in(initial_c))
        return lay.y_out(y), lay.state_out(h), lay.state_out(c)
    return run


@kernel("LSTM", since=1, prepare=_prepare_lstm)
def lstm(x, w, r, b=None, sequence_lens=None, initial_h=None, initial_c=None, p=None, *,
         activation_alpha=None, activation_beta=None, activations=None, clip=None,
         direction="forward", hidden_size=None, input_forget=0, layout=0, output_sequence=0):
    _check_shapes(x, w, 4)
    if p is None and not input_forget and _is_plain(_LSTM_DEFAULTS, x, w, r, sequence_lens, activations,
                                                    activation_alpha, activation_beta, clip, direction):
        lay = _Layout(layout)
        y, h, c = _plain_lstm(lay.x_in(x), w, r, b, lay.state_in(initial_h), lay.state_in(initial_c))
        return lay.y_out(y), lay.state_out(h), lay.state_out(c)
    lay, x, num_dirs, hidden, b, h0 = _prep(x, w, r, b, initial_h, layout, 4)
    c0 = lay.state_in(initial_c)
    if c0 is None:
        c0 = np.zeros_like(h0)
    acts = _activation_fns(activations, activation_alpha, activation_beta, 3, num_dirs,
                           ["Sigmoid", "Tanh", "Tanh"])
    H = hidden
    final_c = []

    def step_dir(d, xs, mask):
        f, g, hf = acts[d]
        xw = xs @ w[d].T + (b[d, :4 * H] + b[d, 4 * H:])     # gates i, o, f, c
        pi, po, pf = (p[d, :H], p[d, H:2 * H], p[d, 2 * H:]) if p is not None else (0, 0, 0)
        h, c = h0[d], c0[d]
        ys = np.empty(xs.shape[:2] + (H,), dtype=x.dtype)
        for t in range(xs.shape[0]):
            gates = xw[t] + h @ r[d].T
            i = f(_clip(gates[:, :H] + pi * c, clip))
            fg = 1 - i if input_forget else f(_clip(gates[:, 2 * H:3 * H] + pf * c, clip))
            cc = g(_clip(gates[:, 3 * H:], clip))
            cn = fg * c + i * cc
            o = f(_clip(gates[:, H:2 * H] + po * cn, clip))
            hn = o * hf(cn)
            keep = mask[t, :, None]
            h = np.where(keep, hn, h)
            c = np.where(keep, cn, c)
            ys[t] = hn
        final_c.append(c)
        return ys, h

    y, finals = _run_directions(x, num_dirs, direction, sequence_lens, step_dir)
    cast = lambda v: v.astype(x.dtype, copy=False)  # noqa: E731
    return (cast(lay.y_out(y)), cast(lay.state_out(np.stack(finals))),
            cast(lay.state_out(np.stack(final_c))))
