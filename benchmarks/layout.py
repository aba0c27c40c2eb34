"""Layout timings: the shared models and a synthetic 10,000-node transformer.

    python benchmarks/layout.py [MODEL_DIR_OR_FILE ...] [--engine auto|dot|pygraphviz|builtin]

For each graph: boxes/edges, cold time (empty cache, fresh temporary
directory), warm time (second call, whole-layout cache hit), the engine used
and the drawing size.  "open" rows show the default view (groups opened
within the box budget); "all" rows open every group.
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import time

from onnxstudio import core
from onnxstudio.core.layout import LayoutCache, available_engines, build_view, layout
from onnxstudio.core.layout.synthetic import transformer_request

SHARED = pathlib.Path(__file__).resolve().parents[2] / "shared" / "models"


def measure(label):
    # Roughly what a 9 pt UI font gives; the viewer passes its real metrics.
    width = max([len(label.title) * 7.0] + [len(line) * 5.5 for line in label.lines]) + 12
    return width, 18 + 12 * len(label.lines)


def timed(request, engine, cache_dir):
    store = LayoutCache(cache_dir)
    start = time.perf_counter()
    cold = layout(request, engine=engine, cache=store)
    t_cold = time.perf_counter() - start
    start = time.perf_counter()
    warm = layout(request, engine=engine, cache=store)
    t_warm = time.perf_counter() - start
    assert warm.from_cache
    return cold, t_cold, t_warm


def piece_counts(request, engine):
    """(pieces, distinct piece layouts) the request is cut into."""
    from onnxstudio.core.layout.api import MAX_PIECE, engine_tag
    from onnxstudio.core.layout.pieces import canonical, plan_pieces
    pieces = plan_pieces(request, MAX_PIECE)
    tag = engine_tag("builtin" if engine == "builtin" else "dot")
    return len(pieces), len({canonical(p, request, tag).key for p in pieces})


def row(name, request, engine, extra=""):
    with tempfile.TemporaryDirectory() as tmp:
        out, cold, warm = timed(request, engine, tmp)
    pieces, unique = piece_counts(request, engine)
    print(f"{name:34s} {len(request.nodes):6d} {len(request.edges):6d} {cold:8.3f} {warm:8.3f}  "
          f"{out.engine:10s} {out.width:7.0f} x {out.height:<8.0f} {pieces:4d}/{unique:<4d} {extra}",
          flush=True)


def synthetic_onnx(layers: int):
    """The synthetic transformer as a real ONNX model (weights as small
    initializers), loaded through our IR: times build_view on 10k nodes."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    request = transformer_request(layers)
    inputs: dict[str, list[str]] = {}
    for e in request.edges:
        inputs.setdefault(e.target, []).append(e.source)
    nodes, inits = [], []
    for n in request.nodes:
        srcs = [f"{s}:out" for s in inputs.get(n.id, [])]
        if not srcs:
            continue   # graph inputs
        op = "MatMul" if n.id.endswith("_mm") else "Add" if len(srcs) > 1 else "Relu"
        if op == "MatMul":
            inits.append(numpy_helper.from_array(np.zeros((4, 4), np.float32), f"{n.id}.weight"))
            srcs = srcs[:1] + [f"{n.id}.weight"]
        nodes.append(helper.make_node(op, srcs, [f"{n.id}:out"], name=n.id))
    info = [helper.make_tensor_value_info(f"{name}:out", TensorProto.FLOAT, ["batch", 4])
            for name in ("input_ids", "attention_mask")]
    out = [helper.make_tensor_value_info("logits:out", TensorProto.FLOAT, ["batch", 4])]
    graph = helper.make_graph(nodes, "synthetic", info, out, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    return core.load_bytes(model.SerializeToString())


def model_paths(args):
    if args:
        return [pathlib.Path(a) / "model.onnx" if pathlib.Path(a).is_dir() else pathlib.Path(a)
                for a in args]
    return sorted(SHARED.glob("*/model.onnx"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*")
    parser.add_argument("--engine", default="auto")
    args = parser.parse_args(argv)
    print(f"engines on this machine: {', '.join(available_engines())}; using {args.engine}")
    print(f"{'graph':34s} {'boxes':>6s} {'edges':>6s} {'cold s':>8s} {'warm s':>8s}  "
          f"{'engine':10s} {'size (pt)':>18s} pieces/distinct")
    for path in model_paths(args.models):
        start = time.perf_counter()
        model = core.load(path)
        load_s = time.perf_counter() - start
        name = path.parent.name if path.name == "model.onnx" else path.stem
        start = time.perf_counter()
        view = build_view(model.graph, measure)
        build_s = time.perf_counter() - start
        row(f"{name} (open)", view.request, args.engine, f"load {load_s:.2f}s view {build_s:.3f}s")
        if view.groups and not all(g.expanded for g in view.groups.values()):
            full = build_view(model.graph, measure, expanded=set(view.groups))
            row(f"{name} (all)", full.request, args.engine)
    model = synthetic_onnx(200)
    for label, expanded in (("open", None), ("all", "all")):
        start = time.perf_counter()
        view = build_view(model.graph, measure)
        if expanded == "all":
            view = build_view(model.graph, measure, expanded=set(view.groups))
        build_s = time.perf_counter() - start
        row(f"synthetic ONNX 200 layers ({label})", view.request, args.engine, f"view {build_s:.3f}s")
    for layers, scoped in ((200, True), (200, False)):
        request = transformer_request(layers, scoped=scoped)
        row(f"synthetic {layers} layers {'scoped' if scoped else 'no scopes'}", request, args.engine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
