"""Execution speed: our executor against onnxruntime and onnx.reference, one run.

    python benchmarks/exec.py [--quick] [--min] [MODEL_DIR ...]   (default: ../shared/models/* and the decoder)

A model folder holds model.onnx and inputs.npz (as in ../shared/models). For
each, the median wall time of our `Session.run` (compiled once) and of
onnxruntime's InferenceSession.run (CPU), both on one thread (our BLAS set to
one thread, onnxruntime's intra- and inter-op pools to one) and both with
their default threads, and of onnx.reference's ReferenceEvaluator.run; timed
in turn, block after block, so machine noise hits all alike. Ratios are
ours / onnxruntime (lower is better) and reference / ours (how many times
faster than the reference we are). With --min each figure is the fastest
call instead of the median: on a machine shared with other work the
slow calls are the ones other processes interrupted, so the minimum is the
steadier measure of what the code itself costs.

The synthetic GPT-2-like decoder (synthetic_decoder.py: 6 layers, hidden
256, KV cache) is timed on a 64-token prompt (ms) and on decoding 16 tokens
one at a time from that prompt's cache (tokens per second).

On machines where OPENBLAS_CORETYPE pins an older kernel family (see the
header line), numpy's matrix products run slower than they could; for
figures of the current kernels run `env -u OPENBLAS_CORETYPE -u
OPENBLAS_L2_SIZE python benchmarks/exec.py` (never in tests or CI).
"""
from __future__ import annotations

import os
import pathlib
import sys
import tempfile
import warnings

import numpy as np

from timing import block_medians, block_minima

USE_MIN = False     # --min: fastest call per contender instead of the median

REPO = pathlib.Path(__file__).resolve().parent.parent
DECODE_TOKENS = 16
PROMPT = 64


def _ms(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.1f}"


class _Contenders:
    """The callables for one model: ours and onnxruntime at 1 and default threads, the reference."""

    def __init__(self, path, make_call):
        import onnx
        import onnxruntime as ort
        from onnx.reference import ReferenceEvaluator

        from onnxstudio import core
        from onnxstudio.core.exec import Session
        from onnxstudio.core.exec.threads import blas_threads, set_blas_threads

        self.default_threads = blas_threads() or 1
        sess = Session(core.load(path))
        one = ort.SessionOptions()
        one.intra_op_num_threads = one.inter_op_num_threads = 1
        ort1 = ort.InferenceSession(str(path), one, providers=["CPUExecutionProvider"])
        ortd = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        names = [o.name for o in ortd.get_outputs()]

        def ours(feeds):
            return sess.run(feeds)

        def ours_one_thread(feeds):
            set_blas_threads(1)
            try:
                return sess.run(feeds)
            finally:
                set_blas_threads(self.default_threads)

        self.fns = [make_call(ours_one_thread), make_call(lambda f: dict(zip(names, ort1.run(None, f)))),
                    make_call(ours), make_call(lambda f: dict(zip(names, ortd.run(None, f))))]
        self.failure = None
        try:
            ref = ReferenceEvaluator(onnx.load(path))
            ref_call = make_call(lambda f: dict(zip(names, ref.run(None, f))))
            ref_call()
            self.fns.append(ref_call)
        except Exception as e:  # noqa: BLE001  (the reference lacks some ops)
            self.failure = f"{type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}"

    def measure(self, budget: float) -> list:
        for fn in self.fns:      # warm up: first runs fold constants and fault pages in
            fn()
        if USE_MIN:
            return block_minima(self.fns, rounds=3, budget=budget)
        return block_medians(self.fns, rounds=3, budget=budget)


def _row(label, medians, failure, unit=_ms):
    o1, r1, od, rd = medians[:4]
    ref = medians[4] if failure is None else None
    ref_s = unit(ref) if ref is not None else "n/a"
    ratio_ref = f"{ref / od:.1f}" if ref is not None else "n/a"
    print(f"{label:26} {unit(o1):>8} {unit(r1):>8} {o1 / r1:7.2f}   {unit(od):>8} {unit(rd):>8} {od / rd:7.2f}"
          f"   {ref_s:>9} {ratio_ref:>8}")
    if failure is not None:
        print(f"{'':26} (onnx.reference cannot run it: {failure})")


def _decoder_rows(budget: float) -> None:
    import onnx

    import synthetic_decoder as sd
    model = sd.build()
    layers = 6
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "decoder.onnx"
        onnx.save(model, path)
        prompt = sd.prompt_feeds(length=PROMPT)
        c = _Contenders(path, lambda run: (lambda: run(prompt)))
        _row(f"decoder prompt ({PROMPT} tok)", c.measure(budget), c.failure)

        cache = c.fns[2]()   # our prompt outputs seed every decode, so all decode the same tokens
        tokens = np.random.default_rng(2).integers(0, 8192, DECODE_TOKENS)

        def decode(run):
            def go():
                out = cache
                for i, t in enumerate(tokens):
                    out = run(sd.next_feeds(out, int(t), PROMPT + i, layers))
                return out
            return go
        d = _Contenders(path, decode)
        medians = d.measure(budget)
        _row("decoder decode (tok/s)", medians, d.failure, unit=lambda s: f"{DECODE_TOKENS / s:.0f}")
        print(f"{'':26} (per token ms: ours {_ms(medians[0] / DECODE_TOKENS)} / {_ms(medians[2] / DECODE_TOKENS)}, "
              f"onnxruntime {_ms(medians[1] / DECODE_TOKENS)} / {_ms(medians[3] / DECODE_TOKENS)}; "
              "ratios are time ratios)")


def _step_row() -> None:
    """What one Step (F10) costs on a 10k-node graph, beyond the node's own compute."""
    import time

    import onnx

    import synthetic_model
    from onnxstudio import core
    from onnxstudio.core.exec import Session
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "big.onnx"
        onnx.save(synthetic_model.build(10_000, hidden=16), path)
        s = Session(core.load(path), keep=True)
        s.start({"input_embeddings": np.random.default_rng(0).random((1, 8, 16), dtype=np.float32)})
        times = []
        while not s.done:
            t = time.perf_counter()
            s.step()
            times.append(time.perf_counter() - t)
    times = np.array(times) * 1e3
    print(f"step on a {len(times)}-node model (keep=True, tiny tensors): median {np.median(times):.3f} ms, "
          f"99th percentile {np.percentile(times, 99):.3f} ms, slowest {times.max():.1f} ms")


def main(argv: list[str]) -> int:
    from onnxstudio.core.exec.threads import blas_core, blas_threads

    warnings.simplefilter("ignore")
    global USE_MIN
    quick = "--quick" in argv
    USE_MIN = "--min" in argv
    argv = [a for a in argv if a not in ("--quick", "--min")]
    budget = 2.0 if quick else 6.0
    dirs = [pathlib.Path(p) for p in argv] or sorted(
        p.parent for p in (REPO.parent / "shared" / "models").glob("*/model.onnx"))
    print(f"OpenBLAS kernels {blas_core()}, {blas_threads()} threads by default; OPENBLAS_CORETYPE="
          f"{os.environ.get('OPENBLAS_CORETYPE', '(unset)')}; load average {os.getloadavg()[0]:.1f}; "
          f"{'fastest call' if USE_MIN else 'median call'} of interleaved blocks")
    print(f"{'':26} {'---- one thread ----':^25}   {'-- default threads --':^25}   {'-- onnx.reference --':^18}")
    print(f"{'model':26} {'ours ms':>8} {'ort ms':>8} {'ours/ort':>7}   {'ours ms':>8} {'ort ms':>8} "
          f"{'ours/ort':>7}   {'ref ms':>9} {'ref/ours':>8}")
    for d in dirs:
        feeds = dict(np.load(d / "inputs.npz"))
        c = _Contenders(d / "model.onnx", lambda run: (lambda: run(feeds)))
        _row(d.name, c.measure(budget), c.failure)
    if not argv:
        _decoder_rows(budget)
        _step_row()
    print(f"load average at the end {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
