"""`onnxstudio diff A.onnx B.onnx [--json] [--inputs FILE.npz] [--script OUT.json]`: what
changed between two versions of a model (core/diff), and with inputs how
far apart their values are; with --script, the edit script turning A into
B (core/diff/to_script.py) and what it could not express. Exit 0 when equal, 1 when different, 2 when
a file or the inputs cannot be used, 4 when nothing was found to differ but some values could not be
compared (a weight whose external data cannot be read: 0 would claim they are the same; 3 is every
command's internal error)."""
from __future__ import annotations

import json
import math

from ..core import load
from ..core.errors import CoreError
from ..errors import UserError

NAME = "diff"


EXIT_CODES = ("exit codes: 0 the models are the same; 1 they differ; 2 a file or the inputs cannot be used; "
              "4 no difference found, but some values were not compared because their data cannot be read "
              "(a missing data file, a reference outside the model's folder)")


def configure(p) -> None:
    p.epilog = EXIT_CODES
    p.add_argument("a", metavar="A.onnx", help="the first model (the old one)")
    p.add_argument("b", metavar="B.onnx", help="the second model (the new one)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--inputs", metavar="FILE.npz",
                   help="also run both models on these inputs (arrays named like A's or B's inputs) with our "
                        "executor and compare every paired value; B is the reference")
    p.add_argument("--rtol", type=float, default=1e-3, help="relative tolerance for --inputs (default 1e-3)")
    p.add_argument("--atol", type=float, default=1e-4, help="absolute tolerance for --inputs (default 1e-4)")
    p.add_argument("--script", metavar="OUT.json",
                   help="also write the edit script that turns A into B (replay it with `onnxstudio edit`); "
                        "differences no edit expresses are printed (to stderr with --json)")
    p.add_argument("--limit", type=int, default=20, metavar="N",
                   help="list at most N entries of each kind in the summary (default 20; --json lists all)")


def _load(path: str, which: str):
    try:
        model = load(path)
        model.graph    # noqa: B018  (built here, so a damaged graph is reported as this file's)
        return model
    except (CoreError, OSError) as e:
        raise UserError(f"{which}: {e}") from None


def _read_inputs(path: str) -> dict:
    from ..core.exec.feeds import read_array_file
    if not path.lower().endswith(".npz"):
        raise UserError(f"--inputs {path}: give an .npz file of arrays named like the models' inputs")
    try:
        return read_array_file(path)
    except (CoreError, OSError, ValueError) as e:
        raise UserError(f"--inputs {path}: cannot be read: {e}") from None


def _numeric(d, args) -> dict:
    from ..core.diff.numeric import compare_runs
    from ..core.exec.compare import CompareError
    feeds = _read_inputs(args.inputs)
    try:
        report = compare_runs(d, feeds, rtol=args.rtol, atol=args.atol)
    except (CoreError, CompareError) as e:
        raise UserError(f"--inputs {args.inputs}: {str(e).splitlines()[0]}") from None
    partner = {va.name: vb.name for va, vb in d.matching.values.items()}
    first = report.first_divergence
    return {
        "agrees": report.agrees, "rtol": args.rtol, "atol": args.atol,
        "first_divergence": first.brief() if first else None,
        "values": [{"a": name, "b": partner.get(name, name), "agrees": v.agrees, "max_abs": _finite(v.max_abs),
                    "max_rel": _finite(v.rel), **({"note": v.note} if v.note else {})}
                   for name, v in report.values.items()],
    }


def _finite(x: float):
    return x if math.isfinite(x) else str(x)


def _num(x) -> str:
    return f"{x:.4g}" if isinstance(x, (int, float)) else str(x)   # "inf" and "nan" arrive as text


def _numeric_lines(n: dict, limit: int) -> list[str]:
    lines = [f"values:   {sum(v['agrees'] for v in n['values'])} of {len(n['values'])} paired values agree "
             f"(rtol {n['rtol']:g}, atol {n['atol']:g})"]
    first = n["first_divergence"]
    if first:
        lines.append(f"first divergence: {first['node']} (max abs {_num(first['max_abs'])}, "
                     f"max rel {_num(first['max_rel'])})")
    worst = sorted((v for v in n["values"] if not v["agrees"]),
                   key=lambda v: -v["max_rel"] if isinstance(v["max_rel"], float) else -math.inf)
    for v in worst[:limit]:
        name = v["a"] if v["a"] == v["b"] else f"{v['a']} -> {v['b']}"
        note = f" - {v['note']}" if "note" in v else ""
        lines.append(f"  {name}: max abs {_num(v['max_abs'])}, max rel {_num(v['max_rel'])}{note}")
    return lines


def _write_script(d, path: str, to_stderr: bool) -> None:
    import sys
    from ..core.diff.to_script import derive_script, write_script
    derived = derive_script(d)
    try:
        write_script(derived, path)
    except OSError as e:
        raise UserError(f"--script {path}: cannot be written: {e}") from None
    out = sys.stderr if to_stderr else sys.stdout
    print(f"edit script: {len(derived.script)} step(s) written to {path}", file=out)
    if derived.not_expressed:
        print(f"not expressed as edits ({len(derived.not_expressed)}):", file=out)
        for line in derived.not_expressed:
            print(f"  {line}", file=out)


def run(args) -> int:
    from ..core.diff import diff_models
    from ..core.diff.report import summary_lines, to_json
    a, b = _load(args.a, "A"), _load(args.b, "B")
    d = diff_models(a, b)
    numeric = _numeric(d, args) if args.inputs else None
    different = d.differs or (numeric is not None and not numeric["agrees"])
    if args.json:
        out = to_json(d)
        if numeric is not None:
            out["numeric"] = numeric
        print(json.dumps(out, indent=2))
    else:
        print(f"A: {args.a}\nB: {args.b}")
        print("\n".join(summary_lines(d, limit=args.limit)))
        if numeric is not None:
            print("\n".join(_numeric_lines(numeric, args.limit)))
    if args.script:
        _write_script(d, args.script, args.json)
    return 1 if different else 4 if d.uncertain else 0
