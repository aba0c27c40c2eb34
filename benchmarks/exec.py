"""Execution speed: our executor against onnxruntime and onnx.reference, one run.

    python benchmarks/exec.py [MODEL_DIR ...]     (default: ../shared/models/*)

A model folder holds model.onnx and inputs.npz (as in ../shared/models). For
each: median wall time of our `Session.run` (compiled once), onnxruntime's
InferenceSession.run (CPU, default threads) and ReferenceEvaluator.run, and
the ratios ours/onnxruntime and reference/ours (how many times faster we are).
"""
from __future__ import annotations

import pathlib
import statistics
import sys
import time
import warnings

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent


def _median(fn, repeat: int, budget: float = 2.0, most: int = 300) -> float:
    """Median of at least `repeat` calls, more (up to `most`) while they fit
    in `budget` seconds: sub-millisecond models need many samples."""
    times = []
    start = time.perf_counter()
    while len(times) < most:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        if len(times) >= repeat and time.perf_counter() - start > budget:
            break
    return statistics.median(times)


def main(argv: list[str]) -> int:
    import onnx
    import onnxruntime as ort
    from onnx.reference import ReferenceEvaluator

    from onnxstudio import core
    from onnxstudio.core.exec import Session

    warnings.simplefilter("ignore")
    dirs = [pathlib.Path(p) for p in argv] or sorted(p.parent for p in (REPO.parent / "shared" / "models").glob("*/model.onnx"))
    print(f"{'model':24} {'ours ms':>9} {'ort ms':>9} {'ref ms':>10} {'ours/ort':>9} {'ref/ours':>9}")
    for d in dirs:
        path = d / "model.onnx"
        feeds = dict(np.load(d / "inputs.npz"))
        model = core.load(path)
        sess = Session(model)
        sess.run(feeds)
        ours = _median(lambda: sess.run(feeds), 5)
        o = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        o.run(None, feeds)
        theirs = _median(lambda: o.run(None, feeds), 20)
        try:
            ref = ReferenceEvaluator(onnx.load(path))
            ref_t = _median(lambda: ref.run(None, feeds), 2, budget=5)
            ref_s = f"{ref_t * 1e3:10.1f}"
            ratio_ref = f"{ref_t / ours:9.1f}"
        except Exception as e:  # noqa: BLE001  (the reference lacks some ops)
            ref_s, ratio_ref = f"{'n/a':>10}", f"{type(e).__name__[:9]:>9}"
        print(f"{d.name:24} {ours * 1e3:9.1f} {theirs * 1e3:9.1f} {ref_s} {ours / theirs:9.2f} {ratio_ref}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
