"""The comparison options of `run` (and `reduce`): what to compare with
(onnxruntime, a golden .npz, a second model), the tolerances,
onnxruntime's provider and level, the memory budget; and the report
printed as text or JSON."""
from __future__ import annotations

import pathlib
import warnings

import numpy as np

from ..errors import UserError
from ._names import unknown_name
from .counts import counted

TABLE_ROWS = 40     # nodes listed in the text table; --json has them all

_TUNING = ("rtol", "atol", "tolerance", "ort_provider", "ort_opt_level", "memory_budget", "reference_model")
_ORT_ONLY = ("ort_provider", "ort_opt_level", "memory_budget", "reference_model")


def configure_comparison(p, *, reduce: bool = False) -> None:
    p.add_argument("--compare-onnxruntime", action="store_true",
                   help="also run onnxruntime (if installed) with every intermediate exposed: print the error "
                        "per output, the first node whose result diverges, the node with the largest own error "
                        "(run alone on onnxruntime's values of its inputs) and a per-node error table; "
                        "exit 1 when an output differs")
    p.add_argument("--golden", metavar="FILE.npz",
                   help="compare with the named values of an .npz (from PyTorch, another runtime ...) instead of "
                        "onnxruntime, matched by value name")
    p.add_argument("--compare-model", metavar="OTHER.onnx",
                   help="compare with a second model (before/after an edit, a quantized copy) run by our executor "
                        "on the same inputs, values matched by name; OTHER is the reference")
    p.add_argument("--reference-model", metavar="FILE.onnx",
                   help="with --compare-onnxruntime: onnxruntime runs this model (e.g. the file before an edit) "
                        "instead of FILE")
    p.add_argument("--memory-budget", metavar="SIZE",
                   help="with --compare-onnxruntime: compare in topological chunks holding at most SIZE of "
                        "arrays (512MiB, 2GiB, or 'auto' for a quarter of this machine's memory) instead of "
                        "every intermediate of both sides at once; reports the peak. Without it, the whole "
                        "comparison is made unless its intermediates would pass a quarter of this machine's "
                        "memory, then the chunked one within that")
    p.add_argument("--rtol", metavar="R", help="for the comparison: relative tolerance (default 1e-3)")
    p.add_argument("--atol", metavar="A", help="for the comparison: absolute tolerance, "
                                               "times the value's largest |value| above 1 (default 1e-4)")
    p.add_argument("--tolerance", action="append", default=[], metavar="NAME=RTOL,ATOL",
                   help="for the comparison: the tolerances of one value (an output, or any "
                        "intermediate); repeat for more")
    p.add_argument("--ort-provider", metavar="NAME",
                   help="with --compare-onnxruntime: onnxruntime's execution provider (default "
                        "CPUExecutionProvider; one of onnxruntime.get_available_providers())")
    p.add_argument("--ort-opt-level", choices=("disable", "basic", "extended", "all"),
                   help="with --compare-onnxruntime: onnxruntime's graph optimisation level (default disable, "
                        "so each intermediate is the one its node computed)")


def comparison_options(args, model):
    """What to compare with and how, from the options, checked before the
    run (a typo should not cost a long run): exit 2 naming the option. None
    when no comparison is asked for."""
    from ..core.exec.compare import ATOL, RTOL
    kinds = [k for k, flag in (("onnxruntime", args.compare_onnxruntime), ("golden", args.golden),
                                ("model", args.compare_model)) if flag]
    given = [o for o in _TUNING if getattr(args, o)]
    if not kinds:
        if given:
            flag = "--" + given[0].replace("_", "-")
            raise UserError(f"{flag} sets the onnxruntime comparison: add --compare-onnxruntime")
        return None
    if len(kinds) > 1:
        raise UserError("compare with one reference at a time: --compare-onnxruntime, --golden or --compare-model")
    kind = kinds[0]
    if kind != "onnxruntime":
        ort_only = [o for o in _ORT_ONLY if getattr(args, o)]
        if ort_only:
            raise UserError(f"--{ort_only[0].replace('_', '-')} sets the onnxruntime comparison; it does not apply "
                            f"to --{'golden' if kind == 'golden' else 'compare-model'}")
    options = {"rtol": _tolerance("--rtol", args.rtol, RTOL), "atol": _tolerance("--atol", args.atol, ATOL)}
    tolerances = {}
    for item in args.tolerance:
        name, sep, pair = item.rpartition("=")
        parts = pair.split(",")
        if not sep or not name or len(parts) != 2:
            raise UserError(f"--tolerance {item!r}: expected NAME=RTOL,ATOL (e.g. logits=1e-2,1e-3)")
        if model.graph.lookup(name) is None:
            raise unknown_name("--tolerance", name, "value", f"the main graph of {args.file}", model.graph.values())
        tolerances[name] = (_tolerance(f"--tolerance {item}: RTOL", parts[0], RTOL),
                            _tolerance(f"--tolerance {item}: ATOL", parts[1], ATOL))
    options["tolerances"] = tolerances
    out = {"kind": kind, "options": options}
    if kind == "onnxruntime":
        _ort_options(args, options)
        if args.memory_budget:
            out["budget"] = _budget(args.memory_budget)
        if args.reference_model:
            out["reference_model"] = _other_model("--reference-model", args.reference_model)
    elif kind == "golden":
        from ..core.exec.errors import FeedError
        from ..core.exec.run_files import load_npz
        try:
            out["golden"] = load_npz(args.golden)
        except FeedError as e:
            raise UserError(f"--golden {args.golden}: {e}") from None
    else:
        out["other"] = _other_model("--compare-model", args.compare_model)
    return out


def _other_model(option: str, path: str):
    from ..core import load
    if not pathlib.Path(path).is_file():
        raise UserError(f"{option} {path}: no such file")
    return load(path)


def _budget(text: str) -> int:
    from ..core.exec.budget_compare import default_budget, parse_size
    if text.strip().lower() == "auto":
        return default_budget()
    try:
        return parse_size(text)
    except ValueError as e:
        raise UserError(f"--memory-budget: {e}") from None


def _ort_options(args, options: dict) -> None:
    from ..core.exec.compare import CompareError, available_providers
    if args.ort_provider:
        try:
            providers = available_providers()
        except CompareError as e:
            raise UserError(f"--ort-provider: {e}") from None
        if args.ort_provider not in providers:
            raise UserError(f"--ort-provider {args.ort_provider!r}: onnxruntime has no such execution provider "
                            f"here; choose one of {', '.join(providers)}")
        options["provider"] = args.ort_provider
    if args.ort_opt_level:
        options["opt_level"] = args.ort_opt_level


def _tolerance(what: str, value, default: float) -> float:
    """A tolerance from the command line: a number, 0 or more."""
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0 or number == float("inf"):
        raise UserError(f"{what} {value}: a tolerance is a number, 0 or more (e.g. 1e-3)")
    return number


WHO = {"onnxruntime": "onnxruntime", "golden": "golden", "model": "the other model"}


def make_report(args, model, feeds, chosen: dict):
    """(Report, the reference's values or None, extra JSON entries):
    the comparison `chosen` (comparison_options) made. UserError (exit 2)
    when it cannot be made."""
    from ..core.exec.compare import CompareError, compare_run_with_onnxruntime
    from ..core.exec.session import Session
    options, kind = chosen["options"], chosen["kind"]
    extra: dict = {"reference": WHO[kind]}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            if kind == "golden":
                from ..core.exec.other_references import compare_with_golden
                report = compare_with_golden(model, feeds, chosen["golden"], seed=args.seed, source=args.golden,
                                             **options)
                return report, {**feeds, **chosen["golden"]}, extra
            if kind == "model":
                from ..core.exec.other_references import compare_models
                report, theirs = compare_models(model, chosen["other"], feeds, seed=args.seed,
                                                other_name=args.compare_model, **options)
                return report, {**feeds, **theirs}, extra
            body_budget = max(0, getattr(args, "body_budget", 512)) << 20
            s = Session(model, keep=True, seed=args.seed, keep_body_values=True, body_budget=body_budget)
            if "budget" not in chosen:
                outputs = _whole_run_within(s, feeds, chosen, extra)
            if "budget" in chosen:
                from ..core.exec.budget_compare import compare_bounded
                s = None                  # what the stopped run held goes before the bounded comparison
                bounded = compare_bounded(model, feeds, budget=chosen["budget"], seed=args.seed,
                                          reference_model=chosen.get("reference_model"), **options)
                extra.update(memory_budget=bounded.budget, peak_memory=bounded.peak, chunks=bounded.chunks)
                return bounded.report, None, extra
            report, theirs = compare_run_with_onnxruntime(
                model, {**s.values, **outputs}, feeds, reference_model=chosen.get("reference_model"),
                kept=s.body_values, seed=args.seed, **options)
            return report, {**feeds, **theirs}, extra
    except CompareError as e:
        raise UserError(f"cannot compare with {WHO[kind]}: {e}") from None


def _whole_run_within(session, feeds: dict, chosen: dict, extra: dict):
    """Our run for the whole comparison, every intermediate kept, stepped so
    that its size is known as it grows: the whole comparison holds every
    intermediate twice (ours and onnxruntime's). When that passes the
    default budget (a quarter of this machine's memory), the run stops and
    `chosen` turns to the bounded comparison within that budget
    (extra["bounded_by_default"] says so). Returns the run's outputs, or
    None when it stopped."""
    from ..core.exec.budget_compare import default_budget, nbytes
    limit = default_budget()
    session.start({k: v for k, v in feeds.items() if k in session.input_names})
    held = 0
    while not session.done:
        held += sum(nbytes(v) for v in session.step().outputs.values())
        if 2 * held > limit:
            chosen["budget"] = limit
            extra["bounded_by_default"] = True
            return None
    return session.results()


def low_precision_clause(report) -> str:
    """Says so when values of 16-bit floats were judged with more than the
    tolerances asked for (core.exec.compare.LOW_PRECISION_FLOOR)."""
    from ..core.exec.compare import LOW_PRECISION_FLOOR
    raised = [d for name, d in report.values.items() if name not in report.tolerances
              and (d.rtol > report.rtol or d.atol > report.atol)]
    if not raised:
        return ""
    floors = ", ".join(f"{dtype.name} {floor:g}" for dtype, floor in LOW_PRECISION_FLOOR.items())
    return f"; {counted(len(raised), 'value')} of 16-bit floats with atol and rtol at least {floors}"


def compare(args, model, feeds, chosen: dict):
    """The comparison made and shown: the text report, or with --json the
    JSON one returned. Returns (the JSON report or None; whether every
    output agrees)."""
    report, _, extra = make_report(args, model, feeds, chosen)
    outputs_agree = all(report.values[v.name].agrees for v in model.graph.outputs if v.name in report.values)
    if args.json:
        return {**report.to_json(), **extra}, outputs_agree
    who = extra["reference"]
    print(f"compared with {who}, every intermediate (an element agrees when |ours - theirs| <= "
          f"{report.atol:g} x max(1, the value's largest |value|) + {report.rtol:g} x |theirs|"
          + "".join(f"; {n}: atol {a:g}, rtol {r:g}" for n, (r, a) in report.tolerances.items())
          + low_precision_clause(report) + "):")
    if "bounded_by_default" in extra:
        print(f"  every intermediate of both sides at once would pass a quarter of this machine's memory "
              f"({_mib(extra['memory_budget'])}): compared in chunks within it instead (--memory-budget SIZE "
              f"chooses the budget)")
    if "peak_memory" in extra:
        print(f"  in {counted(extra['chunks'], 'chunk')} within a budget of {_mib(extra['memory_budget'])}: "
              f"at most {_mib(extra['peak_memory'])} of arrays held at once")
        if any(True for n in model.graph.nodes for _ in n.subgraphs()):
            print(f"  values inside If/Loop/Scan bodies are compared when they fit an eighth of the budget "
                  f"({_mib(extra['memory_budget'] // 8)}); those that do not are named below as not kept")
    for v in model.graph.outputs:
        d = report.values.get(v.name)
        if d is not None:
            print("  " + _value_line(d, who))
    first = report.first_divergence
    if first is None:
        bad = sum(not n.agrees for n in report.nodes)
        print(f"first divergent node: none ({len(report.nodes) - bad} of {counted(len(report.nodes), 'node')} agree)")
    else:
        print(f"first divergent node: {first.node.path}")
        for d in first.outputs:
            if not d.agrees:
                print("  " + _value_line(d, who))
        if first.own_agrees and not first.explained:
            print(f"  its own error is within the tolerance (run alone on {who}'s values of its inputs, it gives "
                  f"{who}'s outputs): a difference of its inputs within the tolerance crossed a step of its "
                  "output (a rounding, a comparison, an argmax)")
    explained = report.explained
    if explained:
        verb = "differs" if len(explained) == 1 else "differ"
        print(f"{counted(len(explained), 'node')} {verb} without being wrong"
              + (" (--json says why for each; the first 3 here):" if len(explained) > 3 else ":"))
        for n in explained[:3]:
            print(f"  {n.node.display_name}: {n.explained}")
    worst = report.worst_own
    if worst is not None and not all(d.agrees for d in worst.own):
        print(f"largest own error (the node run alone on {who}'s values of its inputs): {worst.node.path}, "
              f"own max abs {worst.own_max_abs:.3g}, own rel {worst.own_rel:.3g}; the nodes after it inherit")
    if report.differing_sources:
        print("inputs or initializers that differ: " + ", ".join(report.differing_sources))
    if report.skipped:
        print(f"not compared ({len(report.skipped)}: {who} does not give them): "
              + ", ".join(report.skipped[:5]) + (" ..." if len(report.skipped) > 5 else ""))
    if report.unmatched:
        print(f"{who} names {counted(len(report.unmatched), 'value')} the model does not have: "
              + ", ".join(report.unmatched[:5]) + (" ..." if len(report.unmatched) > 5 else ""))
    _bodies_lines(report)
    _node_table(report)
    return None, outputs_agree


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _bodies_lines(report) -> None:
    """What the comparison found inside bodies (each run alone by onnxruntime
    on our values of its inputs), and what it did not compare, with why."""
    if not report.bodies:
        return
    compared = [d for b in report.bodies if b.report is not None for d in b.report.values.values()]
    print(f"inside bodies (each body that ran, run alone by onnxruntime on our values of its inputs): "
          f"{sum(d.agrees for d in compared)} of {counted(len(compared), 'value')} agree")
    idle = [b for b in report.bodies if not b.runs and b.report is None]
    if idle:
        print(f"  {counted(len(idle), 'body', 'bodies')} did not run (If branches not taken, loops of no iteration): "
              f"nothing there to compare")
    for b in report.bodies:
        first = b.report.first_divergence if b.report is not None else None
        if first is not None:
            print(f"  first divergent node in {b.path}: {first.node.display_name}")
        if b.note and b not in idle:
            print(f"  {b.path}: {b.note}")
        elif b.not_compared:
            print(f"  {b.path}: not compared: " + ", ".join(f"{n} ({why})" for n, why in b.not_compared[:3])
                  + (" ..." if len(b.not_compared) > 3 else ""))


def _value_line(d, who: str = "onnxruntime") -> str:
    line = f"{d.name}: max abs error {d.max_abs:.3g}, max rel error {d.rel:.3g}"
    if d.max_abs:
        line += (f" (of the largest |value| {d.scale:.3g}) at {d.where or '[]'}: ours {_num(d.ours)}, "
                 f"{who} {_num(d.theirs)}")
    if d.note:
        line += f"; {d.note}"
    return line + (" - agrees" if d.agrees else " - DIFFERENT")


def _num(x) -> str:
    try:
        return f"{complex(x) if np.iscomplexobj(x) else float(x):.7g}"
    except (TypeError, ValueError):
        return repr(x)


def _node_table(report) -> None:
    rows = report.nodes
    if len(rows) > TABLE_ROWS:
        worst = sorted(range(len(rows)), key=lambda i: (rows[i].agrees, -rows[i].rel))[:TABLE_ROWS]
        shown = [rows[i] for i in sorted(worst)]
        print(f"per node, the {TABLE_ROWS} with the largest errors of {len(rows)} (graph order; --json lists all):")
    else:
        shown = rows
        print("per node (graph order):")
    width = min(60, max((len(n.node.display_name) for n in shown), default=4))
    print(f"  {'node':<{width}}  {'op':<18} {'max abs':>9} {'rel':>9} {'own rel':>9}")
    for n in shown:
        name = n.node.display_name
        if len(name) > width:
            name = "..." + name[-(width - 3):]
        flag = ("" if n.agrees else "  differs: onnxruntime's arithmetic" if n.explained
                else "  DIFFERENT" if n.inputs_agree else "  different (fed by a differing input)")
        own = f"{n.own_rel:9.3g}" if n.own_rel is not None else f"{'-':>9}"
        print(f"  {name:<{width}}  {n.node.op_type:<18} {n.max_abs:9.3g} {n.rel:9.3g} {own}{flag}")
