"""Time of the own-error pass (core/exec/own_error.py) on bert_12layer_narrow.

Each node is run alone on the reference's values of its inputs. The
reference here is a second run of ours (the cost of the pass does not
depend on where the reference's values come from), so no onnxruntime is
needed. Prints the pass's time, best of --repeat.

    .venv/bin/python benchmarks/own_errors.py [--model bert_12layer_narrow] [--repeat 3] [--session]
"""
from __future__ import annotations

import argparse
import pathlib
import time

import numpy as np

from onnxstudio.core import load
from onnxstudio.core.exec.compare import compare_values, node_report
from onnxstudio.core.exec import own_error
from onnxstudio.core.exec.own_error import add_own_errors
from onnxstudio.core.exec.session import Session

MODELS = pathlib.Path("/work/shared/models")


def _in_session(model, node, graph, feeds, outputs, seed):
    session = Session(model, graph=graph, nodes=[node], outputs=outputs, seed=seed)
    return session.run({k: x for k, x in feeds.items() if k in session.input_names})


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="bert_12layer_narrow")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--session", action="store_true",
                    help="run each node through a one-node Session, as the pass did before it called kernels directly")
    args = ap.parse_args()
    if args.session:
        own_error._run_alone = _in_session
    model = load(MODELS / args.model / "model.onnx")
    with np.load(MODELS / args.model / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    session = Session(model, keep=True)
    outputs = session.run(feeds)
    ours = {**session.values, **outputs}
    best = float("inf")
    for _ in range(args.repeat):
        report = node_report(model.graph, compare_values(ours, ours))
        t0 = time.perf_counter()
        add_own_errors(report, model, ours, {**feeds, **ours})
        best = min(best, time.perf_counter() - t0)
    judged = sum(nd.own is not None for nd in report.nodes)
    shape = {k: v.shape for k, v in feeds.items()}
    print(f"{args.model} {shape}: own errors of {judged} of {len(report.nodes)} nodes in {best:.2f} s "
          f"(best of {args.repeat})")


if __name__ == "__main__":
    main()
