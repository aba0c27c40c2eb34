"""Timing shared by the benchmark scripts."""
from __future__ import annotations

import gc
import statistics
import time


def interleaved_medians(fns, repeat: int) -> list[float]:
    """Median time of each function, measured interleaved (one call of each per
    round) so that drift in machine load hits all of them alike."""
    gc.collect()
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, bucket in zip(fns, times):
            t = time.perf_counter()
            fn()
            bucket.append(time.perf_counter() - t)
    return [statistics.median(b) for b in times]
