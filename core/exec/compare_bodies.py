"""Comparing the values inside If/Loop/Scan bodies with onnxruntime.

onnxruntime exposes a main graph's intermediates as extra outputs, but
not the values inside a body: a body's graph has its own outputs, fixed by
its node. So each body that ran (and whose values our run kept, kept.py) is
handed to onnxruntime as a model of its own:

- its graph is the body's, as in the file (its initializers and nested
  bodies with it);
- its inputs are the body's own inputs (a Loop's iteration number,
  condition and carried values) and the values it reads from the graphs
  around it (`ir.nesting.outer_values`, scoped by graph, not by name), fed
  with OUR values of them: the body's inputs as our run last entered it,
  and the enclosing values as our run computed them;
- its outputs are every value its nodes compute.

So a body value agreeing means: given the same inputs as ours, onnxruntime
computes the same inside the body. Whether those inputs themselves agree is
the enclosing graph's comparison (the If/Loop node's inputs and outputs are
compared there). For a body run several times (a loop), the last run is
compared, the one whose values are kept. What is not compared is said, with
why: a body that did not run (the If branch not taken), a value over the
memory budget, a value that is not a tensor, onnxruntime refusing the body.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..ir import Graph, Model
from ..ir.nesting import outer_values
from .kept import BodyValues
from .values import normalize


@dataclass
class BodyReport:
    """One body's values compared (or why not)."""
    graph: Graph
    runs: int = 0                     # how many times the body ran in our run
    run: int = -1                     # which run's values were compared (the last)
    report: object = None             # compare.Report of the body's nodes, when compared
    not_compared: list = field(default_factory=list)     # (value name, why)
    note: str = ""                    # why the body as a whole was not compared

    @property
    def path(self) -> str:
        return self.graph.path

    @property
    def compared(self) -> int:
        return len(self.report.values) if self.report is not None else 0

    def to_json(self) -> dict:
        return {"graph": self.path, "runs": self.runs, "compared_run": self.run,
                "compared": self.compared, "note": self.note,
                "agrees": self.report.agrees if self.report is not None else None,
                "nodes": [n.to_json() for n in self.report.nodes] if self.report is not None else [],
                "not_compared": [{"name": n, "why": why} for n, why in self.not_compared]}


def compare_bodies(model: Model, ours: dict, kept: Optional[BodyValues], *, run_body, compare,
                   paths: Optional[set] = None) -> list:
    """A BodyReport for every body of `model`'s main graph (at any depth),
    or only those whose path is in `paths`.
    `ours`: the main graph's values of our run; `kept`: its body values;
    `run_body(model_proto_bytes, feeds, names)` runs onnxruntime and returns
    {name: value} (raising compare.CompareError when it refuses);
    `compare(graph, ours, theirs)` makes the node report."""
    reports = []
    for graph in model.graph.walk():
        if graph is model.graph or (paths is not None and graph.path not in paths):
            continue
        reports.append(_one_body(model, graph, ours, kept, run_body, compare))
    return reports


def _one_body(model, graph, ours, kept, run_body, compare) -> BodyReport:
    from .compare import CompareError
    out = BodyReport(graph)
    path = graph.path
    computed = [v.name for n in graph.nodes for v in n.outputs if v is not None and v.name]
    if kept is None:
        out.note = "values inside bodies were not kept by this run"
        out.not_compared = [(n, out.note) for n in computed]
        return out
    out.runs = kept.runs.get(path, 0)
    if not out.runs:
        out.note = "did not run (an If branch not taken, or a loop of no iteration)"
        return out
    out.run = kept.iterations[path]
    mine = {n: kept.values[(path, n)] for n in computed if (path, n) in kept.values}
    for n in computed:
        if (path, n) in kept.not_kept:
            out.not_compared.append((n, "not kept: over the memory budget"))
        elif n not in mine:
            out.not_compared.append((n, "no value in our run"))
    feeds, missing = _feeds(model, graph, ours, kept)
    if missing:
        out.note = f"what the body reads was not kept ({', '.join(missing[:3])}): nothing to feed onnxruntime"
        out.not_compared = [(n, out.note) for n in computed]
        return out
    tensors = [n for n in mine if _is_tensor(mine[n])]
    out.not_compared += [(n, "not a tensor (onnxruntime returns tensors only here)")
                         for n in mine if n not in tensors]
    try:
        blob = body_model(model, graph, feeds, {n: mine[n] for n in tensors})
        theirs = run_body(blob, feeds, tensors)
    except CompareError as e:
        out.note = f"onnxruntime could not run the body on its own: {e}"
        out.not_compared = [(n, out.note) for n in computed]
        return out
    out.not_compared += [(n, "onnxruntime did not return it") for n in tensors if n not in theirs]
    out.report = compare(graph, {n: mine[n] for n in tensors if n in theirs}, theirs)
    return out


def _is_tensor(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def _feeds(model: Model, graph: Graph, ours: dict, kept: BodyValues) -> tuple[dict, list]:
    """Our values of the body's inputs (its last run) and of what it reads
    from outside; the names with no such value."""
    feeds, missing = {}, []
    for v in graph.inputs:
        if v is None or not v.name:
            continue
        key = (graph.path, v.name)
        if key in kept.values:
            feeds[v.name] = kept.values[key]
        else:
            missing.append(v.name)
    for v in outer_values(graph):
        value = _outer_value(model, v, ours, kept)
        if value is None:
            missing.append(v.name)
        else:
            feeds[v.name] = value
    return feeds, missing


def _outer_value(model: Model, v, ours: dict, kept: BodyValues):
    if v.const is not None:
        return normalize(v.const)
    where = v.graph
    if where is None or where is model.graph:
        return ours.get(v.name)
    return kept.values.get((where.path, v.name))


def body_model(model: Model, graph: Graph, feeds: dict, outputs: dict) -> bytes:
    """The bytes of a model whose main graph is `graph` (a body of `model`),
    taking `feeds` as inputs and giving `outputs` (typed by our values)."""
    from ..ir.dtypes import from_numpy_dtype
    from ..proto import onnx_pb2 as pb
    from ..serde.io import to_bytes
    from .compare import CompareError

    try:
        mp = pb.ModelProto()
        mp.ParseFromString(to_bytes(model))
    except Exception as e:  # noqa: BLE001 - a model we cannot serialise is not comparable
        raise CompareError(f"cannot hand the model to onnxruntime: {e}") from None
    body = _find(mp.graph, _route(graph))
    if body is None:
        raise CompareError(f"{graph.path} is not a single graph attribute")
    sub = pb.GraphProto()
    sub.CopyFrom(body)
    del sub.input[:]
    del sub.output[:]
    for name, value in feeds.items():
        _typed(sub.input.add(), name, value, from_numpy_dtype, shaped=True)
    for name, value in outputs.items():
        _typed(sub.output.add(), name, value, from_numpy_dtype, shaped=False)
    # Feeds for the enclosing graph's initializers come in as inputs now;
    # the body's own initializers stay initializers.
    mp.graph.CopyFrom(sub)
    return mp.SerializeToString()


def _route(graph: Graph) -> list:
    """(node index, attribute name) from the main graph down to `graph`."""
    route = []
    while graph.parent_node is not None:
        route.append((graph.parent_node.index, graph.attr_name))
        graph = graph.parent_node.graph
    return route[::-1]


def _find(gp, route):
    for index, attr in route:
        if index >= len(gp.node):
            return None
        a = next((a for a in gp.node[index].attribute if a.name == attr), None)
        if a is None or not a.HasField("g"):
            return None
        gp = a.g
    return gp


def _typed(info, name: str, value, code_of, shaped: bool) -> None:
    """A ValueInfo of a tensor like `value`; outputs get only the element
    type (onnxruntime checks a declared shape against what it computes)."""
    info.name = name
    array = np.asarray(value)
    try:
        code = int(code_of(array.dtype))
    except ValueError:
        return
    t = info.type.tensor_type
    t.elem_type = code
    if shaped:
        shape = t.shape
        for d in array.shape:
            shape.dim.add().dim_value = int(d)


__all__ = ["BodyReport", "compare_bodies", "body_model"]
