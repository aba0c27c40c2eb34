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
import threading
import time
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


# Products the probe below computes on one thread and on all of them: sizes
# of the attention and projection products of small transformers, where
# OpenBLAS takes its blocked, threaded path (tiny products run one kernel
# whatever the count). float32 and float64: sgemm and dgemm differ.
_PROBES = (((128, 128), (128, 512)), ((2, 128, 64), (2, 64, 128)), ((128, 512), (512, 128)))
_KEEPS_BITS: dict = {}      # thread count -> whether one thread gives the same bits


def thread_count_keeps_bits(available: int) -> bool:
    """Whether this machine's BLAS computes a product to the same bits on
    one thread as on `available` threads (measured once per count, a few
    milliseconds).

    It is not so everywhere: OpenBLAS 0.3.31 with its Haswell kernels (an
    AMD EPYC) gives products differing by up to 3e-5 in absolute terms
    between one and two threads, its one-thread path summing in another
    order, while on other CPUs the bits agree. Where they differ, changing
    the count between runs makes two runs of one model on the same inputs
    disagree in their last bits, and a node run alone disagree with the
    run it is compared with: callers that would change it keep it instead.
    Call on the main thread (the setting is process-wide)."""
    known = _KEEPS_BITS.get(available)
    if known is not None:
        return known
    import numpy as np
    rng = np.random.default_rng(0)
    pairs = [(rng.standard_normal(a).astype(dt), rng.standard_normal(b).astype(dt))
             for a, b in _PROBES for dt in (np.float32, np.float64)]
    with limited_blas_threads(1):
        alone = [a @ b for a, b in pairs]
    with limited_blas_threads(available):
        keeps = all(np.array_equal(x, a @ b) for x, (a, b) in zip(alone, pairs))
    _KEEPS_BITS[available] = keeps
    return keeps


class ThreadTuner:
    """Chooses, run after run, between one BLAS thread and all of them.

    On a machine whose cores are busy with other work, OpenBLAS's threads
    wait for each other (each takes a fixed share of a product, and a share
    whose thread is not scheduled holds up the rest): measured here on two
    busy cores, products of every size ran 2-13x slower on two threads than
    on one. On idle cores two threads are faster for large products. Which
    is better is only known by trying, so a session times its repeated runs
    under both settings and keeps the faster, trying the other again after
    a number of runs that doubles each time it loses (a slow setting costs
    a few percent at most), and at once when it wins. Only where one thread
    and several give the same bits (`thread_count_keeps_bits`): elsewhere
    the count is left as it is, so repeated runs stay equal to the bit.

    Runs under a millisecond stop being tuned (BLAS is not their cost); a
    caller who set one BLAS thread is left alone. Only runs on the main
    thread are tuned: the setting is process-wide, and a run on a worker
    thread (the app's) must not change it under BLAS calls that other
    threads may be making at that moment.
    """
    SMALL = 1e-3
    MAX_GAP = 256

    def __init__(self):
        self._best: dict = {}       # thread count -> recent times (newest last, three at most)
        self._runs = 0
        self._tried: dict = {}      # thread count -> run number it was last tried on
        self._gap = 8
        self._small = False
        self._exploring = False

    def run(self, fn):
        if self._small or threading.current_thread() is not threading.main_thread():
            return fn()
        available = blas_threads()
        if not available or available <= 1 or not thread_count_keeps_bits(available):
            return fn()
        n = self._pick(available)
        if n != available:
            set_blas_threads(n)
        start = time.perf_counter()
        try:
            result = fn()
        finally:
            if n != available:
                set_blas_threads(available)
        self._record(n, available, time.perf_counter() - start)
        return result

    def _pick(self, available: int) -> int:
        self._runs += 1
        self._exploring = False
        for n in (available, 1):
            if len(self._best.get(n, ())) < 2:
                return n
        fast, slow = sorted((available, 1), key=lambda n: min(self._best[n]))
        if self._runs - self._tried.get(slow, 0) >= self._gap:
            self._exploring = True
            return slow
        return fast

    def _record(self, n: int, available: int, seconds: float) -> None:
        times = self._best.setdefault(n, [])
        times.append(seconds)
        del times[:-3]
        self._tried[n] = self._runs
        if len(times) >= 2 and max(times) < self.SMALL:
            self._small = True
        elif self._exploring:
            other = self._best[1 if n != 1 else available]
            # the setting that was behind wins now: compare often; else less and less
            self._gap = 8 if seconds < min(other) else min(self.MAX_GAP, self._gap * 2)
