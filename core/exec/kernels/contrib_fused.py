"""onnxruntime's fused float operators (domain com.microsoft), which its graph
optimizer writes into a model saved with `optimized_model_filepath` (and the
`onnxruntime.transformers` optimizers too): Gelu, FastGelu, BiasGelu,
QuickGelu, FusedMatMul, FusedGemm, FusedConv, SkipLayerNormalization,
SkipSimplifiedLayerNormalization; plus two onnxruntime operators that it
registers in the default domain: SimplifiedLayerNormalization, and
LayerNormalization below opset 17 (its fusion writes that op whatever the
model's opset).

These operators have no ONNX reference: each kernel here does what
onnxruntime's CPU kernels do (found by running one-node models), built from
the executor's own kernels for the unfused operators.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..registry import find_kernel, kernel
from ._conv_prepared import prepare_conv
from ._math_util import last_axis_mean, normalize_axis, onnx_dtype
from .conv import conv, conv_core
from .linalg import gemm_core, matmul_core
from .normalization import layer_norm

MS = "com.microsoft"


@functools.lru_cache(maxsize=None)
def _onnx(op: str, opset: int):
    """The executor's kernel for a standard operator (dtype handling
    included). Looked up on first use: by then the package has imported
    every kernel module, whatever their import order."""
    return find_kernel("", op, opset).fn


def _plus(x, y):
    """x + y in x's type (a bias never widens the activation's input)."""
    return x if y is None else (x + y).astype(x.dtype, copy=False)


def _onnx_gelu(x, approximate="none"):
    return _onnx("Gelu", 20)(x, approximate=approximate)


def _sigmoid(x):
    return _onnx("Sigmoid", 13)(x)


def _tanh(x):
    return _onnx("Tanh", 13)(x)


def _softplus(x):
    return _onnx("Softplus", 1)(x)


# ---- GELU family -----------------------------------------------------------

@kernel("Gelu", since=1, domain=MS)
def gelu(x):
    return _onnx_gelu(x)


@kernel("BiasGelu", since=1, domain=MS)
def bias_gelu(a, b):
    return _onnx_gelu(_plus(a, b))


@kernel("FastGelu", since=1, domain=MS)
def fast_gelu(x, bias=None):
    # the tanh approximation of GELU, which ONNX's Gelu-20 also offers
    return _onnx_gelu(_plus(x, bias), approximate="tanh")


@kernel("QuickGelu", since=1, domain=MS)
def quick_gelu(x, alpha=1.702):
    # x * sigmoid(alpha * x) is exactly ONNX's Swish
    return _onnx("Swish", 24)(x, alpha=alpha)


# ---- FusedMatMul -----------------------------------------------------------

def _fused_matmul_operand(x, trans_batch, trans):
    """The operand as FusedMatMul reads it: transBatch moves dimension 0 to
    just before the last one ([M, b1.., K] -> [b1.., M, K]), then trans swaps
    the last two. A vector stays a vector (onnxruntime ignores trans there)."""
    if x.ndim < 2:
        return x
    order = list(range(x.ndim))
    if trans_batch:
        order = order[1:-1] + [0, x.ndim - 1]
    if trans:
        order[-2], order[-1] = order[-1], order[-2]
    return x.transpose(order) if order != list(range(x.ndim)) else x


@kernel("FusedMatMul", since=1, domain=MS)
def fused_matmul(a, b, *, alpha=1.0, transA=0, transB=0, transBatchA=0, transBatchB=0):
    if (transBatchA or transBatchB) and (a.ndim != b.ndim or a.ndim < 3):
        raise ValueError(f"FusedMatMul: transBatchA/transBatchB need inputs of the same rank >= 3, "
                         f"got shapes {a.shape} and {b.shape}")
    # transA with a 1-D B: onnxruntime 1.32 reads A's buffer as if it were
    # already transposed (a reshape, not a transpose); we follow the
    # operator's definition and transpose.
    y = matmul_core(_fused_matmul_operand(a, transBatchA, transA), _fused_matmul_operand(b, transBatchB, transB))
    if alpha != 1.0:
        if y.flags.writeable:       # a fresh product of ours: scale it in place
            y *= y.dtype.type(alpha)
        else:
            y = y * y.dtype.type(alpha)
    return y


# ---- activations fused into Gemm and Conv -----------------------------------

def _scaled_tanh(x, alpha, beta):
    t = x.dtype.type
    return t(alpha) * _tanh(t(beta) * x)


def _parametric_softplus(x, alpha, beta):
    t = x.dtype.type
    return t(alpha) * _softplus(t(beta) * x)


def _standard(op: str, opset: int, *params: str):
    """An ONNX activation whose attributes are the fused activation's
    parameters, in order."""
    return lambda x, *values: _onnx(op, opset)(x, **dict(zip(params, values)))


# activation name -> (parameter names, function of x and those parameters)
_GEMM_ACTIVATIONS = {
    "Relu": ((), _standard("Relu", 14)),
    "LeakyRelu": (("alpha",), _standard("LeakyRelu", 16, "alpha")),
    "Sigmoid": ((), _sigmoid),
    "Tanh": ((), _tanh),
    "HardSigmoid": (("alpha", "beta"), _standard("HardSigmoid", 6, "alpha", "beta")),
    "Elu": (("alpha",), _standard("Elu", 6, "alpha")),
    "Selu": (("alpha", "gamma"), _standard("Selu", 6, "alpha", "gamma")),
    "Softplus": ((), _softplus),
    "Softsign": ((), _standard("Softsign", 1)),
    "ThresholdedRelu": (("alpha",), _standard("ThresholdedRelu", 10, "alpha")),
    # two activations ONNX dropped (opset 10) that onnxruntime still fuses
    "ScaledTanh": (("alpha", "beta"), _scaled_tanh),
    "ParametricSoftplus": (("alpha", "beta"), _parametric_softplus),
}


def _gemm_activation(name, alpha, beta, gamma):
    """FusedGemm's activation as a function of x; like onnxruntime, a
    parameter the activation uses must be given (no ONNX defaults)."""
    if name is None:
        raise ValueError("FusedGemm needs the attribute activation (onnxruntime rejects the node without it)")
    if name not in _GEMM_ACTIVATIONS:
        raise ValueError(f"FusedGemm: unknown activation {name!r}; onnxruntime knows "
                         + ", ".join(sorted(_GEMM_ACTIVATIONS)))
    params, fn = _GEMM_ACTIVATIONS[name]
    given = {"alpha": alpha, "beta": beta, "gamma": gamma}
    missing = [p for p in params if given[p] is None]
    if missing:
        raise ValueError(f"FusedGemm: activation {name} needs the attribute activation_{missing[0]}")
    values = [given[p] for p in params]
    return lambda x: fn(x, *values)


@kernel("FusedGemm", since=1, domain=MS)
def fused_gemm(a, b, c=None, *, alpha=1.0, beta=1.0, transA=0, transB=0, activation=None,
               activation_alpha=None, activation_beta=None, activation_gamma=None):
    act = _gemm_activation(activation, activation_alpha, activation_beta, activation_gamma)
    return act(gemm_core(a, b, c, alpha, beta, transA, transB))


def _clip(x, low, high):
    t = x.dtype.type
    return np.clip(x, t(low), t(high))


# activation name -> (number of activation_params, function); onnxruntime
# wants exactly that many parameters
_CONV_ACTIVATIONS = {
    "Relu": (0, _GEMM_ACTIVATIONS["Relu"][1]),
    "Tanh": (0, _tanh),
    "Sigmoid": (0, _sigmoid),
    "LeakyRelu": (1, _GEMM_ACTIVATIONS["LeakyRelu"][1]),
    "Clip": (2, _clip),
    "HardSigmoid": (2, _GEMM_ACTIVATIONS["HardSigmoid"][1]),
}


def _conv_activation(name, params):
    if name is None:
        return None
    if name not in _CONV_ACTIVATIONS:
        raise ValueError(f"FusedConv: unknown activation {name!r}; onnxruntime knows "
                         + ", ".join(sorted(_CONV_ACTIVATIONS)))
    count, fn = _CONV_ACTIVATIONS[name]
    params = list(params or [])
    if count and len(params) != count:
        raise ValueError(f"FusedConv: activation {name} needs {count} activation_params, got {len(params)}")
    values = params[:count]
    return lambda x: fn(x, *values)


def _finish_conv(y, z, act):
    """Z (a residual added before the activation, onnxruntime's Conv+Add
    fusion), then the activation."""
    if z is not None:
        z = z.astype(y.dtype, copy=False)
        if y.flags.writeable and np.broadcast_shapes(y.shape, z.shape) == y.shape:
            y += z          # the convolution's result is a fresh array of ours
        else:
            y = y + z
    return y if act is None else act(y)


_CONV_ATTRS = ("auto_pad", "dilations", "group", "kernel_shape", "pads", "strides")


def _prepare_fused_conv(consts, attrs):
    conv_attrs = {k: v for k, v in attrs.items() if k in _CONV_ATTRS}
    prepared = prepare_conv(tuple(consts[:3]), conv_attrs, conv_core, conv)
    if prepared is None:
        return None
    act = _conv_activation(attrs.get("activation"), attrs.get("activation_params"))

    def run(x, w, b=None, z=None):
        return _finish_conv(prepared(x, w, b), z, act)
    return run


@kernel("FusedConv", since=1, domain=MS, prepare=_prepare_fused_conv)
def fused_conv(x, w, b=None, z=None, *, activation=None, activation_params=None, auto_pad="NOTSET",
               dilations=None, group=1, kernel_shape=None, pads=None, strides=None):
    act = _conv_activation(activation, activation_params)
    y = conv(x, w, b, auto_pad=auto_pad, dilations=dilations, group=group, kernel_shape=kernel_shape,
             pads=pads, strides=strides)
    return _finish_conv(y, z, act)


# ---- normalizations ----------------------------------------------------------

def _stat_work_dtype(x):
    # statistics in float32 at least, as onnxruntime does for float16
    return np.promote_types(x.dtype, np.float32) if x.dtype.kind == "f" else np.dtype(np.float32)


def _skip_sum(x, skip, bias):
    """input + skip (+ bias) in the statistics' type (float16 adds in float32
    and is rounded once, as onnxruntime does); skip may lack the batch
    dimension ([seq, hidden] or [1, seq, hidden] against [batch, seq, hidden])."""
    work = _stat_work_dtype(x)
    s = x.astype(work, copy=False) + skip.astype(work, copy=False)
    if bias is not None:
        s += bias.astype(work, copy=False)
    return s


def _rms_inverse(xs, epsilon):
    """1 / sqrt(mean(x^2) + epsilon) over the last axis, kept as size 1."""
    mean_square = last_axis_mean(np.square(xs))
    mean_square += xs.dtype.type(epsilon)
    return np.reciprocal(np.sqrt(mean_square, out=mean_square), out=mean_square)


@kernel("SkipLayerNormalization", since=1, domain=MS)
def skip_layer_norm(x, skip, gamma, beta=None, bias=None, *, epsilon=1e-12):
    s = _skip_sum(x, skip, bias)
    y, mean, inv_std = layer_norm(s, gamma, beta, axis=-1, epsilon=epsilon)
    # mean and inv_std_var are float (U) whatever the input type
    return (y.astype(x.dtype, copy=False), mean.astype(np.float32, copy=False),
            inv_std.astype(np.float32, copy=False), s.astype(x.dtype, copy=False))


@kernel("SkipSimplifiedLayerNormalization", since=1, domain=MS)
def skip_simplified_layer_norm(x, skip, gamma, bias=None, *, epsilon=1e-12):
    s = _skip_sum(x, skip, bias)
    inv = _rms_inverse(s, epsilon)
    y = (s * inv * gamma.astype(s.dtype, copy=False)).astype(x.dtype, copy=False)
    # An RMS norm has no mean; onnxruntime's "mean" output holds zeros.
    mean = np.zeros(inv.shape, np.float32)
    return y, mean, inv.astype(np.float32, copy=False), s.astype(x.dtype, copy=False)


@kernel("SimplifiedLayerNormalization", since=1)
def simplified_layer_norm(x, scale, *, axis=-1, epsilon=1e-5, stash_type=1):
    """onnxruntime's RMS normalization in the default domain (before ONNX had
    RMSNormalization-23): the statistics run over the axes from `axis` on."""
    axis = normalize_axis(axis, x.ndim)
    work = x.astype(np.promote_types(_stat_work_dtype(x), onnx_dtype(stash_type)), copy=False)
    rows = work.reshape(x.shape[:axis] + (math.prod(x.shape[axis:]),))
    inv = _rms_inverse(rows, epsilon)
    y = (rows * inv).reshape(x.shape) * scale.astype(work.dtype, copy=False)
    # Y has the scale's type (onnxruntime's V), the statistic stash_type's
    inv_shape = x.shape[:axis] + (1,) * (x.ndim - axis)
    return y.astype(scale.dtype, copy=False), inv.reshape(inv_shape).astype(onnx_dtype(stash_type), copy=False)


@kernel("LayerNormalization", since=1)
def layer_norm_before_17(x, scale, b=None, *, axis=-1, epsilon=1e-5, stash_type=1):
    """onnxruntime's LayerNormalization from before ONNX adopted it at opset
    17 (same inputs, outputs and attributes); its layer-norm fusion writes it
    into models of any opset."""
    return layer_norm(x, scale, b, axis=axis, epsilon=epsilon, stash_type=stash_type)
