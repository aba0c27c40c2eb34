"""Deriving the edit script of a diff (`onnxstudio diff --script`, the
compare window's Save script), with node names and value names looked up
as they are now (an index of node names kept by each step's Changes, the
list of bodies kept by the graph) and, in the same run, as before (a pass
over the graph per lookup), on synthetic transformers (benchmarks/
synthetic_model.py) against a copy exported again: every value and node
renamed, a third of the Softmax axes changed, a quarter of the Erf nodes
bypassed, a Relu inserted after every fifth MatMul. Prints both times, the
ratio, the steps, and the same for the replay of the script on A (through
a Document, as `onnxstudio edit` does), which must give B.

    .venv/bin/python benchmarks/diff_script.py [--nodes 3000 10000] [--repeat 2]
"""
from __future__ import annotations

import argparse
import contextlib
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]


def _pair(n: int):
    import synthetic_model
    from onnxstudio import core
    from onnxstudio.core.edits import SetAttribute, bypass_node, insert_on_edge
    from onnxstudio.core.ir import AttrType
    data = synthetic_model.build(n, hidden=16).SerializeToString()
    a, b = core.load_bytes(data), core.load_bytes(data)
    g = b.graph
    for k, node in enumerate(list(g.nodes)):
        for v in node.outputs:
            if v is not None:
                g.rename_value(v, f"val_{k}_{v.name.rsplit('/', 1)[-1]}")
        node.name = f"node_{k}"
    for node in [x for x in g.nodes if x.op_type == "Softmax"][::3]:
        SetAttribute(node.name, "axis", AttrType.INT, 1).apply(b)
    for node in [x for x in g.nodes if x.op_type == "Erf"][::4]:
        bypass_node(b, node.name).apply(b)
    for i, node in enumerate([x for x in g.nodes if x.op_type == "MatMul"][::5]):
        insert_on_edge(b, node.outputs[0].name, "Relu", name=f"inserted_{i}").apply(b)
    a.graph     # noqa: B018  (built now: the load's time, not the script's)
    return a, b


@contextlib.contextmanager
def _lookups_as_before():
    """Node names by a pass over the graph, bodies by a walk, per lookup."""
    from onnxstudio.core.diff import to_script
    from onnxstudio.core.edits import script
    from onnxstudio.core.ir import Graph
    kept = to_script.node_names_indexed, script.node_names_indexed, Graph._all_graphs
    to_script.node_names_indexed = lambda model: contextlib.nullcontext()
    script.node_names_indexed = lambda model: contextlib.nullcontext(_NoIndex())
    Graph._all_graphs = lambda self: tuple(self.walk())
    try:
        yield
    finally:
        to_script.node_names_indexed, script.node_names_indexed, Graph._all_graphs = kept


class _NoIndex:
    def follow(self, changes) -> None:
        pass


def _derive(a, b):
    from onnxstudio.core.diff import diff_models
    from onnxstudio.core.diff.to_script import derive_script
    d = diff_models(a, b)
    t = time.perf_counter()
    derived = derive_script(d)
    return time.perf_counter() - t, derived


def _replay(a, b, script) -> tuple[float, bool]:
    from onnxstudio.core import Document
    from onnxstudio.core.diff import diff_models
    from onnxstudio.core.edits import replay
    doc = Document(a.clone())
    t = time.perf_counter()
    replay(doc, script)
    return time.perf_counter() - t, diff_models(doc.model, b).equal


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, nargs="+", default=[3000, 10000])
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    for n in args.nodes:
        a, b = _pair(n)
        now = before = replay_now = replay_before = float("inf")
        derived = None
        for _ in range(args.repeat):       # in turn, so the machine's load hits both alike
            t, derived = _derive(a, b)
            now = min(now, t)
            t, equal = _replay(a, b, derived.script)
            replay_now = min(replay_now, t)
            assert equal, "the script replayed on A does not give B"
            with _lookups_as_before():
                t, old = _derive(a, b)
                before = min(before, t)
                t, equal = _replay(a, b, derived.script)
                replay_before = min(replay_before, t)
            assert old.script == derived.script, "the two ways derived different scripts"
            assert equal, "the script replayed on A does not give B"
        print(f"{len(a.graph.nodes):6d} nodes  {len(derived.script):6d} steps  "
              f"{'complete' if derived.complete else f'{len(derived.not_expressed)} not expressed'}  "
              f"derive: before {before:6.2f} s  now {now:5.2f} s  ({before / now:5.1f}x)   "
              f"replay: before {replay_before:6.2f} s  now {replay_now:5.2f} s  "
              f"({replay_before / replay_now:5.1f}x), gives B")


if __name__ == "__main__":
    main()
