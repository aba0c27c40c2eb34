"""Checker speed: full check against onnx.checker, and incremental re-check.

    python benchmarks/check.py [--models DIR] [--nodes 10000] [--repeat 5]

Prints, per shared model, the median time of onnx.checker.check_model
(full_check=False and True; both start from an in-memory onnx ModelProto,
which onnx serialises for its C++ checker) and of our full check starting
from an in-memory ModelProto of ours (declared + signature-derived types, no
core.infer), with ratios ours/onnx, measured two ways (timing.py): one call
of each in turn, and in blocks. The ratio moves with the way: onnx's
serialisations leave caches cold for whatever runs next, and repeated on its
own onnx gains more from warm caches than we do. The last column is the time
Python takes merely to read what a checker must look at (read_floor),
against onnx: the ratio no Python checker over protobuf messages can beat. Then builds a
model of --nodes nodes and times the incremental re-check after changing one
attribute, and the live checker's re-check after a node insert/remove
(LiveChecker.apply on the IR model, inference left out) against a full one.
"""
from __future__ import annotations

import argparse
import pathlib
import random
import statistics
import time

import onnx
from onnx import TensorProto, helper

from onnxstudio.core.check import CheckSession
from onnxstudio.core.proto import onnx_pb2 as pb
from timing import block_medians, interleaved_medians


def full_check_table(models_dir: pathlib.Path, repeat: int) -> None:
    print("Full check, ms. 'per call': one call of each in turn (each meets the caches the others left);")
    print("'blocks': each repeated on its own for a while (steady state, warm caches). 'floor': the least any")
    print("checker must read out of protobuf from Python (read_floor), in blocks, as a multiple of onnx.checker.")
    print(f"{'':31}{'---------- per call ----------':>40} {'------------ blocks ------------':>42}")
    print(f"{'model':24} {'nodes':>6} {'onnx':>9} {'onnx full':>10} {'ours':>9} {'ours/onnx':>10} "
          f"{'onnx':>9} {'onnx full':>10} {'ours':>9} {'ours/onnx':>10} {'floor/onnx':>11}")
    for path in sorted(models_dir.glob("*/model.onnx")):
        data = path.read_bytes()
        theirs = onnx.load_from_string(data)
        ours = pb.ModelProto()
        ours.ParseFromString(data)
        fns = [lambda: onnx.checker.check_model(theirs, full_check=False),
               lambda: onnx.checker.check_model(theirs, full_check=True),
               lambda: CheckSession(ours, model_dir=path.parent)]
        t_onnx, t_full, t_ours = interleaved_medians(fns, repeat)
        b_onnx, b_full, b_ours, b_floor = block_medians(fns + [lambda: read_floor(ours)], rounds=3,
                                                        budget=4.0, block=0.1)
        print(f"{path.parent.name:24} {len(ours.graph.node):6d} {t_onnx * 1e3:9.3f} {t_full * 1e3:10.3f} "
              f"{t_ours * 1e3:9.3f} {t_ours / t_onnx:9.2f}x {b_onnx * 1e3:9.3f} {b_full * 1e3:10.3f} "
              f"{b_ours * 1e3:9.3f} {b_ours / b_onnx:9.2f}x {b_floor / b_onnx:10.2f}x")


def read_floor(model: pb.ModelProto) -> None:
    """Read, without judging anything, the least a checker of the file form
    must take out of protobuf: the model's own fields, every graph's inputs,
    outputs, value_info (name, type) and initializers (name, element type,
    dims, which data field and its length), every node's actuals, op_type
    and domain, and the rest of each node in one serialisation (the cheapest
    way to see all its attributes; what scan.py keys repeated nodes by),
    into subgraphs and function bodies. No check can cost less from Python;
    its time against onnx.checker bounds the ratio any Python checker can
    reach on protobuf messages."""
    model.ir_version, [(o.domain, o.version) for o in model.opset_import]
    for g in [model.graph] + [t.algorithm for t in model.training_info]:
        _read_graph(g)
    for f in model.functions:
        f.name, f.domain, f.input[:], f.output[:], f.attribute[:], _read_nodes(f.node)


def _read_graph(g) -> None:
    g.name
    for vi in (*g.input, *g.output, *g.value_info):
        vi.name, vi.type.WhichOneof("value"), vi.type.tensor_type.elem_type
    for t in g.initializer:
        t.name, t.data_type, t.dims[:], [len(value) for fd, value in t.ListFields() if fd.name in _DATA_FIELDS]
    _read_nodes(g.node)


_DATA_FIELDS = {"raw_data", "float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data"}
_GRAPH_HOLDERS = {"If", "Loop", "Scan", "SequenceMap"}


def _read_nodes(nodes) -> None:
    for node in nodes:
        node.input[:], node.output[:], node.domain
        if node.op_type in _GRAPH_HOLDERS:
            for a in node.attribute:
                a.name, a.type, a.ListFields()
                if a.type == pb.AttributeProto.GRAPH:
                    _read_graph(a.g)
        else:
            node.SerializeToString()


def big_model(n_nodes: int) -> pb.ModelProto:
    """A chain of Conv / LeakyRelu / Transpose / Add blocks with value_info,
    about `n_nodes` nodes."""
    nodes, value_info = [], []
    prev = "x"
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 4, 3, 3], [0.01] * 144)
    i = 0
    while len(nodes) < n_nodes:
        c, r, t, a = (f"c{i}", f"r{i}", f"t{i}", f"a{i}")
        nodes += [
            helper.make_node("Conv", [prev, "w"], [c], name=f"/block{i}/conv", pads=[1, 1, 1, 1],
                             kernel_shape=[3, 3]),
            helper.make_node("LeakyRelu", [c], [r], name=f"/block{i}/act", alpha=0.1),
            helper.make_node("Transpose", [r], [t], name=f"/block{i}/tr", perm=[0, 1, 3, 2]),
            helper.make_node("Add", [t, prev], [a], name=f"/block{i}/add"),
        ]
        value_info += [helper.make_tensor_value_info(v, TensorProto.FLOAT, [1, 4, 8, 8]) for v in (c, r, t)]
        prev = a
        i += 1
    g = helper.make_graph(nodes, "big", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 8, 8])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 4, 8, 8])],
                          initializer=[w], value_info=value_info)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    ours = pb.ModelProto()
    ours.ParseFromString(m.SerializeToString())
    return ours


def incremental(n_nodes: int, edits: int) -> None:
    model = big_model(n_nodes)
    t = time.perf_counter()
    session = CheckSession(model)
    t_full = time.perf_counter() - t
    rng = random.Random(0)
    with_attrs = [i for i, n in enumerate(model.graph.node) if len(n.attribute)]
    times = []
    for k in range(edits):
        i = rng.choice(with_attrs)
        node = model.graph.node[i]
        attr = node.attribute[0]
        if attr.type == pb.AttributeProto.FLOAT:
            attr.f = 0.01 * k
        elif len(attr.ints):
            attr.ints[0] = k % 3
        t = time.perf_counter()
        session.node_changed(i)
        times.append(time.perf_counter() - t)
    assert session.diagnostics == CheckSession(model).diagnostics, "incremental differs from full"
    times.sort()
    print(f"\nincremental re-check, {len(model.graph.node)} nodes (full check {t_full * 1e3:.0f} ms), "
          f"{edits} single-attribute edits:")
    print(f"  median {statistics.median(times) * 1e3:.2f} ms, p95 {times[int(0.95 * len(times))] * 1e3:.2f} ms, "
          f"max {times[-1] * 1e3:.2f} ms (target <= 20 ms)")
    structural(model)


def structural(model: pb.ModelProto, rounds: int = 9) -> None:
    """An Identity inserted on the edge into the middle node and removed
    again, through the live checker of the IR model (LiveChecker.apply:
    the touched nodes written on demand, the graph unit from the IR's
    def-use links, the touched nodes re-checked) against a full check of the same model."""
    from onnxstudio import core
    from onnxstudio.core.changes import Changes
    from onnxstudio.core.check.live import LiveChecker
    from onnxstudio.core import edits
    ir_model = core.load_bytes(model.SerializeToString())
    live = LiveChecker(ir_model)
    g = ir_model.graph
    inc, full = [], []
    undo = None
    for k in range(rounds):
        if undo is None:        # an Identity on the edge into the middle node
            value = g.nodes[len(g.nodes) // 2].inputs[0].name
            edit = edits.insert_on_edge(ir_model, value, "Identity")
        else:                   # and out again
            edit, undo = undo, None
        changes = Changes()
        inverse = edit.apply(ir_model, changes)
        if k % 2 == 0:
            undo = inverse
        t = time.perf_counter()
        got = live.apply(changes)
        inc.append(time.perf_counter() - t)
        t = time.perf_counter()
        want = LiveChecker(ir_model).diagnostics
        full.append(time.perf_counter() - t)
        assert got == want, "incremental differs from full"
    print(f"structural edit (node insert/remove): LiveChecker.apply median {statistics.median(inc) * 1e3:.1f} ms, "
          f"full check {statistics.median(full) * 1e3:.0f} ms")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", type=pathlib.Path, default=pathlib.Path("/work/shared/models"))
    p.add_argument("--nodes", type=int, default=10_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--edits", type=int, default=200)
    args = p.parse_args()
    full_check_table(args.models, args.repeat)
    incremental(args.nodes, args.edits)


if __name__ == "__main__":
    main()
