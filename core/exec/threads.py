"""How many threads the BLAS under numpy may use.

The executor runs its kernels on one Python thread; only the BLAS behind
numpy's matrix products (OpenBLAS in numpy's wheels) runs threads of its
own, one per core by default. So there is nothing of ours to oversubscribe
the machine with: the one knob is the BLAS thread count, which benchmarks
set to compare with onnxruntime at equal threads, and which a caller may
lower when other work shares the cores. Found through the symbols of the
OpenBLAS library already loaded in the process (Linux only; elsewhere the
functions report None and change nothing).
"""
from __future__ import annotations

import ctypes
from contextlib import contextmanager
from typing import Optional

_PREFIXES = ("scipy_openblas", "openblas")
_SUFFIXES = ("64_", "")
_lib: Optional[tuple] = None


def _openblas():
    """(set_num_threads, get_num_threads, get_corename) of the loaded OpenBLAS, or ()."""
    global _lib
    if _lib is not None:
        return _lib
    _lib = ()
    import numpy  # noqa: F401  (loads numpy's BLAS, whose path we look up below)
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            paths = {line.split()[-1] for line in f if "openblas" in line.lower() and "/" in line}
    except OSError:
        return _lib
    for path in sorted(paths):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for prefix in _PREFIXES:
            for suffix in _SUFFIXES:
                try:
                    set_n = getattr(lib, f"{prefix}_set_num_threads{suffix}")
                    get_n = getattr(lib, f"{prefix}_get_num_threads{suffix}")
                except AttributeError:
                    continue
                get_n.restype = ctypes.c_int
                set_n.argtypes = [ctypes.c_int]
                core = getattr(lib, f"{prefix}_get_corename{suffix}", None)
                if core is not None:
                    core.restype = ctypes.c_char_p
                _lib = (set_n, get_n, core)
                return _lib
    return _lib


def blas_threads() -> Optional[int]:
    lib = _openblas()
    return int(lib[1]()) if lib else None


def set_blas_threads(n: int) -> Optional[int]:
    """Use `n` BLAS threads from now on; returns the previous count (None if unknown)."""
    lib = _openblas()
    if not lib:
        return None
    before = int(lib[1]())
    lib[0](max(1, int(n)))
    return before


def blas_core() -> Optional[str]:
    """The CPU kernel family OpenBLAS chose (Haswell, SkylakeX ...), for benchmark notes."""
    lib = _openblas()
    if not lib or lib[2] is None:
        return None
    return lib[2]().decode(errors="replace")


@contextmanager
def limited_blas_threads(n: int):
    before = set_blas_threads(n)
    try:
        yield
    finally:
        if before is not None:
            set_blas_threads(before)
