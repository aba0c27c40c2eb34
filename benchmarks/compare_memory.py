"""Peak memory and time of the onnxruntime comparison: Polygraphy-style
"mark all" against the bounded comparison (core/exec/budget_compare.py).

    python benchmarks/compare_memory.py [--batch B] [--seq S] [--budget 64MiB] [--own]

On bert_12layer_narrow (random token ids, B x S), each way runs in a child
process of its own, so one's high-water mark does not hide the other's:

- mark-all: every intermediate exposed as an output of ONE onnxruntime
  session (what `polygraphy run --onnx-outputs mark all` does), our run
  keeping every intermediate, then compared value by value
  (compare.compare_with_onnxruntime, bodies and own errors off);
- bounded: compare_bounded within --budget (own errors off unless --own).

Printed per way: wall time; the bytes of arrays the comparison holds at
once (mark-all: both sides' intermediates; bounded: its own account, see
budget_compare.py); and the process's peak resident memory above what it
held after loading the model and onnxruntime (ru_maxrss and /proc's
VmHWM include onnxruntime's own buffers, which neither account sees).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

MODEL = "/work/shared/models/bert_12layer_narrow/model.onnx"


def _hwm_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _reset_hwm() -> None:
    """Start the high-water mark again from now (Linux: write 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass


def child(way: str, batch: int, seq: int, budget: int, own: bool) -> dict:
    import numpy as np
    import onnxruntime  # noqa: F401  (loaded before the baseline: its import is no part of either way)

    from onnxstudio.core import load
    from onnxstudio.core.exec.budget_compare import compare_bounded, nbytes
    from onnxstudio.core.exec.compare import compare_with_onnxruntime
    from onnxstudio.core.exec.session import Session

    model = load(MODEL)
    rng = np.random.default_rng(0)
    feeds = {"input_ids": rng.integers(0, 30000, (batch, seq)).astype(np.int64),
             "attention_mask": np.ones((batch, seq), np.int64), "token_type_ids": np.zeros((batch, seq), np.int64)}
    Session(model).run(feeds)            # kernels imported and weights paged in before the baseline
    _reset_hwm()
    base = _rss_bytes()
    t = time.perf_counter()
    if way == "mark-all":
        s = Session(model, keep=True)
        outputs = s.run(feeds)
        ours = {**s.values, **outputs}
        held = sum(nbytes(v) for k, v in ours.items() if k not in model.graph.initializers)
        report = compare_with_onnxruntime(model, feeds, bodies=False, own=own)
        held *= 2                        # onnxruntime returns the same values: both sides held at once
        first = report.first_divergence
    else:
        bounded = compare_bounded(model, feeds, budget=budget, own=own)
        held, report, first = bounded.peak, bounded.report, bounded.report.first_divergence
    seconds = time.perf_counter() - t
    return {"way": way, "seconds": round(seconds, 2), "held_mib": round(held / 2 ** 20, 1),
            "peak_rss_above_base_mib": round((_hwm_bytes() - base) / 2 ** 20, 1), "values": len(report.values),
            "first_divergence": first.node.name if first else None}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batch", type=int, default=4)
    p.add_argument("--seq", type=int, default=256)
    p.add_argument("--budget", default="64MiB")
    p.add_argument("--own", action="store_true", help="measure own errors too (both ways)")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args()
    from onnxstudio.core.exec.budget_compare import parse_size
    budget = parse_size(args.budget)
    if args.child:
        print(json.dumps(child(args.child, args.batch, args.seq, budget, args.own)))
        return
    print(f"bert_12layer_narrow, batch {args.batch} x seq {args.seq}, budget {args.budget}"
          + (", own errors measured" if args.own else ""))
    for way in ("mark-all", "bounded"):
        cmd = [sys.executable, __file__, "--child", way, "--batch", str(args.batch), "--seq", str(args.seq),
               "--budget", args.budget] + (["--own"] if args.own else [])
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode:
            print(f"{way}: failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}")
            continue
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{way:>9}: {r['seconds']:6.2f} s, arrays held at once {r['held_mib']:7.1f} MiB, process peak "
              f"above baseline {r['peak_rss_above_base_mib']:7.1f} MiB, {r['values']} values compared, "
              f"first divergence {r['first_divergence']}")


if __name__ == "__main__":
    main()
