"""Where a repeated run's time goes, per model (one BLAS thread).

    python benchmarks/exec_profile.py [--top N] [MODEL_DIR ...]   (default: ../shared/models/* and the decoder)

Each runner of a compiled session (a step, or a merged unit of steps) is
timed on repeated runs and put in one of these groups:

- BLAS: units whose work is a BLAS product (MatMul, Gemm, Conv, ConvTranspose
  and what is merged with them);
- other kernels: units taking 5 us or more (numpy passes over the data);
- small steps: units under 5 us, where Python's call overhead is most of the
  cost (shape arithmetic, views, tiny tensors);
- between steps: the run minus the time inside runners (the loop, cancel
  checks, feed checks, gathering outputs, and the timing itself: ~0.2 us a
  runner).

Times are medians over runs timed with the runners wrapped, and a model's
time "in its parts" is the sum of those medians: on a machine shared with
other work, a run's wall time also holds the moments other processes had
the core, which the median of each part leaves out.

Runners inside If/Loop/Scan bodies are listed after the top graph's, by
their total time a run (a loop body's runner runs once an iteration).

`MB out` is what the kernels' results add up to in one run: each is a fresh
allocation (glibc reuses the blocks across runs, see core/exec/allocator.py).
"""
from __future__ import annotations

import collections
import pathlib
import statistics
import sys
import tempfile
import time

import numpy as np

REPO = pathlib.Path(__file__).resolve().parent.parent
BLAS_OPS = {"MatMul", "Gemm", "Conv", "ConvTranspose", "FusedMatMul", "FusedGemm", "FusedConv", "ConvInteger",
            "QLinearConv", "QLinearMatMul", "MatMulInteger", "Einsum"}
SMALL = 5e-6


def profile(path, feeds, runs: int = 20, top: int = 6) -> None:
    from onnxstudio import core
    from onnxstudio.core.exec import Session, fusion
    from onnxstudio.core.exec.threads import set_blas_threads

    set_blas_threads(1)
    spent: dict = {}
    labels: dict = {}
    wrappers: dict = {}
    watching = [False]

    def timed(runner, label):
        key = len(labels)
        labels[key] = label
        spent[key] = []

        def run(values, frame):
            if not watching[0]:
                return runner(values, frame)
            t = time.perf_counter()
            runner(values, frame)
            spent[key].append(time.perf_counter() - t)
        wrappers[key] = run
        return run

    plain_compile, plain_init, plain_in_place = fusion.compile_step, fusion._Unit.__init__, fusion.in_place.runner

    def unit_init(self, members, reads, outputs, make):
        label = "+".join(m.node.op_type for m in members)
        if make.__qualname__.startswith("_shape_block"):
            label = "shape arithmetic block"
        elif len(members) == 1 and make.__qualname__.startswith("_Matching._repeated"):
            label += " (repeat)"
        plain_init(self, members, reads, outputs, lambda frees, fb: timed(make(frees, fb), label))

    fusion.compile_step = lambda s, g, **kw: timed(plain_compile(s, g, **kw), s.node.op_type)

    def in_place_runner(s, *args):
        run = plain_in_place(s, *args)
        return run and timed(run, s.node.op_type + " (in place)")
    fusion.in_place.runner = in_place_runner
    fusion._Unit.__init__ = unit_init
    try:
        s = Session(core.load(path))
        for _ in range(3):
            out = s.run(feeds)
    finally:
        fusion.compile_step, fusion._Unit.__init__ = plain_compile, plain_init
        fusion.in_place.runner = plain_in_place
    # only the top graph's runners add up to a run (a body's run inside its If/Loop)
    top_keys = [k for k, fn in wrappers.items() if any(fn is r for r in s.plan.runners)]
    totals, betweens = [], []
    watching[0] = True
    for _ in range(runs):
        t = time.perf_counter()
        s.run(feeds)
        totals.append(time.perf_counter() - t)
        betweens.append(totals[-1] - sum(spent[k][-1] for k in top_keys if spent[k]))
    watching[0] = False
    total = statistics.median(totals)
    per = {k: statistics.median(spent[k]) for k in top_keys if spent[k]}
    groups = collections.Counter()
    by_label = collections.defaultdict(lambda: [0.0, 0])
    for k, sec in per.items():
        label = labels[k]
        if any(op in BLAS_OPS for op in label.split(" ")[0].split("+")):
            groups["BLAS"] += sec
        elif sec >= SMALL:
            groups["other kernels"] += sec
        else:
            groups["small steps"] += sec
        by_label[label][0] += sec
        by_label[label][1] += 1
    groups["between steps"] = max(0.0, statistics.median(betweens))
    megabytes = _output_megabytes(s, feeds)
    n_small = sum(1 for k, sec in per.items() if sec < SMALL)
    steady = sum(groups.values())
    print(f"{pathlib.Path(path).parent.name if path.name == 'model.onnx' else path.stem}: "
          f"{steady * 1e3:.2f} ms in its parts (wall median {total * 1e3:.2f} ms), "
          f"{len(per)} runners for {len(s.plan.live_steps)} live of {len(s.plan.steps)} steps, "
          f"{megabytes:.1f} MB out")
    print("   " + ", ".join(f"{g} {sec * 1e3:.2f} ms ({sec / steady:.0%})" for g, sec in groups.most_common())
          + f"; {n_small} small steps")
    for label, (sec, n) in sorted(by_label.items(), key=lambda kv: -kv[1][0])[:top]:
        print(f"     {label:30} x{n:<4} {sec * 1e3:7.3f} ms  {sec / n * 1e6:8.1f} us each")
    # inside If/Loop/Scan bodies: a runner may run many times a run, so its total per run
    inner = collections.defaultdict(lambda: [0.0, 0, 0])
    for k, times in spent.items():
        if k not in per and times:
            entry = inner[labels[k]]
            entry[0] += sum(times) / runs
            entry[1] += len(times) / runs
            entry[2] += 1
    if inner:
        print(f"   inside bodies: {sum(e[0] for e in inner.values()) * 1e3:.3f} ms a run")
        for label, (sec, calls, n) in sorted(inner.items(), key=lambda kv: -kv[1][0])[:top]:
            print(f"     {label:30} x{n:<4} {sec * 1e3:7.3f} ms  {sec / calls * 1e6:8.1f} us a call, "
                  f"{calls:.0f} calls")
    del out


def _output_megabytes(session, feeds) -> float:
    from onnxstudio.core.exec import Session
    s = Session(session.model, keep=True)
    s.start(feeds)
    folded = set(session.plan.folded or ())
    total = 0
    while not s.done:
        r = s.step()
        total += sum(getattr(v, "nbytes", 0) for n, v in r.outputs.items() if n not in folded)
    return total / 1e6


def main(argv: list[str]) -> int:
    import warnings
    warnings.simplefilter("ignore")
    top = 6
    if "--top" in argv:
        i = argv.index("--top")
        top = int(argv[i + 1])
        argv = argv[:i] + argv[i + 2:]
    dirs = [pathlib.Path(p) for p in argv] or sorted(
        p.parent for p in (REPO.parent / "shared" / "models").glob("*/model.onnx"))
    for d in dirs:
        profile(d / "model.onnx", dict(np.load(d / "inputs.npz")), top=top)
    if not argv:
        import onnx

        import synthetic_decoder as sd
        with tempfile.TemporaryDirectory() as tmp:
            path = pathlib.Path(tmp) / "decoder.onnx"
            onnx.save(sd.build(), path)
            prompt = sd.prompt_feeds()
            print("(decoder: prompt of 64 tokens, then one token with that cache)")
            profile(path, prompt, top=top)
            from onnxstudio import core
            from onnxstudio.core.exec import Session
            first = Session(core.load(path)).run(prompt)
            profile(path, sd.next_feeds(first, 3, 64, 6), top=top)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
