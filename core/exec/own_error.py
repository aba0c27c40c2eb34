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
from ..opsets import canonical_domain
from .compare import ATOL, RTOL, RANDOM_OPS, compare_values, constant_values
from .reference_quirks import EXPLAINABLE_OPS, explains

Lookup = Callable[[str], object]          # a value by name; KeyError when it is not held


@dataclass
class OwnResult:
    """One node run alone on the reference's inputs."""
    node: Node
    outputs: list = field(default_factory=list)     # ValueDiff per output the reference gives
    note: str = ""                                  # why it was not judged ("" when it was)
    explained: str = ""          # why it differs without being wrong (reference_quirks.py); "" otherwise


def own_errors(model: Model, nodes: Iterable[Node], reference: Lookup, ours_constant: Lookup, *,
               graph: Optional[Graph] = None, constants: Optional[set] = None, rtol: float = RTOL,
               atol: float = ATOL, tolerances: Optional[dict] = None, seed: int = 0,
               cancelled: Callable[[], bool] = lambda: False,
               progress: Optional[Callable[[int, int, Node], None]] = None) -> dict[int, OwnResult]:
    """{id(node): OwnResult} for each of `nodes` (nodes of `graph`, the main
    graph by default). `reference(name)` gives the reference's value of a
    computed value, `ours_constant(name)` our value of a constant one (both
    raise KeyError when they do not hold it). `cancelled()` is asked before
    each node (a cancelled pass returns the nodes measured so far), and
    `progress(i, n, node)` told of it."""
    graph = graph if graph is not None else model.graph
    constants = constants if constants is not None else constant_values(graph)
    nodes = list(nodes)
    out = {}
    with _one_blas_thread():
        for i, node in enumerate(nodes):
            if cancelled():
                break
            if progress is not None:
                progress(i, len(nodes), node)
            out[id(node)] = own_error(model, node, reference, ours_constant, graph=graph, constants=constants,
                                      rtol=rtol, atol=atol, tolerances=tolerances, seed=seed)
    return out


def _one_blas_thread():
    """One BLAS thread for the pass, when it runs on the main thread and
    one thread gives the bits the run's threads gave.

    The pass makes one small product per MatMul, where OpenBLAS's threads
    only wait for each other on a busy machine (threads.ThreadTuner): on
    bert_12layer_narrow on two shared cores, 192 products took ~25 ms each
    with two threads, well under 1 ms with one. Where the thread count
    changes the bits (threads.thread_count_keeps_bits), a node the edit did
    not touch would show an own error of ~1e-7 against a run of ours: the
    count is kept. The setting is process-wide, so a worker thread (the
    app's) leaves it as it is, as the session's tuner does."""
    import threading
    from contextlib import nullcontext
    from .threads import blas_threads, limited_blas_threads, thread_count_keeps_bits
    if threading.current_thread() is not threading.main_thread():
        return nullcontext()
    available = blas_threads()
    if available and available > 1 and not thread_count_keeps_bits(available):
        return nullcontext()
    return limited_blas_threads(1)


def own_error(model: Model, node: Node, reference: Lookup, ours_constant: Lookup, *, graph: Graph,
              constants: set, rtol: float = RTOL, atol: float = ATOL, tolerances: Optional[dict] = None,
              seed: int = 0) -> OwnResult:
    """`node` run alone by our executor on the reference's inputs (our constants)."""
    from .errors import ExecError, FeedError

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
        mine = _run_alone(model, node, graph, feeds, list(theirs), seed)
    except (ExecError, FeedError) as e:
        result.note = f"does not run on the reference's inputs: {str(e).splitlines()[0]}"
        return result
    diffs = compare_values(mine, theirs, rtol=rtol, atol=atol, tolerances=tolerances)
    result.outputs = [diffs[n] for n in outs if n in diffs]
    if node.op_type in EXPLAINABLE_OPS and not all(d.agrees for d in result.outputs):
        result.explained = _reference_quirk(node, graph, feeds, mine, theirs)
    return result


def _reference_quirk(node: Node, graph: Graph, feeds: dict, mine: dict, theirs: dict) -> str:
    """Why the node's outputs differ from the reference's, when the reference
    is known to compute them otherwise (reference_quirks.py); "" when that
    is not shown exactly."""
    from .values import normalize
    names = [v.name if v is not None else "" for v in node.outputs]
    inputs = []
    for v in node.inputs:
        if v is None or not v.name:
            inputs.append(None)
        elif v.name in feeds:
            inputs.append(feeds[v.name])
        elif v.name in graph.initializers:
            inputs.append(normalize(graph.initializers[v.name].const))
        else:
            return ""
    from .plan import node_attrs
    try:
        return explains(node, inputs, node_attrs(node), [mine.get(n) for n in names],
                        [theirs.get(n) for n in names]) or ""
    except (ValueError, IndexError, TypeError):     # a shape the check did not foresee: no claim made
        return ""


def _run_alone(model: Model, node: Node, graph: Graph, feeds: dict, outputs: list, seed: int) -> dict:
    """`node`'s `outputs` computed from `feeds` (its inputs by name).

    A plain kernel is called directly, as a session's step calls it: the
    node's decoded attributes, its inputs in order, initializers read from
    the graph. Building a one-node session (its plan, constant folding and
    runners) cost ~40% of the pass on bert_12layer_narrow, for one call.
    Nodes that need a session (model-local functions, context kernels:
    bodies, random number generators, opset queries) still get one."""
    from .failures import node_failure
    from .fast_steps import store_result
    from .plan import node_attrs
    from .registry import find_kernel
    from .session import Session
    from .values import normalize

    domain = canonical_domain(node.domain)
    opsets = model.opset_imports
    opset = opsets.get(domain, 0) or (opsets.get("", 1) if domain == "" else 0)
    kernel = find_kernel(domain, node.op_type, opset) if opset else None
    if (kernel is None or kernel.context or graph is not model.graph
            or model.function(node.domain, node.op_type, node.overload) is not None):
        session = Session(model, graph=graph, nodes=[node], outputs=outputs, seed=seed)
        return session.run({k: x for k, x in feeds.items() if k in session.input_names})
    names = [v.name if v is not None else "" for v in node.inputs]
    while names and not names[-1]:
        names.pop()
    args = []
    for name in names:
        if not name:
            args.append(None)
        elif name in feeds:
            args.append(feeds[name])
        elif name in graph.sparse_initializers:  # constants the reference does not hold
            args.append(graph.sparse_initializers[name].const.to_dense())
        else:
            args.append(normalize(graph.initializers[name].const))
    attrs = node_attrs(node)
    try:
        result = kernel.fn(*args, **attrs)
    except Exception as e:  # noqa: BLE001 - reported as the node's failure, as a run reports it
        raise node_failure(node, names, args, e) from e
    values: dict = {}
    store_result(values, [v.name if v is not None else "" for v in node.outputs], result, ())
    return {n: values[n] for n in outputs if n in values}


def add_own_errors(report, model: Model, ours: dict, reference: dict, *, graph: Optional[Graph] = None,
                   seed: int = 0, cancelled: Callable[[], bool] = lambda: False,
                   progress: Optional[Callable[[int, int, Node], None]] = None) -> None:
    """Fill each compared node's own error (NodeDiff.own, own_note) in
    `report` (a compare.Report of `graph`), from `ours` (our run's values,
    constants taken from it) and `reference` (the reference's values,
    its graph inputs included), judged with the report's tolerances.
    A pass `cancelled` partway fills the nodes measured and says so in
    report.own_cancelled: (measured, to measure)."""
    todo = [nd.node for nd in report.nodes if not nd.constant]
    results = own_errors(model, todo, reference.__getitem__, ours.__getitem__, graph=graph, rtol=report.rtol,
                         atol=report.atol, tolerances=report.tolerances, seed=seed, cancelled=cancelled,
                         progress=progress)
    fill_own(report, results, cancelled=len(results) < len(todo))


CANCELLED_NOTE = "not measured: the own-error pass was cancelled"


def fill_own(report, results: dict, *, cancelled: bool = False) -> None:
    """Set each NodeDiff's own error (own, own_note) from `results`
    ({id(node): OwnResult}); with `cancelled`, the nodes without a result
    say they were not measured, and report.own_cancelled how many were."""
    for nd in report.nodes:
        r = results.get(id(nd.node))
        if nd.constant:
            nd.own_note = "holds a constant"
        elif r is not None:
            nd.own, nd.own_note = (None, r.note) if r.note else (r.outputs, "")
            nd.explained = r.explained
        elif cancelled:
            nd.own, nd.own_note = None, CANCELLED_NOTE
    if cancelled:
        report.own_cancelled = (len(results), sum(not nd.constant for nd in report.nodes))
