"""Signal processing: DFT (opset 17 attribute axis, opset 20 input axis),
STFT, Hann/Hamming/Blackman windows, MelWeightMatrix.

Complex values travel as a trailing axis of size 2 (real, imaginary); a real
signal has a trailing axis of size 1.
"""
from __future__ import annotations

import numpy as np

from ...ir.dtypes import to_numpy_dtype
from ..registry import kernel


def _to_complex(x):
    if x.shape[-1] == 1:
        return x[..., 0].astype(np.float64)
    return x[..., 0].astype(np.float64) + 1j * x[..., 1].astype(np.float64)


def _split_complex(z, dtype):
    return np.stack([z.real, z.imag], axis=-1).astype(dtype)


def _dft(x, dft_length, axis, inverse, onesided):
    axis = axis % x.ndim
    if axis == x.ndim - 1:
        raise ValueError("DFT axis must not be the trailing (real, imaginary) axis")
    n = None if dft_length is None else int(np.asarray(dft_length).reshape(-1)[0])
    if n is None:
        n = 2 * (x.shape[axis] - 1) if inverse and onesided else x.shape[axis]
    z = _to_complex(x)
    if inverse:
        if onesided:        # one-sided spectrum in, real signal out
            return np.fft.irfft(z, n=n, axis=axis)[..., None].astype(x.dtype)
        return _split_complex(np.fft.ifft(z, n=n, axis=axis), x.dtype)
    out = np.fft.fft(z, n=n, axis=axis)
    if onesided:
        out = np.take(out, np.arange(n // 2 + 1), axis=axis)
    return _split_complex(out, x.dtype)


@kernel("DFT", since=17)
def dft_v17(x, dft_length=None, *, axis=1, inverse=0, onesided=0):
    return _dft(x, dft_length, axis, inverse, onesided)


@kernel("DFT", since=20)
def dft(x, dft_length=None, axis=None, *, inverse=0, onesided=0):
    ax = -2 if axis is None else int(np.asarray(axis).reshape(-1)[0])
    return _dft(x, dft_length, ax, inverse, onesided)


@kernel("STFT", since=17)
def stft(signal, frame_step, window=None, frame_length=None, *, onesided=1):
    step = int(np.asarray(frame_step).reshape(-1)[0])
    if frame_length is not None:
        length = int(np.asarray(frame_length).reshape(-1)[0])
    else:
        length = window.shape[0] if window is not None else signal.shape[-2]
    z = _to_complex(signal)                                   # (batch, samples)
    frames = 1 + (z.shape[-1] - length) // step
    # frames as a strided view: (batch, frames, length), no copy until windowing
    view = np.lib.stride_tricks.sliding_window_view(z, length, axis=-1)[:, ::step][:, :frames]
    if window is not None:
        view = view * window.astype(np.float64)
    spec = np.fft.fft(view, n=length, axis=-1)
    if onesided:
        spec = spec[..., : length // 2 + 1]
    return _split_complex(spec, signal.dtype)


def _window_positions(size, periodic):
    n = int(np.asarray(size).reshape(-1)[0])
    denom = n if periodic else n - 1
    return np.arange(n, dtype=np.float64), denom


def _out_dtype(code):
    return to_numpy_dtype(code)


@kernel("HannWindow", since=17)
def hann_window(size, *, output_datatype=1, periodic=1):
    k, denom = _window_positions(size, periodic)
    return (np.sin(np.pi * k / denom) ** 2).astype(_out_dtype(output_datatype))


@kernel("HammingWindow", since=17)
def hamming_window(size, *, output_datatype=1, periodic=1):
    k, denom = _window_positions(size, periodic)
    alpha = 25.0 / 46.0
    return (alpha - (1 - alpha) * np.cos(2 * np.pi * k / denom)).astype(_out_dtype(output_datatype))


@kernel("BlackmanWindow", since=17)
def blackman_window(size, *, output_datatype=1, periodic=1):
    k, denom = _window_positions(size, periodic)
    w = 0.42 - 0.5 * np.cos(2 * np.pi * k / denom) + 0.08 * np.cos(4 * np.pi * k / denom)
    return w.astype(_out_dtype(output_datatype))


def _scalar(v):
    return np.asarray(v).reshape(-1)[0]


@kernel("MelWeightMatrix", since=17)
def mel_weight_matrix(num_mel_bins, dft_length, sample_rate, lower_edge_hertz, upper_edge_hertz, *,
                      output_datatype=1):
    bins, n_fft, rate = int(_scalar(num_mel_bins)), int(_scalar(dft_length)), int(_scalar(sample_rate))
    lo_hz, hi_hz = float(_scalar(lower_edge_hertz)), float(_scalar(upper_edge_hertz))
    to_mel = lambda hz: 2595.0 * np.log10(1.0 + hz / 700.0)  # noqa: E731
    lo_mel, hi_mel = to_mel(lo_hz), to_mel(hi_hz)
    # bins + 2 equally spaced mel points (the step divides by bins + 2, as
    # the reference data does), mapped back to spectrogram bin indices
    mel = np.arange(bins + 2) * ((hi_mel - lo_mel) / (bins + 2)) + lo_mel
    hz = 700.0 * (10.0 ** (mel / 2595.0) - 1.0)
    edge = (((n_fft + 1) * hz) // rate).astype(np.int64)
    out = np.zeros((n_fft // 2 + 1, bins), dtype=np.float64)
    for i in range(bins):
        left, center, right = edge[i], edge[i + 1], edge[i + 2]
        if center == left:
            out[center, i] = 1.0
        else:
            j = np.arange(left, center + 1)
            out[j, i] = (j - left) / (center - left)
        if right > center:
            j = np.arange(center, right)
            out[j, i] = (right - j) / (right - center)
    return out.astype(_out_dtype(output_datatype))
