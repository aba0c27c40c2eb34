"""Reduce a disagreement to the smallest subgraph that still shows it.

Polygraphy's `debug reduce` bisects a model by running it again and again.
With each node's own error (own_error.py) the search starts where the
error is made: the node with the largest own error, alone, fed the
reference's values of its inputs. Only when that single node agrees with
the reference on those inputs (an error that needs several nodes to grow)
are the producers of its inputs added, one level at a time, up to
`max_nodes`. The constants the nodes read come along (Constant nodes,
initializers), so the small model runs on its own.

"Still disagrees" is checked, not assumed: our executor runs the small
model, the reference (onnxruntime, or the reference's own executor run for
a golden or second-model comparison: `run_reference`) runs the same nodes
of the reference model, both on the saved inputs.

    small = reduce_failing(model, report, reference_values, run_reference=...)
    write_reduced(small, "small.onnx")   # small.onnx + small.inputs.npz (+ small.reference.onnx)
"""
from __future__ import annotations

import os
import pathlib
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..ir import Model, Node
from ..ir.nesting import node_reads
from .compare import ATOL, RTOL, CompareError, compare_values, constant_values

MAX_NODES = 64


class ReduceError(Exception):
    """No failing subgraph could be made; the message says why and what to do."""


@dataclass
class Reduced:
    """The smallest failing subgraph found."""
    model: Model                       # our model's nodes
    reference: Optional[Model]         # the same nodes of the reference model, when it is another model
    inputs: dict                       # the reference's values of its inputs
    expected: dict                     # the reference's outputs on them
    got: dict                          # ours on them
    nodes: list = field(default_factory=list)     # names of the nodes kept (not counting constant holders)
    start: str = ""                    # the node the search started from
    diffs: dict = field(default_factory=dict)     # output name -> compare.ValueDiff (ours vs the reference)


RunReference = Callable[[Model, dict, list], dict]


def onnxruntime_runner(provider: str = "CPUExecutionProvider", opt_level: str = "disable") -> RunReference:
    """run_reference for onnxruntime: the model's `names` on `feeds`."""
    from .compare import run_onnxruntime_model

    def run(model: Model, feeds: dict, names: list) -> dict:
        return run_onnxruntime_model(model, feeds, names, provider=provider, opt_level=opt_level)
    return run


def reduce_failing(model: Model, report, reference_values: dict, *, run_reference: RunReference,
                   reference_model: Optional[Model] = None, start: Optional[Node] = None, rtol: float = RTOL,
                   atol: float = ATOL, max_nodes: int = MAX_NODES, seed: int = 0,
                   progress: Optional[Callable[[int, int], None]] = None) -> Reduced:
    """The smallest failing subgraph of `model`'s main graph, from `report`
    (a compare.Report of the whole run, own errors measured) and the
    reference's values (`reference_values`, its graph inputs included).
    Starts at `start`, else the worst own error, else the first divergence.
    ReduceError when nothing disagrees or no subgraph up to `max_nodes` does.
    `progress(nodes tried, max_nodes)` is called before each attempt (it may
    raise to stop the search: the app's Cancel)."""
    if start is None:
        if report.agrees and report.first_divergence is None:
            # Every node still has some tiny own error; the largest is no culprit when nothing disagrees.
            raise ReduceError("the runs agree: there is no failing subgraph to extract (every compared value "
                              "is within the tolerance; a smaller --rtol/--atol hunts smaller differences)")
        culprit = report.worst_own
        if culprit is None or all(d.agrees for d in culprit.own or []):
            culprit = report.first_divergence or culprit
        if culprit is None:
            raise ReduceError("the runs agree: there is no failing subgraph to extract")
        if culprit.explained:
            # The only culprit is the reference's own deviation: a subgraph of it would "fail" the same way.
            raise ReduceError(f"{culprit.node.display_name} differs without being wrong ({culprit.explained}); "
                              "no other node has an own error: there is no fault of the model to extract")
        start = culprit.node
    graph = model.graph
    if start.graph is not graph:
        raise ReduceError(f"{start.display_name} is inside a body; reduce works on the main graph's nodes")
    constants = constant_values(graph)
    chosen = [start]
    order = {id(n): i for i, n in enumerate(graph.nodes)}
    while True:
        if progress is not None:
            progress(len(chosen), max_nodes)
        attempt = _try(model, chosen, constants, reference_values, run_reference, reference_model,
                       rtol=rtol, atol=atol, seed=seed)
        if attempt is not None and any(not d.agrees for d in attempt.diffs.values()):
            attempt.start = start.name
            return attempt
        grown = _grow(chosen, constants, order)
        if len(grown) == len(chosen) or len(grown) > max_nodes:
            raise ReduceError(f"no subgraph of up to {max_nodes} nodes around {start.display_name} disagrees "
                              f"with the reference on its values: the error needs more of the model to show; "
                              f"send the whole model with its inputs")
        chosen = grown


def _boundary(chosen: list, constants: set) -> list[str]:
    """The computed values the chosen nodes read from outside them."""
    made = {v.name for n in chosen for v in n.outputs if v is not None}
    names = []
    for n in chosen:
        for v in node_reads(n):
            if v.name and v.name not in made and v.name not in constants and v.name not in names:
                names.append(v.name)
    return names


def _outputs(chosen: list, constants: set) -> list[str]:
    """The chosen nodes' outputs that no other chosen node reads (the last ones)."""
    read = {v.name for n in chosen for v in node_reads(n)}
    return [v.name for n in chosen for v in n.outputs
            if v is not None and v.name and v.name not in read and v.name not in constants]


def _grow(chosen: list, constants: set, order: dict) -> list:
    """`chosen` with the producers of its computed inputs added, in graph order."""
    ids = {id(n) for n in chosen}
    more = list(chosen)
    for n in chosen:
        for v in node_reads(n):
            p = v.producer
            if p is not None and id(p) not in ids and v.name not in constants and p.graph is n.graph:
                ids.add(id(p))
                more.append(p)
    return sorted(more, key=lambda n: order[id(n)])


def _try(model, chosen, constants, reference_values, run_reference, reference_model, *, rtol, atol,
         seed) -> Optional[Reduced]:
    """The chosen nodes as a model, run by us and by the reference on the
    reference's inputs; None when the reference lacks one of them."""
    from ..edits import EditError, extract_model
    from .errors import ExecError, FeedError
    from .session import run

    inputs = _boundary(chosen, constants)
    outputs = _outputs(chosen, constants)
    if not outputs or any(n not in reference_values for n in inputs):
        return None
    feeds = {n: reference_values[n] for n in inputs}
    try:
        small = extract_model(model, inputs, outputs)
        theirs_model = extract_model(reference_model, inputs, outputs) if reference_model is not None else None
    except EditError as e:
        raise ReduceError(f"cannot extract the nodes around {chosen[-1].display_name}: {e}") from None
    try:
        got = run(small, feeds, seed=seed)
    except (ExecError, FeedError) as e:
        raise ReduceError(f"our executor cannot run the extracted nodes: {str(e).splitlines()[0]}") from None
    try:
        expected = run_reference(theirs_model if theirs_model is not None else small, feeds, outputs)
    except CompareError as e:
        raise ReduceError(f"the reference cannot run the extracted nodes: {e}") from None
    diffs = compare_values(got, expected, rtol=rtol, atol=atol)
    return Reduced(small, theirs_model, feeds, expected, got, [n.name for n in chosen], diffs=diffs)


def reduced_paths(path) -> dict:
    """Where write_reduced puts each file for the model path `path`."""
    path = pathlib.Path(path)
    stem = path.with_suffix("")
    return {"model": path, "inputs": pathlib.Path(f"{stem}.inputs.npz"),
            "expected": pathlib.Path(f"{stem}.expected.npz"),
            "reference": pathlib.Path(f"{stem}.reference.onnx")}


def write_reduced(reduced: Reduced, path) -> list[pathlib.Path]:
    """Write the small model to `path`, its inputs beside it as
    `<stem>.inputs.npz`, the reference's outputs as `<stem>.expected.npz`
    and, when the reference is another model, its nodes as
    `<stem>.reference.onnx`. Each model is one file, its tensors inside,
    unless they pass protobuf's limit: then they go beside it in
    `<file>.data`. All or nothing: each file is written beside, and a
    failure removes the ones already written. Returns the paths.
    OSError / SaveError name the file."""
    from .run_files import save_npz

    paths = reduced_paths(path)
    written: list[pathlib.Path] = []
    try:
        save_npz(paths["inputs"], reduced.inputs)
        written.append(paths["inputs"])
        save_npz(paths["expected"], reduced.expected)
        written.append(paths["expected"])
        if reduced.reference is not None:
            _save_whole(reduced.reference, paths["reference"], written)
        _save_whole(reduced.model, paths["model"], written)
    except BaseException:
        for p in written:
            try:
                os.unlink(p)
            except OSError:
                pass
        raise
    return written


def _save_whole(model, path: pathlib.Path, written: list) -> None:
    """Save `model` at `path` and add the files written to `written`.

    Saved as read, a part of a model with external data kept its tensors
    there: into another folder under the source's data file name (the
    reference of a ViT's extract wrote model.onnx.data beside small.onnx),
    which neither the message nor a failure's clean-up knew of. A failing
    subgraph goes into a bug report: one file, unless protobuf cannot hold it."""
    from ..serde.io import PROTOBUF_LIMIT, inline_size, save
    if inline_size(model) < PROTOBUF_LIMIT:
        save(model, path, external_data="")
        written.append(path)
        return
    data = path.with_name(path.name + ".data")
    save(model, path, external_data=data.name)
    written.extend([path, data])
