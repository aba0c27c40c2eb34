"""Edit timings through the Document: apply + incremental check + inference
update, and the undo of it, per edit kind.

    python benchmarks/edit.py [--nodes 10000] [--repeat 15] [--models DIR]

Targets (issue 11, on 10k nodes): attribute edit <= 10 ms, structural edits
(rename, insert on edge, bypass-delete) <= 30 ms, set input dims <= 100 ms.
Each figure is the median of `--repeat` rounds; a round builds the edit
("make": compound edits look at the model, set_input_shape runs inference
to re-derive declarations), applies it, reads the diagnostics and the types
(which brings the checker and inference up to date: LiveChecker.apply),
then undoes it and reads them again. "make" is not part of the targets'
figures: a script or the app builds an edit once and may apply it often.
"checker ms" is the live checker's share of the apply's update
(LiveChecker.apply; the rest is the edit itself and inference).
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).parent))


def _kinds(doc):
    """(label, make edit) for each edit kind; each maker picks its target in
    the middle of the graph so the work downstream is typical."""
    from onnxstudio.core import edits
    from onnxstudio.core.ir import AttrType
    model = doc.model
    nodes = list(model.graph.nodes)
    mid = len(nodes) // 2

    def pick(pred):
        for n in nodes[mid:] + nodes[:mid]:
            if pred(n):
                return n
        raise LookupError("no suitable node")
    ref = edits.node_ref
    out = []
    soft = pick(lambda n: n.op_type in ("Softmax", "ReduceMean", "Transpose", "Concat", "Gemm"))
    attr = next(iter(soft.attributes.values()), None)
    if attr is not None and attr.type == AttrType.INT:
        out.append(("attribute", lambda: edits.SetAttribute(ref(soft), attr.name, AttrType.INT, attr.value)))
    else:
        out.append(("attribute", lambda: edits.SetAttribute(ref(soft), "bench_attr", AttrType.INT, 1)))
    single = pick(lambda n: len(n.outputs) == 1 and n.outputs[0] is not None and n.outputs[0].consumers
                  and n.op_type in ("Add", "Mul", "Relu", "Sub", "Div", "MatMul", "Softmax"))
    value = single.outputs[0].name
    if hasattr(edits, "rename_everywhere"):
        out.append(("rename", lambda: edits.rename_everywhere(model, value, value + "_renamed")))
    if hasattr(edits, "insert_on_edge"):
        out.append(("insert on edge", lambda: edits.insert_on_edge(model, value, "Identity")))
    if hasattr(edits, "bypass_node"):
        out.append(("bypass-delete", lambda: edits.bypass_node(model, ref(single))))
    if hasattr(edits, "set_input_shape") and model.graph.inputs:
        inp = model.graph.inputs[0]
        shape = getattr(inp.type, "shape", None)
        if shape:
            new = ["batch_x" if i == 0 else d for i, d in enumerate(shape)]
            out.append(("set input dims", lambda: edits.set_input_shape(model, inp.name, new)))
    return out


def bench(label: str, doc, repeat: int) -> None:
    def settle():
        doc.diagnostics
        doc.type_of(doc.model.graph.outputs[0])
    settle()
    # The checker's share of an update (LiveChecker.apply), timed apart.
    checker = doc.analysis.checker
    spent = []
    plain_apply = checker.apply

    def timed_apply(*args, **kwargs):
        t = time.perf_counter()
        try:
            return plain_apply(*args, **kwargs)
        finally:
            spent.append(time.perf_counter() - t)
    checker.apply = timed_apply
    print(f"\n{label}: {len(doc.model.graph.nodes)} nodes")
    print(f"  {'edit':<16} {'apply+update ms':>16} {'undo+update ms':>16} {'make ms':>9} {'checker ms':>11}")
    for kind, make in _kinds(doc):
        fwd, back, made, checks = [], [], [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            edit = make()
            made.append(time.perf_counter() - t0)
            spent.clear()
            t = time.perf_counter()
            doc.apply(edit)
            settle()
            t1 = time.perf_counter()
            checks.append(sum(spent))
            doc.undo()
            settle()
            t2 = time.perf_counter()
            fwd.append(t1 - t)
            back.append(t2 - t1)
        print(f"  {kind:<16} {statistics.median(fwd) * 1e3:16.2f} {statistics.median(back) * 1e3:16.2f} "
              f"{statistics.median(made) * 1e3:9.2f} {statistics.median(checks) * 1e3:11.2f}")
    checker.apply = plain_apply


def main() -> None:
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from synthetic_model import build
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--models", type=pathlib.Path,
                   default=pathlib.Path(__file__).resolve().parents[2] / "shared" / "models")
    args = p.parse_args()
    bench("synthetic transformer", Document(core.load_bytes(build(args.nodes).SerializeToString())), args.repeat)
    bert = args.models / "bert_12layer_narrow" / "model.onnx"
    if bert.is_file():
        bench("bert_12layer_narrow", Document.open(bert), args.repeat)


if __name__ == "__main__":
    main()
