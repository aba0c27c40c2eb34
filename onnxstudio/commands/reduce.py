"""`onnxstudio reduce FILE --compare-onnxruntime -o small.onnx`: the
smallest subgraph that still disagrees with the reference, with its inputs
beside it, to attach to a bug report (core/exec/reduce.py)."""
from __future__ import annotations

import json

from ..core import load
from ..core.exec import ExecError, FeedError, Session
from ..errors import UserError
from ._compare import WHO, comparison_options, configure_comparison, make_report
from ._names import unknown_name
from .counts import counted
from .run import configure_inputs, file_target, input_feeds

NAME = "reduce"


def configure(p) -> None:
    configure_inputs(p)
    configure_comparison(p)
    p.add_argument("--output", "-o", required=True, metavar="SMALL.onnx",
                   help="the small model; SMALL.inputs.npz (its inputs), SMALL.expected.npz (the reference's "
                        "outputs on them) and, when the reference is another model, SMALL.reference.onnx (its "
                        "same nodes) are written beside it")
    p.add_argument("--node", metavar="NAME", help="start from this node instead of the one with the largest own error")
    p.add_argument("--max-nodes", type=int, default=64, metavar="N",
                   help="give up when the smallest failing subgraph would have more than N nodes (default 64)")
    p.add_argument("--json", action="store_true", help="print one JSON object: the files written and the nodes")


def _runner(chosen: dict):
    """How the reference runs a small model: onnxruntime, our executor on
    the other model's nodes, or the golden values looked up."""
    from ..core.exec.compare import CompareError
    from ..core.exec.reduce import onnxruntime_runner
    from ..core.exec.session import run
    kind, options = chosen["kind"], chosen["options"]
    if kind == "onnxruntime":
        return onnxruntime_runner(options.get("provider", "CPUExecutionProvider"),
                                  options.get("opt_level", "disable")), chosen.get("reference_model")
    if kind == "model":
        return (lambda model, feeds, names: run(model, feeds)), chosen["other"]
    golden = chosen["golden"]

    def look_up(model, feeds, names):
        missing = [n for n in names if n not in golden]
        if missing:
            raise CompareError(f"the golden set has no value {missing[0]!r}")
        return {n: golden[n] for n in names}
    return look_up, None


def run(args) -> int:
    model = load(args.file)
    chosen = comparison_options(args, model)
    if chosen is None:
        raise UserError("reduce needs a reference to disagree with: add --compare-onnxruntime, --golden FILE.npz "
                        "or --compare-model OTHER.onnx")
    if args.memory_budget:
        raise UserError("--memory-budget: reduce needs the reference's values of every intermediate; "
                        "leave it out (use run --memory-budget to find the divergence first)")
    if args.max_nodes < 1:
        raise UserError(f"--max-nodes {args.max_nodes}: give 1 or more")
    target = file_target("--output", args.output, ".onnx", "SMALL")
    start = None
    if args.node:
        start = next((n for n in model.graph.nodes if n.name == args.node), None)
        if start is None:
            raise unknown_name("--node", args.node, "node", f"the main graph of {args.file}",
                               [n.name for n in model.graph.nodes if n.name])
    try:
        session = Session(model, seed=args.seed)
        feeds, _, _ = input_feeds(args, model, session)
    except FeedError as e:
        raise UserError(str(e)) from None
    except ExecError as e:
        raise UserError(str(e), exit_code=1) from None
    report, reference_values, _ = make_report(args, model, feeds, chosen)
    from ..core.exec.reduce import ReduceError, reduce_failing, write_reduced
    from ..core.errors import SaveError
    run_reference, reference_model = _runner(chosen)
    try:
        small = reduce_failing(model, report, reference_values, run_reference=run_reference,
                               reference_model=reference_model, start=start, rtol=chosen["options"]["rtol"],
                               atol=chosen["options"]["atol"], max_nodes=args.max_nodes, seed=args.seed)
    except ReduceError as e:
        raise UserError(str(e), exit_code=1) from None
    try:
        written = write_reduced(small, target)
    except (OSError, SaveError) as e:
        raise UserError(f"--output {target}: cannot write ({getattr(e, 'strerror', None) or e}); nothing was "
                        f"written") from None
    differing = [d for d in small.diffs.values() if not d.agrees]
    if args.json:
        print(json.dumps({"written": [str(p) for p in written], "nodes": small.nodes, "start": small.start,
                          "inputs": sorted(small.inputs), "differs": [d.to_json() for d in differing]}, indent=1))
        return 0
    who = WHO[chosen["kind"]]
    print(f"the smallest failing subgraph: {counted(len(small.nodes), 'node')} from {small.start} "
          f"({', '.join(small.nodes[:5])}{' ...' if len(small.nodes) > 5 else ''})")
    for d in differing:
        print(f"  {d.name}: ours vs {who} on the saved inputs: max abs error {d.max_abs:.3g}, rel {d.rel:.3g}")
    for p in written:
        print(f"wrote {p}")
    return 0
