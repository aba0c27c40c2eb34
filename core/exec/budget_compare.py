"""The onnxruntime comparison within a memory budget.

Polygraphy compares layer by layer by exposing every value as an output of
one session ("mark all"): both runs' intermediates are all alive at once,
which large models cannot afford. Here the main graph is compared in
topological chunks:

- our executor steps through the graph once, freeing each value after its
  last reader as a plain run does; the outputs of the nodes of the
  current chunk are held until the chunk is compared;
- when what is held (our live values, the chunk's outputs, onnxruntime's
  values that later chunks read, and an estimate of onnxruntime's outputs
  for the chunk) would pass the budget, the chunk is closed: onnxruntime
  runs just those nodes as a model of their own (their constants with
  them), fed ITS OWN values of what they read from earlier chunks, so its
  side is the same whole-model run as mark-all's; each value is compared
  and only its ValueDiff (a few numbers) is kept; each node's own error is
  measured on onnxruntime's values of its inputs (own_error.py);
- then everything the chunk held is dropped except onnxruntime's values
  (and our constants) that later chunks read.

`peak` is this module's own account of the bytes of arrays it holds at
once: our run's live values (initializers excluded: they are the model's
memory-mapped weights, not intermediates), the chunk's outputs on both
sides, the values kept for later chunks, and a node run alone for its own
error. The float64 temporaries of comparing one value (a few times that
value's size, freed at once) and onnxruntime's own working memory are not
counted.

Values inside If/Loop/Scan bodies are compared as the whole comparison
compares them (compare_bodies.py: onnxruntime runs each body on its own, fed
our values of what it reads), right after the node holding them ran: our run
keeps a body's values up to an eighth of the budget (onnxruntime's copy of
them is as large), those over it are listed as not kept, and they are
dropped once compared.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from ..ir import Model
from ..ir.nesting import node_reads
from .own_error import fill_own, own_error
from .compare import (ATOL, DEFAULT_PROVIDER, RTOL, CarriedPrecision, CompareError, Report, array_dtype,
                      compare_value, constant_values, node_report)


@dataclass
class Bounded:
    """A comparison made within a budget."""
    report: Report
    budget: int              # bytes
    peak: int                # the most bytes of arrays held at once (see the module's note)
    chunks: int              # how many times onnxruntime ran


def default_budget() -> int:
    """A quarter of the machine's physical memory (512 MiB when it cannot be read)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 4
    except (AttributeError, ValueError, OSError):
        return 512 << 20


def parse_size(text: str) -> int:
    """'512MiB', '2GiB', '300MB', '1048576' -> bytes; ValueError naming the text."""
    units = {"": 1, "b": 1, "k": 1 << 10, "kb": 1000, "kib": 1 << 10, "m": 1 << 20, "mb": 1000 ** 2,
             "mib": 1 << 20, "g": 1 << 30, "gb": 1000 ** 3, "gib": 1 << 30}
    t = text.strip().lower().replace(" ", "")
    number = t.rstrip("abcdefghijklmnopqrstuvwxyz")
    unit = t[len(number):]
    try:
        value = float(number)
    except ValueError:
        value = -1.0
    if unit not in units or not 0 < value < float("inf"):
        raise ValueError(f"{text!r} is not a memory size (such as 512MiB, 2GiB or a number of bytes)")
    return int(value * units[unit])


def nbytes(value) -> int:
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(nbytes(v) for v in value)
    if isinstance(value, dict):
        return sum(nbytes(v) for v in value.values())
    return 0


class _Ledger:
    """The arrays held, by identity (the same array held twice counts once)."""

    def __init__(self):
        self.peak = 0

    def note(self, *groups, extra: int = 0) -> int:
        seen, total = set(), extra
        for group in groups:
            for v in group:
                if id(v) not in seen:
                    seen.add(id(v))
                    total += nbytes(v)
        self.peak = max(self.peak, total)
        return total


def compare_bounded(model: Model, feeds: dict, *, budget: Optional[int] = None,
                    reference_model: Optional[Model] = None, rtol: float = RTOL, atol: float = ATOL,
                    tolerances: Optional[dict] = None, provider: str = DEFAULT_PROVIDER,
                    opt_level: str = "disable", own: bool = True, seed: int = 0,
                    progress: Optional[Callable] = None) -> Bounded:
    """Compare `model` run by us with onnxruntime running `reference_model`
    (default: `model`) on `feeds`, every main-graph value, holding at most
    about `budget` bytes (default_budget()). CompareError when onnxruntime
    is missing or refuses, or when one node's values alone do not fit,
    naming the node and what it needs."""
    from .compare import available_providers
    from .session import Session

    budget = default_budget() if budget is None else budget
    if provider not in available_providers():
        raise CompareError(f"onnxruntime has no execution provider {provider!r} here")
    graph = model.graph
    target = reference_model if reference_model is not None else model
    constants = constant_values(graph)
    steps = list(graph.nodes)
    last_read = _last_reads(steps)
    ledger = _Ledger()
    tolerances = tolerances or {}
    chunks = _ChunkRunner(target, feeds, provider, opt_level)
    body_share = budget // 8
    session = Session(model, keep=False, seed=seed, keep_body_values=True, body_budget=body_share)
    session.progress = progress
    session.start({k: v for k, v in feeds.items() if k in session.input_names})
    weights = set(graph.initializers) | set(graph.sparse_initializers)
    carried = CarriedPrecision(graph)
    dtypes: dict = {}               # every value's dtype, kept when the value is freed: what `carried` reads

    diffs: dict = {}
    own_results: dict = {}
    theirs_kept: dict = {}          # onnxruntime's values later chunks read
    consts_kept: dict = {}          # our constants later chunks' own errors read
    chunk: list = []                # nodes of the open chunk
    held: dict = {}                 # our outputs of the open chunk
    largest = 0

    def live() -> list:
        return [v for k, v in session.values.items() if k not in weights]

    def close(end: int) -> None:
        theirs = chunks.run(chunk, held, constants, theirs_kept)
        ledger.note(live(), held.values(), theirs_kept.values(), consts_kept.values(), theirs.values())
        for name, value in held.items():
            if name in theirs:
                r, a = carried.tolerances(name, *tolerances.get(name, (rtol, atol)))
                diffs[name] = compare_value(name, value, theirs[name], rtol=r, atol=a)
        if own:
            reference = _Chain(theirs, theirs_kept, feeds)
            mine = _Chain(held, consts_kept)
            for node in chunk:
                if all(v is None or v.name in constants for v in node.outputs):
                    continue
                own_results[id(node)] = own_error(model, node, reference.__getitem__, mine.__getitem__,
                                                  graph=graph, constants=constants, rtol=rtol, atol=atol,
                                                  tolerances=tolerances, seed=seed)
                ledger.note(live(), held.values(), theirs_kept.values(), consts_kept.values(),
                            theirs.values(), extra=sum(nbytes(held.get(v.name)) for v in node.outputs if v))
        for name, value in theirs.items():
            if last_read.get(name, -1) > end:
                theirs_kept[name] = value
        for name, value in held.items():
            if name in constants and last_read.get(name, -1) > end:
                consts_kept[name] = value
        for kept in (theirs_kept, consts_kept):
            for name in [n for n in kept if last_read.get(n, -1) <= end]:
                del kept[name]
        chunk.clear()
        held.clear()

    bodies: list = []               # BodyReport per body, compared as its node runs

    for i, node in enumerate(steps):
        outer = _outer_reads(graph, node, session.values) if any(True for _ in node.subgraphs()) else None
        result = session.step()
        if outer is not None:
            bodies += _compare_node_bodies(target, node, outer, session.body_values, ledger, live,
                                           rtol=rtol, atol=atol, tolerances=tolerances, provider=provider,
                                           opt_level=opt_level)
        outs = {k: v for k, v in result.outputs.items() if v is not None}
        dtypes.update((k, array_dtype(v)) for k, v in outs.items())
        carried.note(node, dtypes.get)
        size = sum(nbytes(v) for v in outs.values())
        largest = max(largest, size)
        if chunk:
            # The chunk plus this node's outputs, onnxruntime's side of them,
            # and room for the next node's outputs and one own-error run.
            held_now = ledger.note(live(), held.values(), outs.values(), theirs_kept.values(),
                                   consts_kept.values())
            if held_now + sum(nbytes(v) for v in held.values()) + size + 2 * largest > budget:
                close(i - 1)
        chunk.append(node)
        held.update(outs)
        need = ledger.note(live(), held.values(), theirs_kept.values(), consts_kept.values())
        if len(chunk) == 1 and need + size > budget:
            raise CompareError(f"the memory budget ({_mib(budget)}) is too small for node {node.display_name} "
                               f"({node.op_type}): its values and those still needed come to {_mib(need + size)} "
                               f"with onnxruntime's copy; give a larger --memory-budget")
    if chunk:
        close(len(steps) - 1)
    for v in graph.outputs:                    # an output no node makes (a graph input passed through)
        if v.name not in diffs and v.name in feeds:
            diffs[v.name] = compare_value(v.name, feeds[v.name], feeds[v.name])
    report = node_report(graph, diffs, skipped=chunks.skipped, rtol=rtol, atol=atol, tolerances=tolerances)
    if own:
        fill_own(report, own_results)
    report.bodies = bodies
    return Bounded(report, budget, ledger.peak, chunks.runs)


def _outer_reads(graph, node, values: dict) -> dict:
    """Our main-graph values that `node`'s bodies read from outside, taken
    before the node runs (the run frees what the node is the last to read)."""
    from ..ir.nesting import subgraph_reads
    names = {v.name for v in subgraph_reads(node) if v.const is None and (v.graph is None or v.graph is graph)}
    return {n: values[n] for n in names if n in values}


def _compare_node_bodies(target: Model, node, outer: dict, kept, ledger: "_Ledger", live, **options) -> list:
    """The bodies of `node` (just run) compared with onnxruntime, then their
    kept values dropped; the ledger counts ours and onnxruntime's copy."""
    from .compare import body_reports
    paths = {g.path for sub in node.subgraphs() for g in sub[1].walk()}
    ours = sum(nbytes(v) for (path, _), v in kept.values.items() if path in paths)
    ledger.note(live(), outer.values(), extra=2 * ours)
    reports = body_reports(target, outer, kept, paths=paths, **options)
    for path in paths:
        kept.forget(path)
    return reports


def _mib(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB"


def _last_reads(nodes: list) -> dict:
    """Value name -> index of the last node reading it."""
    last = {}
    for i, node in enumerate(nodes):
        for v in node_reads(node):
            last[v.name] = i
    return last


class _Chain:
    """Look a name up in several dicts in turn (KeyError when none holds it)."""

    def __init__(self, *dicts):
        self.dicts = dicts

    def __getitem__(self, name):
        for d in self.dicts:
            if name in d:
                return d[name]
        raise KeyError(name)


class _ChunkRunner:
    """onnxruntime running a chunk of the reference's main graph as a model
    of its own: the chunk's nodes, the constant nodes and initializers they
    need, inputs typed from the values fed, every value they make as an
    output. The model's bytes are serialised once."""

    def __init__(self, target: Model, feeds: dict, provider: str, opt_level: str):
        from ..proto import onnx_pb2 as pb
        from ..serde.io import to_bytes
        self.target, self.feeds = target, feeds
        self.provider, self.opt_level = provider, opt_level
        self.base = pb.ModelProto()
        try:
            self.base.ParseFromString(to_bytes(target))
        except Exception as e:  # noqa: BLE001 - a model we cannot serialise is not comparable
            raise CompareError(f"cannot hand the model to onnxruntime: {e}") from None
        self.index = {id(n): i for i, n in enumerate(target.graph.nodes)}
        self.inits = {t.name: t for t in self.base.graph.initializer}
        self.constants = constant_values(target.graph)
        self.skipped: list = []
        self.runs = 0

    def run(self, chunk: list, ours: dict, our_constants: set, theirs_kept: dict) -> dict:
        from ..proto import onnx_pb2 as pb
        from .compare import run_onnxruntime_bytes
        g = self.target.graph
        nodes = []
        for node in chunk:
            v = next((o for o in node.outputs if o is not None and o.name), None)
            mine = g.lookup(v.name) if v is not None else None
            if mine is not None and mine.producer is not None and mine.producer.graph is g:
                nodes.append(mine.producer)
        needed, inputs = self._closure(nodes)
        names = [o.name for n in nodes for o in n.outputs if o is not None and o.name]
        self.skipped += [n for n in ours if n not in names]
        if not names:
            return {}
        feeds = {}
        for name in list(inputs):
            value = theirs_kept.get(name, self.feeds.get(name))
            if value is None and name in self.inits:     # an initializer that is also a graph input, not fed
                inputs.remove(name)
                continue
            if value is None:
                raise CompareError(f"onnxruntime's value of {name!r} (read by "
                                   f"{g.lookup(name).uses[0][0].display_name if g.lookup(name) else '?'}) "
                                   f"was not kept; this is a bug in the bounded comparison")
            feeds[name] = value
        mp = pb.ModelProto()
        mp.ir_version = self.base.ir_version
        mp.opset_import.extend(self.base.opset_import)
        mp.functions.extend(self.base.functions)
        mp.graph.name = "chunk"
        for i in sorted(self.index[id(n)] for n in needed):
            mp.graph.node.append(self.base.graph.node[i])
        read = {x.name for n in needed for x in node_reads(n)} - set(inputs)
        mp.graph.initializer.extend(t for name, t in self.inits.items() if name in read)
        for name in inputs:
            _declare(mp.graph.input.add(), name, feeds[name])
        for name in names:
            mp.graph.output.add().name = name
        self.runs += 1
        return run_onnxruntime_bytes(mp.SerializeToString(), feeds, names, self.provider, self.opt_level)

    def _closure(self, nodes: list) -> tuple[list, list]:
        """The nodes to run (`nodes` and the constant nodes they read through)
        and the names fed as inputs (what they read that is computed outside them)."""
        chosen = {id(n): n for n in nodes}
        inputs: list = []
        stack = list(nodes)
        while stack:
            n = stack.pop()
            for v in node_reads(n):
                p = v.producer
                if id(p) in chosen or (v.const is not None and not v.is_graph_input):
                    continue
                if p is not None and p.graph is self.target.graph and v.name in self.constants:
                    chosen[id(p)] = p
                    stack.append(p)
                elif v.name not in inputs:
                    inputs.append(v.name)
        return list(chosen.values()), inputs


def _declare(vi, name: str, value) -> None:
    from ..ir.dtypes import from_numpy_dtype
    vi.name = name
    array = np.asarray(value)
    t = vi.type.tensor_type
    t.elem_type = int(from_numpy_dtype(array.dtype))
    for d in array.shape:
        t.shape.dim.add().dim_value = int(d)
