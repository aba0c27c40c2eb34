"""Timing shared by the benchmark scripts."""
from __future__ import annotations

import gc
import statistics
import time


def interleaved_medians(fns, repeat: int) -> list[float]:
    """Median time of each function, measured interleaved (one call of each per
    round) so that drift in machine load hits all of them alike. Each call
    runs right after the others, so it meets the caches and the allocator as
    they left them: closer to a single call in an application than to a
    tight loop (block_medians)."""
    gc.collect()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, bucket in zip(fns, times):
            t = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - t)
    return [statistics.median(b) for b in times]


def block_medians(fns, rounds: int, budget: float, block: float = 0.25) -> list[float]:
    """Median time per call of each callable, measured in blocks taken in
    turn (so a busy spell on the shared machine hits all of them alike): at
    least `rounds` rounds, more while they fit in `budget` seconds. A block
    runs one callable for about `block` seconds and drops its first call, so
    each is timed in its own steady state: warm caches, and none of the
    others' after-effects (onnxruntime's worker threads keep spinning for a
    while after a run and would slow whatever is timed next)."""
    return [statistics.median(ts) for ts in block_times(fns, rounds, budget, block)]


def block_minima(fns, rounds: int, budget: float, block: float = 0.25) -> list[float]:
    """The fastest call of each callable, timed as block_medians times them."""
    return [min(ts) for ts in block_times(fns, rounds, budget, block)]


def block_times(fns, rounds: int, budget: float, block: float = 0.25) -> list[list[float]]:
    """Every timed call of each callable, in blocks (see block_medians)."""
    gc.collect()
    times: list[list[float]] = [[] for _ in fns]
    start = time.perf_counter()
    r = 0
    while r < rounds or time.perf_counter() - start < budget:
        for fn, ts in zip(fns, times):
            block_start = time.perf_counter()
            calls = 0
            while calls < 2 or time.perf_counter() - block_start < block:
                t = time.perf_counter()
                fn()
                if calls:
                    ts.append(time.perf_counter() - t)
                calls += 1
        r += 1
    return times
