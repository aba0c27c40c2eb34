"""Fuzz onnxstudio with mutated models.

    python tests/fuzz/run.py --count 2000 --seed 7            # a long run
    python tests/fuzz/run.py --seed 7 --only 123 --keep DIR   # replay mutant 123

Each mutant is one of the shared models or a sampled backend test model with
1-3 byte-level mutations (fuzz_mutate.py); it goes through info, check,
infer, run, render, convert and the app's open, each in a child process with
a time and memory limit (fuzz_harness.py). Mutant i of seed S is always the
same file, so a finding is reproduced by its (seed, index). Exit status 1
when anything was found.
"""
from __future__ import annotations

import argparse
import collections
import json
import pathlib
import random
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from fuzz_harness import (FINDINGS, STAGES, AppOpener, Limits, prepare_parent,  # noqa: E402
                          run_all)
from fuzz_mutate import Mutator  # noqa: E402


def model_pool(seed: int, backend_sample: int, shared: bool = True) -> list[pathlib.Path]:
    pool = []
    if shared:
        from shared_models import shared_model_dirs
        pool += [d / "model.onnx" for d in shared_model_dirs()]
    if backend_sample:
        from backend_data import all_cases
        cases = all_cases()
        pool += [c.model_path for c in random.Random(seed).sample(cases, min(backend_sample, len(cases)))]
    return pool


class Fuzzer:
    def __init__(self, pool, limits: Limits, stages, app: bool):
        self.pool = pool
        self.limits = limits
        self.stages = [s for s in stages if app or s != "open"]
        self.opener = AppOpener(limits) if "open" in self.stages else None
        self._mutators: dict = {}

    def mutant(self, seed: int, index: int) -> tuple[pathlib.Path, bytes, list[str]]:
        rng = random.Random(f"{seed}:{index}")
        source = self.pool[index % len(self.pool)]      # every model in turn
        mutator = self._mutators.get(source)
        if mutator is None:
            mutator = self._mutators[source] = Mutator(source.read_bytes())
        data, ops = mutator.mutate(rng)
        return source, data, ops

    def try_one(self, data: bytes, workdir: pathlib.Path):
        path = workdir / "model.onnx"
        path.write_bytes(data)
        return run_all(path, self.limits, self.stages, self.opener)

    def close(self):
        if self.opener is not None:
            self.opener.close()


def _name(source: pathlib.Path) -> str:
    return source.parent.name if source.name == "model.onnx" else source.stem


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=100, help="how many mutants")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first mutant index")
    p.add_argument("--only", type=int, help="just this mutant index (replay a finding)")
    p.add_argument("--backend-sample", type=int, default=40, help="backend test models in the pool")
    p.add_argument("--no-shared", action="store_true", help="leave the shared models out of the pool")
    p.add_argument("--stages", default=",".join(STAGES), help="comma-separated subset of " + ",".join(STAGES))
    p.add_argument("--no-app", action="store_true", help="skip the app's open (no Qt child)")
    p.add_argument("--time-limit", type=float, default=30.0, help="seconds per stage")
    p.add_argument("--memory-mb", type=int, default=3072, help="address space per stage")
    p.add_argument("--keep", type=pathlib.Path, help="write each finding's mutant into this folder")
    p.add_argument("--json", type=pathlib.Path, help="write the summary as JSON here")
    p.add_argument("--files", type=pathlib.Path, nargs="+",
                   help="run these files as they are (regression cases, hostile models) instead of mutants")
    p.add_argument("--hostile", action="store_true",
                   help="run the hostile models of fuzz_hostile.py instead of mutants")
    p.add_argument("--identities", type=int, default=10**6, help="nodes in the hostile Identity chain")
    p.add_argument("-q", "--quiet", action="store_true")
    args = p.parse_args(argv)

    prepare_parent()
    stages = [s.strip() for s in args.stages.split(",") if s.strip()]
    unknown = set(stages) - set(STAGES)
    if unknown:
        p.error(f"unknown stage(s) {sorted(unknown)}")
    limits = Limits(args.time_limit, args.memory_mb << 20)
    if args.hostile:
        from fuzz_hostile import BUILDERS
        with tempfile.TemporaryDirectory(prefix="fuzz-hostile-") as tmp:
            args.files = [build(pathlib.Path(tmp, name), args.identities) if name == "many_identities"
                          else build(pathlib.Path(tmp, name)) for name, build in BUILDERS.items()]
            return run_files(args, limits, stages)
    if args.files:
        return run_files(args, limits, stages)
    pool = model_pool(args.seed, args.backend_sample, not args.no_shared)
    fuzzer = Fuzzer(pool, limits, stages, not args.no_app)
    indices = [args.only] if args.only is not None else range(args.start, args.start + args.count)
    verdicts = collections.Counter()
    findings = []
    began = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="fuzz-") as tmp:
            for i in indices:
                source, data, ops = fuzzer.mutant(args.seed, i)
                workdir = pathlib.Path(tmp, str(i))
                workdir.mkdir()
                for o in fuzzer.try_one(data, workdir):
                    verdicts[(o.stage, o.verdict)] += 1
                    if o.verdict in FINDINGS:
                        finding = {"index": i, "model": _name(source), "ops": ops, "stage": o.stage,
                                   "verdict": o.verdict, "code": o.code, "message": o.message,
                                   "seconds": round(o.seconds, 2)}
                        findings.append(finding)
                        print(f"[{i}] {finding['model']} {' '.join(ops)}: {o.stage} {o.verdict} "
                              f"(exit {o.code}) {o.message}", flush=True)
                        if args.keep:
                            args.keep.mkdir(parents=True, exist_ok=True)
                            (args.keep / f"s{args.seed}-i{i}-{o.stage}.onnx").write_bytes(data)
                for f in workdir.iterdir():
                    f.unlink()
                workdir.rmdir()
                if not args.quiet and (i + 1) % 50 == 0:
                    print(f"... {i + 1 - args.start} mutants, {len(findings)} findings, "
                          f"{time.monotonic() - began:.0f} s", flush=True)
    finally:
        fuzzer.close()
    summary = {
        "seed": args.seed, "mutants": len(indices), "models": len(pool), "stages": stages,
        "seconds": round(time.monotonic() - began, 1),
        "verdicts": {stage: {v: n for (s, v), n in sorted(verdicts.items()) if s == stage} for stage in stages},
        "findings": findings,
    }
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1))
    print(f"{summary['mutants']} mutants of {len(pool)} models in {summary['seconds']} s, "
          f"{len(findings)} findings")
    for stage, counts in summary["verdicts"].items():
        print(f"  {stage:8} " + ", ".join(f"{v} {n}" for v, n in counts.items()))
    return 1 if findings else 0


def run_files(args, limits: Limits, stages) -> int:
    """Each file through every stage; the JSON holds every outcome."""
    fuzzer = Fuzzer([], limits, stages, not args.no_app)
    results = {}
    try:
        for path in args.files:
            outcomes = run_all(path.resolve(), limits, fuzzer.stages, fuzzer.opener)
            results[str(path)] = {o.stage: {"verdict": o.verdict, "code": o.code, "message": o.message,
                                            "seconds": round(o.seconds, 2)} for o in outcomes}
            for o in outcomes:
                if not args.quiet or o.verdict in FINDINGS:
                    print(f"{path}: {o.stage} {o.verdict} (exit {o.code}, {o.seconds:.1f} s) {o.message}")
    finally:
        fuzzer.close()
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    return 1 if any(r["verdict"] in FINDINGS for per in results.values() for r in per.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
