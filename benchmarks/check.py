"""Checker speed: full check against onnx.checker, and incremental re-check.

    python benchmarks/check.py [--models DIR] [--nodes 10000] [--repeat 5]

Prints, per shared model, the median time of onnx.checker.check_model
(full_check=False and True; both start from an in-memory onnx ModelProto,
which onnx serialises for its C++ checker) and of our full check starting
from an in-memory ModelProto of ours (declared + signature-derived types, no
core.infer), with ratios ours/onnx. The three are timed interleaved, one
round after the other, so a noisy machine slows them alike. Then builds a
model of --nodes nodes and times the incremental re-check after changing one
attribute, and the full re-check a structural edit (node insert/remove) needs.
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
from timing import interleaved_medians


def full_check_table(models_dir: pathlib.Path, repeat: int) -> None:
    print(f"{'model':24} {'nodes':>6} {'onnx':>9} {'onnx full':>10} {'ours':>9} {'ours/onnx':>10} {'ours/full':>10}")
    for path in sorted(models_dir.glob("*/model.onnx")):
        data = path.read_bytes()
        theirs = onnx.load_from_string(data)
        ours = pb.ModelProto()
        ours.ParseFromString(data)
        t_onnx, t_full, t_ours = interleaved_medians(
            [lambda: onnx.checker.check_model(theirs, full_check=False),
             lambda: onnx.checker.check_model(theirs, full_check=True),
             lambda: CheckSession(ours, model_dir=path.parent)], repeat)
        print(f"{path.parent.name:24} {len(ours.graph.node):6d} {t_onnx * 1e3:8.3f}ms {t_full * 1e3:9.3f}ms "
              f"{t_ours * 1e3:8.3f}ms {t_ours / t_onnx:9.2f}x {t_ours / t_full:9.2f}x")


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
    structural(model, session)


def structural(model: pb.ModelProto, session: CheckSession, rounds: int = 5) -> None:
    """Insert / remove of a node shifts indices and paths: the session is
    re-checked in full (CheckSession.full)."""
    g = model.graph
    times = []
    for k in range(rounds):
        middle = len(g.node) // 2
        if k % 2 == 0:      # an Identity on the edge into the middle node
            node = g.node[middle]
            new = pb.NodeProto(op_type="Identity", name=f"/inserted{k}", input=[node.input[0]],
                               output=[f"inserted{k}"])
            node.input[0] = f"inserted{k}"
            g.node.insert(middle, new)
        else:               # and out again
            removed = g.node[middle]
            g.node[middle + 1].input[0] = removed.input[0]
            del g.node[middle]
        t = time.perf_counter()
        session.full()
        times.append(time.perf_counter() - t)
    assert session.diagnostics == CheckSession(model).diagnostics
    print(f"structural edit (node insert/remove) then full re-check: median {statistics.median(times) * 1e3:.0f} ms")


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
