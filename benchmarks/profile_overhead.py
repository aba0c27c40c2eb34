"""What time per node costs: a plain repeated run against a profiled one.

    python benchmarks/profile_overhead.py [MODEL_DIR ...]   (default: bert_small, bert_12layer_narrow,
                                                            ppocr_v4_det, silero_vad)

For each model (a folder with model.onnx and inputs.npz), on one BLAS
thread: the fastest `Session.run` of a session that was never profiled,
of a session after profiled runs (the runners must be the same: a plain
run pays nothing for profiling), and of `Session.timed_run` (the runners
timed one by one), timed block after block in turn so machine noise hits
all alike; then the share of the profiled run's wall time its node times
cover (the issue asks for within 10 %).
"""
from __future__ import annotations

import pathlib
import sys
import warnings

import numpy as np

from timing import block_minima

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))


def main(argv: list[str]) -> None:
    from shared_models import SHARED_MODELS
    from onnxstudio.core import load
    from onnxstudio.core.exec import Session
    from onnxstudio.core.exec.profile import Profiler
    from onnxstudio.core.exec.threads import limited_blas_threads

    folders = [pathlib.Path(a) for a in argv] or [SHARED_MODELS / n for n in
                                                  ("bert_small", "bert_12layer_narrow", "ppocr_v4_det", "silero_vad")]
    print(f"{'model':<22} {'plain ms':>9} {'after ms':>9} {'timed ms':>9} {'timed/plain':>11} {'nodes/wall':>10}")
    warnings.simplefilter("ignore", RuntimeWarning)
    with limited_blas_threads(1):
        for folder in folders:
            model = load(folder / "model.onnx")
            feeds = dict(np.load(folder / "inputs.npz"))
            plain = Session(model)
            plain.run(feeds)
            profiler = Profiler(model, runs=3)
            profile = profiler.run(feeds)
            after = profiler.session
            plain_t, after_t, timed_t = block_minima(
                [lambda: plain.run(feeds), lambda: after.run(feeds), lambda: after.timed_run(feeds)],
                rounds=3, budget=6.0)
            print(f"{folder.name:<22} {plain_t * 1e3:9.3f} {after_t * 1e3:9.3f} {timed_t * 1e3:9.3f} "
                  f"{timed_t / plain_t:11.2f} {profile.total / profile.wall:10.1%}")


if __name__ == "__main__":
    main(sys.argv[1:])
