"""`onnxstudio profile FILE ...`: where a run spends its time, node by node."""
from __future__ import annotations

import json
import warnings

from ..core import load
from ..core.exec import ExecError, FeedError
from ..core.exec.profile import Profile, ProfileError, Profiler
from ..core.exec.profile_compare import compare_profiles
from ..errors import UserError
from .run import configure_inputs, input_feeds

NAME = "profile"


def configure(p) -> None:
    configure_inputs(p)
    source = p.add_mutually_exclusive_group()
    source.add_argument("--onnxruntime", action="store_true",
                        help="profile onnxruntime's runs instead (CPU, one thread, its optimisations on), its "
                             "kernels tied back to the model's nodes")
    source.add_argument("--ort-profile", metavar="JSON",
                        help="read a profile onnxruntime wrote (SessionOptions.enable_profiling) for this model")
    p.add_argument("--ort-model", metavar="FILE",
                   help="with --ort-profile: the optimised model onnxruntime saved in the same session "
                        "(optimized_model_filepath); it ties fused kernels named anew to the nodes they cover")
    p.add_argument("--runs", type=int, default=3, metavar="N", help="runs to average (after a warm-up; default 3)")
    p.add_argument("--top", type=int, default=10, metavar="K", help="how many nodes and op types to list (default 10)")
    p.add_argument("--compare", metavar="BEFORE.json",
                   help="a profile saved earlier with --json: print the change per node and per op type")
    p.add_argument("--json", action="store_true", help="print the whole profile as one JSON object")


def run(args) -> int:
    if args.runs < 1:
        raise UserError(f"--runs {args.runs}: give at least one run")
    if args.top < 1:
        raise UserError(f"--top {args.top}: give at least 1")
    if args.ort_model and not args.ort_profile:
        raise UserError("--ort-model goes with --ort-profile (the optimised model of that profile's session)")
    if args.seed < 0:
        raise UserError(f"--seed {args.seed}: the seed must be a whole number, 0 or more")
    before = _read_saved(args.compare) if args.compare else None
    model = load(args.file)
    try:
        profile = _profile(args, model)
    except ProfileError as e:
        raise UserError(str(e)) from None
    if before is not None:
        diff = compare_profiles(before, profile)
        if args.json:
            print(json.dumps({"profile": profile.to_dict(), "compared": diff.to_dict()}, indent=1))
        else:
            _print_profile(profile, args.top)
            _print_diff(diff, args.top)
        return 0
    if args.json:
        print(json.dumps(profile.to_dict(), indent=1))
    else:
        _print_profile(profile, args.top)
    return 0


def _profile(args, model) -> Profile:
    if args.ort_profile:
        from ..core.exec.ort_profile import read_ort_profile
        optimized = load(args.ort_model) if args.ort_model else None
        return read_ort_profile(args.ort_profile, model, optimized)
    try:
        profiler = Profiler(model, args.runs)
    except ExecError as e:
        raise UserError(str(e), exit_code=1) from None
    try:
        feeds, _, _ = input_feeds(args, model, profiler.session)
        missing = [n for n in profiler.session.input_names if n not in feeds and n not in model.graph.initializers]
        if missing:
            raise UserError(f"no value for input{'s' if len(missing) > 1 else ''} {', '.join(missing)}: give "
                            "them with --input or --load-inputs, or make them with --random")
        if args.onnxruntime:
            from ..core.exec.ort_profile import profile_with_onnxruntime
            return profile_with_onnxruntime(model, feeds, args.runs)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)    # NaN says it in the result, as in `run`
            return profiler.run(feeds)
    except FeedError as e:
        raise UserError(str(e)) from None
    except ExecError as e:
        raise UserError(str(e), exit_code=1) from None


def _read_saved(path: str) -> Profile:
    try:
        return Profile.read(path, f"--compare {path}")
    except ProfileError as e:
        raise UserError(str(e)) from None


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}"


def _print_profile(p: Profile, top: int) -> None:
    who = "onnxruntime" if p.source == "onnxruntime" else "the built-in executor"
    print(f"{p.model}: {p.runs} run{'s' if p.runs != 1 else ''} with {who}, {_ms(p.wall)} ms a run "
          f"({_ms(p.total)} ms in nodes)")
    print(f"\nslowest nodes (of {sum(1 for n in p.nodes if n.seconds > 0)} with a time):")
    print(f"  {'share':>6}  {'ms/run':>8}  {'op type':<20} node")
    for n in p.top_nodes(top):
        merged = f"  (merged with {len(n.merged)}: {', '.join(n.merged[:3])}{' …' if len(n.merged) > 3 else ''})" \
            if n.merged else ""
        print(f"  {p.share(n.seconds):6.1%}  {_ms(n.seconds):>8}  {n.op_type:<20} {n.name}{merged}")
    print("\nop types:")
    print(f"  {'share':>6}  {'ms/run':>8}  {'nodes':>5}  op type")
    for t in p.by_op()[:top]:
        print(f"  {p.share(t.seconds):6.1%}  {_ms(t.seconds):>8}  {t.count:>5}  {t.op_type}")
    if p.unmapped:
        print(f"\nnot tied to a node ({p.share(p.unmapped_seconds):.1%} of the time):")
        for name, op, seconds in p.unmapped[:top]:
            print(f"  {p.share(seconds):6.1%}  {_ms(seconds):>8}  {op:<20} {name}")
    for note in p.notes:
        print(f"note: {note}")


def _print_diff(diff, top: int) -> None:
    print(f"\ncompared with the earlier profile ({diff.before.source}): {_ms(diff.before.wall)} → "
          f"{_ms(diff.after.wall)} ms a run ({_signed(diff.wall_delta)} ms)")
    print("largest changes by node:")
    for d in diff.nodes[:top]:
        print(f"  {_signed(d.delta):>9} ms  {_ms(d.before):>8} → {_ms(d.after):>8}  {d.op_type:<20} {d.name}")
    print("by op type:")
    for d in diff.op_types[:top]:
        print(f"  {_signed(d.delta):>9} ms  {_ms(d.before):>8} → {_ms(d.after):>8}  {d.op_type}")
    if diff.only_before:
        print(f"only in the earlier profile: {len(diff.only_before)} nodes ({', '.join(diff.only_before[:5])}"
              f"{' …' if len(diff.only_before) > 5 else ''})")
    if diff.only_after:
        print(f"only in this profile: {len(diff.only_after)} nodes ({', '.join(diff.only_after[:5])}"
              f"{' …' if len(diff.only_after) > 5 else ''})")


def _signed(seconds: float) -> str:
    return f"{seconds * 1e3:+.3f}"
