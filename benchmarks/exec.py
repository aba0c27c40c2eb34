"""Execution speed: our executor against onnxruntime and onnx.reference, one run.

    python benchmarks/exec.py [MODEL_DIR ...]     (default: ../shared/models/*)

A model folder holds model.onnx and inputs.npz (as in ../shared/models). For
each: median wall time of our `Session.run` (compiled once), onnxruntime's
InferenceSession.run (CPU, default threads) and ReferenceEvaluator.run, timed
in turn round after round so machine noise hits all three alike, and the
ratios ours/onnxruntime and reference/ours (how many times faster we are).
"""
from __future__ import annotations

import pathlib
import sys
import warnings

import numpy as np

from timing import block_medians

REPO = pathlib.Path(__file__).resolve().parent.parent


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.1f}"


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
        sess = Session(core.load(path))
        o = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        fns = [lambda: sess.run(feeds), lambda: o.run(None, feeds)]
        try:
            ref = ReferenceEvaluator(onnx.load(path))
            ref.run(None, feeds)
            fns.append(lambda: ref.run(None, feeds))
            failure = None
        except Exception as e:  # noqa: BLE001  (the reference lacks some ops)
            failure = f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"
        for fn in fns:      # warm up: first runs fold constants and fault pages in
            fn()
        medians = block_medians(fns, rounds=3, budget=6.0)
        ours, theirs = medians[:2]
        ref_s = _ms(medians[2]) if failure is None else "n/a"
        ratio_ref = f"{medians[2] / ours:.1f}" if failure is None else "n/a"
        print(f"{d.name:24} {_ms(ours):>9} {_ms(theirs):>9} {ref_s:>10} {ours / theirs:9.2f} {ratio_ref:>9}")
        if failure is not None:
            print(f"{'':24} (onnx.reference cannot run it: {failure})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
