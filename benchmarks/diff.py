"""Matching time and memory of `core.diff.diff_models` (issue 24): a model
against a copy with every node and value renamed (the hardest case for
names: everything must be paired by structure), and against a copy whose
same-op neighbours exchanged their names (names pair crosswise, and the
matching checks them against the wiring), for bert_12layer_narrow (shared
model), and for synthetic transformers of 2,500 nodes (bert_base's size)
and 10,000 nodes. Memory is tracemalloc's peak during the diff
(Python allocations, the models themselves excluded: they are loaded
before), in a run of its own. The time is the best of --repeat runs.

    .venv/bin/python benchmarks/diff.py [--repeat 3]
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time
import tracemalloc

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]   # tests/ first: its diff package, not this file


def _pair(path, change):
    from onnxstudio.core import load
    a, b = load(path), load(path)
    change(b)
    a.graph    # noqa: B018  (built now: building the graph is the load's time, not the diff's)
    return a, b


def _measure(label: str, path, repeat: int, change) -> None:
    from onnxstudio.core.diff import diff_models
    best, d = float("inf"), None
    for _ in range(repeat):
        a, b = _pair(path, change)
        t = time.perf_counter()
        d = diff_models(a, b)
        best = min(best, time.perf_counter() - t)
    # Memory in a run of its own: tracemalloc slows Python down several times.
    a, b = _pair(path, change)
    tracemalloc.start()
    diff_models(a, b)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    nodes = sum(len(g.nodes) for g in a.graph.walk())
    print(f"{label:48s} {nodes:6d} nodes  matched {d.matched:6d} ({100 * d.matched / nodes:5.1f} %)  "
          f"changed {len(d.changed):5d}  {best:6.2f} s  peak {peak / 2**20:6.1f} MiB")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    import onnx

    import synthetic_model
    # tests/diff/models.py: the same changes the tests make
    from diff.models import exchange_adjacent_names, rename_everything
    from shared_models import SHARED_MODELS
    changes = (("renamed", rename_everything), ("neighbours' names exchanged", exchange_adjacent_names))
    bert = SHARED_MODELS / "bert_12layer_narrow" / "model.onnx"
    for what, change in changes:
        _measure(f"bert_12layer_narrow {what}", bert, args.repeat, change)
    with tempfile.TemporaryDirectory() as tmp:
        for n in (2_500, 10_000):
            path = pathlib.Path(tmp) / f"synthetic_{n}.onnx"
            onnx.save(synthetic_model.build(n, hidden=16), path)
            for what, change in changes:
                _measure(f"synthetic {n} {what}", path, args.repeat, change)


if __name__ == "__main__":
    main()
