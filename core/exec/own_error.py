"""A node's own error: what it gets wrong by itself, not what it inherits.

A comparison colours every node downstream of a broken one, since each
reads values that already differ. To tell the culprit from the nodes that
only inherit its error, each node is run again, alone, by our executor on
the *reference's* values of its inputs, and its outputs compared with the
reference's outputs:

    own = compare(our node(reference inputs), reference outputs)

A node whose own error is small computes what the reference computes from
the same data; the node whose own error is large is where the runs part.

The constants a node reads (initializers, Constant outputs and what nodes
compute from them alone, compare.constant_values) come from OUR model, not
the reference: they are part of the model being checked (an edited weight
shows as the Conv reading it, like the first divergence does). Nodes that
only hold constants have no own error of their own (they are sources), nor
do random operators; a node whose computed input the reference does not
give is not judged, and says which input.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

from ..ir import Graph, Model, Node
from ..ir.nesting import node_reads
from .compare import ATOL, RTOL, RANDOM_OPS, compare_values, constant_values

Lookup = Callable[[str], object]          # a value by name; KeyError when it is not held


@dataclass
class OwnResult:
    """One node run alone on the reference's inputs."""
    node: Node
    outputs: list = field(default_factory=list)     # ValueDiff per output the reference gives
    note: str = ""                                  # why it was not judged ("" when it was)


def own_errors(model: Model, nodes: Iterable[Node], reference: Lookup, ours_constant: Lookup, *,
               graph: Optional[Graph] = None, constants: Optional[set] = None, rtol: float = RTOL,
               atol: float = ATOL, tolerances: Optional[dict] = None, seed: int = 0,
               cancelled: Callable[[], bool] = lambda: False) -> dict[int, OwnResult]:
    """{id(node): OwnResult} for each of `nodes` (nodes of `graph`, the main
    graph by default). `reference(name)` gives the reference's value of a
    computed value, `ours_constant(name)` our value of a constant one (both
    raise KeyError when they do not hold it)."""
    graph = graph if graph is not None else model.graph
    constants = constants if constants is not None else constant_values(graph)
    out = {}
    for node in nodes:
        if cancelled():
            break
        out[id(node)] = own_error(model, node, reference, ours_constant, graph=graph, constants=constants,
                                  rtol=rtol, atol=atol, tolerances=tolerances, seed=seed)
    return out


def own_error(model: Model, node: Node, reference: Lookup, ours_constant: Lookup, *, graph: Graph,
              constants: set, rtol: float = RTOL, atol: float = ATOL, tolerances: Optional[dict] = None,
              seed: int = 0) -> OwnResult:
    """`node` run alone by our executor on the reference's inputs (our constants)."""
    from .errors import ExecError, FeedError
    from .session import Session

    result = OwnResult(node)
    outs = [v.name for v in node.outputs if v is not None and v.name]
    if all(name in constants for name in outs):
        result.note = "holds a constant"
        return result
    if node.op_type in RANDOM_OPS:
        result.note = "random operator"
        return result
    theirs = {}
    for name in outs:
        try:
            theirs[name] = reference(name)
        except KeyError:
            pass
    if not theirs:
        result.note = "the reference gives none of its outputs"
        return result
    feeds = {}
    for v in node_reads(node):
        if v.name in feeds or not v.name:
            continue
        try:
            feeds[v.name] = ours_constant(v.name) if v.name in constants else reference(v.name)
        except KeyError:
            if v.name in constants and v.const is not None:
                continue                      # an initializer: the session reads it from the model
            result.note = f"input {v.name!r} is not given by the reference"
            return result
    try:
        session = Session(model, graph=graph, nodes=[node], outputs=list(theirs), seed=seed)
        mine = session.run({k: x for k, x in feeds.items() if k in session.input_names})
    except (ExecError, FeedError) as e:
        result.note = f"does not run on the reference's inputs: {str(e).splitlines()[0]}"
        return result
    diffs = compare_values(mine, theirs, rtol=rtol, atol=atol, tolerances=tolerances)
    result.outputs = [diffs[n] for n in outs if n in diffs]
    return result


def add_own_errors(report, model: Model, ours: dict, reference: dict, *, graph: Optional[Graph] = None,
                   seed: int = 0, cancelled: Callable[[], bool] = lambda: False) -> None:
    """Fill each compared node's own error (NodeDiff.own, own_note) in
    `report` (a compare.Report of `graph`), from `ours` (our run's values,
    constants taken from it) and `reference` (the reference's values,
    its graph inputs included), judged with the report's tolerances."""
    results = own_errors(model, [nd.node for nd in report.nodes if not nd.constant], reference.__getitem__,
                         ours.__getitem__, graph=graph, rtol=report.rtol, atol=report.atol,
                         tolerances=report.tolerances, seed=seed, cancelled=cancelled)
    fill_own(report, results)


def fill_own(report, results: dict) -> None:
    """Set each NodeDiff's own error (own, own_note) from `results` ({id(node): OwnResult})."""
    for nd in report.nodes:
        r = results.get(id(nd.node))
        if nd.constant:
            nd.own_note = "holds a constant"
        elif r is not None:
            nd.own, nd.own_note = (None, r.note) if r.note else (r.outputs, "")
