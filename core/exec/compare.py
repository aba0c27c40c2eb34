"""Comparing two runs value by value, and finding where they part.

    from onnxstudio.core.exec.compare import compare_values, node_report, compare_with_onnxruntime

    diffs = compare_values(ours, theirs)              # {name: ValueDiff}, no onnxruntime needed
    report = node_report(model.graph, diffs)          # per node, in graph order
    report.first_divergence                           # NodeDiff or None

    report = compare_with_onnxruntime(model, feeds)   # ours vs onnxruntime, every intermediate

A value *agrees* when every element satisfies

    |a - b| <= atol * max(1, scale) + rtol * |b|

where `scale` is the reference value's largest magnitude: numpy's allclose
test, with the absolute part growing for values larger than 1 (a conv
output reaching 300 carries float32 rounding of ~1e-4 in its elements near
zero, which plain allclose would call a divergence). NaN on both sides
agrees. Sequences and maps agree when they have the same length / keys and
every element agrees.
Each ValueDiff also carries the largest absolute error, where it is, and
that error relative to the reference's scale (its largest magnitude):
dividing by the element itself means nothing near zero (1e-7 off an
element of 1e-12 reads as 1e+05), dividing by the scale says how large the
error is for that output.

The first divergence is the first node, in graph order, whose outputs
disagree while every input another node produced agrees: the place to look.
Graph inputs and initializers that differ between the runs are listed
apart (`Report.differing_sources`); their first reader is a divergence.
So are the outputs of nodes that only hold or reshape constants (a
Constant holding a weight, a Cast or Identity of an initializer): an
edited weight shows as the Conv that reads it, not as the unnamed
Constant that holds it.

`rtol` and `atol` hold for every value; `tolerances` ({value name: (rtol,
atol)}) sets them for the values it names (an output that is allowed more).
A tensor of 16-bit floats (float16, bfloat16) on either side is judged with
both at least a few of its type's epsilons (`LOW_PRECISION_FLOOR`): one
rounding of a kernel is already an epsilon, so runtimes that round an activation once or
at each step, or sum a Conv in another order, differ by an epsilon or two
per node and more downstream (torch's float16 mobilenet_v3 and resnet18
against onnxruntime: 1e-3 to 5e-3 of a value's scale, every node with
float32 tolerances called divergent, the first Conv the culprit).
So is a wider float value computed only from 16-bit floats (`CarriedPrecision`):
a float16 model's Cast back to a float32 output holds float16's precision.
"""
from __future__ import annotations

import contextlib
import math
import threading
from dataclasses import dataclass, field
from typing import Callable, Optional

import ml_dtypes
import numpy as np

from ..ir import Graph, Model, Node
from ..ir.nesting import node_reads
from .errors import Cancelled

RTOL = 1e-3
ATOL = 1e-4
# 16-bit float types -> the least rtol and atol their values are judged with,
# in epsilons of the type. float16: the deep Convs of torch's float16 resnet18
# and mobilenet_v3 differ from onnxruntime by up to 0.5% of their scale (5
# epsilons). bfloat16's epsilon is 8 times float16's; 4 of them already allow
# 3%, more would let a 10% error through.
LOW_PRECISION_FLOOR = {np.dtype(np.float16): 8 * float(np.finfo(np.float16).eps),
                       np.dtype(ml_dtypes.bfloat16): 4 * float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)}
DEFAULT_PROVIDER = "CPUExecutionProvider"      # onnxruntime's, for the comparison
DEFAULT_BUDGET = 512 << 20                     # bytes of body values kept to compare (kept.py's default)


@dataclass
class ValueDiff:
    """How one value of run A differs from the same value of run B (the reference)."""
    name: str
    agrees: bool
    max_abs: float = 0.0                 # largest |a - b| over the comparable elements
    scale: float = 0.0                   # largest |b|: what `rel` is relative to
    where: str = ""                      # the element with the largest error: "[0,3,12]", "[5]{1}"
    ours: object = None                  # that element in A and B
    theirs: object = None
    note: str = ""                       # shape / type / key mismatch, NaN on one side, ...
    rtol: float = RTOL                   # the tolerances this value was judged with
    atol: float = ATOL

    @property
    def rel(self) -> float:
        """max_abs relative to the reference's scale (0 when both are exactly equal)."""
        if self.max_abs == 0:
            return 0.0
        return self.max_abs / self.scale if self.scale > 0 else math.inf

    def to_json(self) -> dict:
        return {"name": self.name, "agrees": self.agrees, "max_abs_error": _finite(self.max_abs),
                "rel_error": _finite(self.rel), "scale": _finite(self.scale), "where": self.where,
                "ours": _plain(self.ours), "theirs": _plain(self.theirs), "note": self.note,
                "rtol": self.rtol, "atol": self.atol}


@dataclass
class NodeDiff:
    """The outputs of one node compared."""
    node: Node
    outputs: list[ValueDiff]
    inputs_agree: bool                   # every node-produced input agrees (or was not compared)
    constant: bool = False               # computes from constants only: never the first divergence
    own: Optional[list] = None           # ValueDiffs of the node run alone on the reference's inputs
    own_note: str = ""                   # why the own error was not measured
    # Why the node differs from the reference without being wrong: the
    # reference's own known deviation, shown exactly (reference_quirks.py).
    explained: str = ""

    @property
    def own_max_abs(self) -> Optional[float]:
        return max((d.max_abs for d in self.own), default=0.0) if self.own is not None else None

    @property
    def own_rel(self) -> Optional[float]:
        """The largest relative error of the node's own outputs (own_error.py); None when not measured."""
        return max((d.rel for d in self.own), default=0.0) if self.own is not None else None

    @property
    def agrees(self) -> bool:
        return all(d.agrees for d in self.outputs)

    @property
    def own_agrees(self) -> bool:
        """Its own error was measured and is within the tolerance: run alone
        on the reference's inputs it gives the reference's outputs. A node
        that differs all the same (a quantizer, an ArgMax, a comparison)
        turned a difference of its inputs, within the tolerance, into a
        step of its output."""
        return self.own is not None and all(d.agrees for d in self.own)

    @property
    def max_abs(self) -> float:
        return max((d.max_abs for d in self.outputs), default=0.0)

    @property
    def rel(self) -> float:
        return max((d.rel for d in self.outputs), default=0.0)

    @property
    def worst(self) -> Optional[ValueDiff]:
        return max(self.outputs, key=lambda d: (not d.agrees, d.rel), default=None)

    def to_json(self) -> dict:
        own = {} if self.own is None and not self.own_note else {
            "own_max_abs": _maybe(self.own_max_abs), "own_max_rel": _maybe(self.own_rel),
            "own_agrees": all(d.agrees for d in self.own) if self.own is not None else None,
            **({"own_note": self.own_note} if self.own_note else {}),
            **({"explained": self.explained} if self.explained else {})}
        return {"node": self.node.path, "name": self.node.name, "op_type": self.node.op_type,
                "agrees": self.agrees, "inputs_agree": self.inputs_agree,
                "max_abs": _finite(self.max_abs), "max_rel": _finite(self.rel), **own,
                "max_abs_error": _finite(self.max_abs), "rel_error": _finite(self.rel),
                "outputs": [d.to_json() for d in self.outputs]}

    def brief(self) -> dict:
        """The node named, with its total and own errors (the report's top-level entries)."""
        return {"node": self.node.path, "name": self.node.name, "op_type": self.node.op_type,
                "max_abs": _finite(self.max_abs), "max_rel": _finite(self.rel),
                "own_max_abs": _maybe(self.own_max_abs), "own_max_rel": _maybe(self.own_rel)}


@dataclass
class Report:
    """Per-node comparison of a graph, in graph order."""
    nodes: list[NodeDiff]
    values: dict[str, ValueDiff]
    differing_sources: list[str] = field(default_factory=list)   # graph inputs / initializers
    skipped: list[str] = field(default_factory=list)             # values one side could not give
    rtol: float = RTOL
    atol: float = ATOL
    tolerances: dict = field(default_factory=dict)               # value name -> (rtol, atol)
    bodies: list = field(default_factory=list)                   # compare_bodies.BodyReport per body
    unmatched: list = field(default_factory=list)                # reference names the model has no value of
    own_cancelled: Optional[tuple] = None   # (measured, to measure) when the own-error pass was cancelled

    @property
    def first_divergence(self) -> Optional[NodeDiff]:
        return next((n for n in self.nodes if not n.agrees and n.inputs_agree and not n.constant), None)

    @property
    def worst_own(self) -> Optional[NodeDiff]:
        """The node with the largest own error (own_error.py), when any was
        measured and is not zero: the culprit, where first_divergence may be
        a node that only inherits."""
        judged = [n for n in self.nodes if n.own_rel and not n.explained]
        return max(judged, key=lambda n: n.own_rel, default=None)

    @property
    def explained(self) -> list[NodeDiff]:
        """The nodes whose own difference is the reference's (NodeDiff.explained)."""
        return [n for n in self.nodes if n.explained]

    @property
    def agrees(self) -> bool:
        return all(d.agrees for d in self.values.values())

    def to_json(self) -> dict:
        first = self.first_divergence
        worst = self.worst_own
        return {"rtol": self.rtol, "atol": self.atol, "agrees": self.agrees,
                "tolerances": {k: list(v) for k, v in self.tolerances.items()},
                "first_divergence": {**first.to_json(), **first.brief()} if first else None,
                "worst_own": worst.brief() if worst else None,
                "differing_sources": self.differing_sources, "skipped": self.skipped,
                "nodes": [n.to_json() for n in self.nodes],
                **({"bodies": [b.to_json() for b in self.bodies]} if self.bodies else {}),
                **({"unmatched": self.unmatched} if self.unmatched else {}),
                **({"own_cancelled": {"measured": self.own_cancelled[0], "nodes": self.own_cancelled[1]}}
                   if self.own_cancelled else {})}


# -- values ----------------------------------------------------------------------------

def compare_value(name: str, a, b, *, rtol: float = RTOL, atol: float = ATOL) -> ValueDiff:
    """Compare value `a` with reference `b` (tensors, sequences, maps, None)."""
    acc = _Acc(name, rtol, atol)
    acc.visit(a, b, "")
    acc.diff.rtol, acc.diff.atol = acc.used_rtol, acc.used_atol
    return acc.result()


def tolerances_for(dtypes, rtol: float, atol: float) -> tuple[float, float]:
    """(rtol, atol) for comparing tensors of these dtypes: at least the
    16-bit floats' floor (LOW_PRECISION_FLOOR) when either is one."""
    floor = max((LOW_PRECISION_FLOOR.get(np.dtype(d), 0.0) for d in dtypes), default=0.0)
    return max(rtol, floor), max(atol, floor)


def compare_values(a: dict, b: dict, *, rtol: float = RTOL, atol: float = ATOL,
                   tolerances: Optional[dict] = None,
                   carried: Optional["CarriedPrecision"] = None,
                   cancelled: Callable[[], bool] = lambda: False,
                   progress: Optional[Callable[[int, int, str], None]] = None) -> dict[str, ValueDiff]:
    """Compare two runs given as {name: value}; `b` is the reference.
    Only names both runs hold are compared, in `a`'s order; a value named in
    `tolerances` ({name: (rtol, atol)}) is judged with its own, a value of
    16-bit precision in a wider type (`carried`) with at least that type's floor.
    `cancelled()` is asked before each value (Cancelled raised when it says
    so) and `progress(i, n, name)` told of it: on a decoder of 8,108 nodes at
    1,024 tokens this pass took 26 s, after onnxruntime's own 8 s."""
    tolerances = tolerances or {}
    out = {}
    names = [name for name in a if name in b]
    for i, name in enumerate(names):
        if cancelled():
            raise Cancelled("comparison cancelled")
        if progress is not None:
            progress(i, len(names), name)
        r, t = tolerances.get(name, (rtol, atol))
        if carried is not None:
            r, t = carried.tolerances(name, r, t)
        out[name] = compare_value(name, a[name], b[name], rtol=r, atol=t)
    return out


def array_dtype(value) -> Optional[np.dtype]:
    """A run value's dtype; None for a sequence, a map or an empty optional."""
    return value.dtype if isinstance(value, np.ndarray) else None


class CarriedPrecision:
    """The wider float values of a graph that hold no more than a 16-bit
    float's precision: computed from 16-bit floats, or from values that are,
    and otherwise only from the graph's inputs and constants (the same on
    both sides). They are judged with that type's floor
    (LOW_PRECISION_FLOOR), as the 16-bit values they come from are. The case
    that needs it: onnxruntime's float16 converter with keep_io_types casts
    the float16 result back to a float32 output; one float16 epsilon there,
    judged with float32 tolerances, was called DIFFERENT at the model's last
    node when every node before it agreed (a transformers BERT converted so)."""

    def __init__(self, graph: Graph):
        self.exact = constant_values(graph) | {v.name for v in graph.inputs}
        self.low: dict = {}          # value name -> the 16-bit dtype whose precision it holds

    def note(self, node: Node, dtype_of: Callable) -> None:
        """Learn `node`'s outputs, once it ran; `dtype_of(name)` is the
        dtype of a value of the run (None when it holds no array)."""
        if any(True for _ in node.subgraphs()):
            return
        found = []
        for v in node.inputs:
            if v is None or v.name in self.exact:
                continue
            dtype = self.low.get(v.name) or dtype_of(v.name)
            if dtype is None:
                return                               # unknown: no claim about the outputs
            if dtype in LOW_PRECISION_FLOOR:
                found.append(dtype)
            elif dtype.kind in "fc":
                return                               # a float of full precision goes in
        if not found:
            return
        low = max(found, key=LOW_PRECISION_FLOOR.get)
        for v in node.outputs:
            dtype = dtype_of(v.name) if v is not None else None
            if dtype is not None and dtype.kind in "fc" and dtype not in LOW_PRECISION_FLOOR:
                self.low[v.name] = low

    def tolerances(self, name: str, rtol: float, atol: float) -> tuple[float, float]:
        low = self.low.get(name)
        return tolerances_for((low,), rtol, atol) if low is not None else (rtol, atol)


def carried_precision(graph: Graph, values: dict) -> CarriedPrecision:
    """CarriedPrecision of `graph` learnt from a whole run's `values` by name."""
    carried = CarriedPrecision(graph)
    for node in graph.nodes:
        carried.note(node, lambda name: array_dtype(values.get(name)))
    return carried


class _Acc:
    """Walks two values together, keeping the worst element and any mismatch."""

    def __init__(self, name, rtol, atol):
        self.diff = ValueDiff(name, True)
        self.rtol, self.atol = rtol, atol
        self.used_rtol, self.used_atol = rtol, atol     # the largest judged with (16-bit floats raise them)
        self.worst_rel = -1.0

    def result(self) -> ValueDiff:
        return self.diff

    def fail(self, where: str, note: str) -> None:
        if self.diff.agrees or not self.diff.note:
            self.diff.note = f"{where or 'value'}: {note}" if where else note
        self.diff.agrees = False

    def visit(self, a, b, where: str) -> None:
        if isinstance(b, dict) or isinstance(a, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                return self.fail(where, f"{_kind(a)} vs {_kind(b)}")
            ka, kb = _keys(a), _keys(b)
            if set(ka) != set(kb):
                extra = sorted(set(ka) ^ set(kb), key=str)[:3]
                return self.fail(where, f"keys differ ({', '.join(map(repr, extra))})")
            for k in kb:
                self.visit(a[ka[k]], b[kb[k]], f"{where}{{{k!r}}}")
            return
        if isinstance(b, (list, tuple)) or isinstance(a, (list, tuple)):
            if not (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple))):
                return self.fail(where, f"{_kind(a)} vs {_kind(b)}")
            if len(a) != len(b):
                return self.fail(where, f"sequence of {len(a)} vs {len(b)}")
            for i, (x, y) in enumerate(zip(a, b)):
                self.visit(x, y, f"{where}[{i}]")
            return
        if a is None or b is None:
            if a is not b:
                self.fail(where, f"{_kind(a)} vs {_kind(b)}")
            return
        self.tensor(np.asarray(a), np.asarray(b), where)

    def tensor(self, a: np.ndarray, b: np.ndarray, where: str) -> None:
        if a.shape != b.shape:
            return self.fail(where, f"shape {list(a.shape)} vs {list(b.shape)}")
        if a.dtype.kind in "OUSb" or b.dtype.kind in "OUSb":
            if a.dtype.kind == b.dtype.kind != "O":
                # bool with bool, text with text: numpy compares them itself. Through Python
                # objects a causal mask of 4x1024x1024 took 0.3 s holding the interpreter lock
                # (the app's window stalled while a decoder's comparison ran).
                differ = np.asarray(a != b)
            else:
                differ = np.asarray(a.astype(object) != b.astype(object), dtype=bool)
            count = int(np.count_nonzero(differ))
            if count:
                first = np.unravel_index(int(np.argmax(differ)), differ.shape) if differ.ndim else ()
                self.fail(where + _index(first), f"{count} of {a.size} elements differ")
            return
        if a.size == 0:
            return
        rtol, atol = tolerances_for((a.dtype, b.dtype), self.rtol, self.atol)
        self.used_rtol, self.used_atol = max(self.used_rtol, rtol), max(self.used_atol, atol)
        cplx = a.dtype.kind == "c" or b.dtype.kind == "c"
        kind = np.complex128 if cplx else np.float64
        x, y = a.astype(kind), b.astype(kind)
        with np.errstate(all="ignore"):
            if np.isfinite(x).all() and np.isfinite(y).all():
                return self._finite(a, b, x, y, where, rtol, atol)
            err = np.abs(x - y)
            # NaN on both sides, and the same infinity on both sides, agree.
            same = (np.isnan(x) & np.isnan(y)) | (np.isinf(x) & (x == y))
            err = np.where(same, 0.0, err)
            mag = np.abs(y)
        one_sided = int(np.isnan(err).sum())
        finite_mag = mag[np.isfinite(mag)]
        if finite_mag.size:
            self.diff.scale = max(self.diff.scale, float(finite_mag.max()))
        if one_sided:
            first = np.argwhere(np.isnan(err))[0]
            self.fail(where + _index(first), f"{one_sided} of {a.size} elements are NaN on one side only")
            err = np.where(np.isnan(err), 0.0, err)
        scale = float(finite_mag.max()) if finite_mag.size else 0.0
        with np.errstate(all="ignore"):
            bad = err > atol * max(1.0, scale) + rtol * np.where(np.isfinite(mag), mag, 0.0)
        self._worst(a, b, err, bad, where)

    def _finite(self, a, b, x, y, where: str, rtol: float, atol: float) -> None:
        """tensor() for values with no NaN or infinity on either side (the
        common case): the same verdict in a third of the passes over the data."""
        err = np.abs(x - y)
        mag = np.abs(y)
        scale = float(mag.max())
        self.diff.scale = max(self.diff.scale, scale)
        bad = err > atol * max(1.0, scale) + rtol * mag
        self._worst(a, b, err, bad, where)

    def _worst(self, a, b, err, bad, where: str) -> None:
        """Note a disagreement and the element with the largest error."""
        flat = int(np.argmax(err))
        e = float(err.reshape(-1)[flat])
        if bad.any():
            self.diff.agrees = False
        if e > self.diff.max_abs or (self.diff.where == "" and e == self.diff.max_abs and e > 0):
            idx = np.unravel_index(flat, err.shape)
            self.diff.max_abs = e
            self.diff.where = where + (_index(idx) if err.ndim else "")
            self.diff.ours = a[idx] if a.ndim else a[()]
            self.diff.theirs = b[idx] if b.ndim else b[()]


def plain_key(key):
    """A map key as a Python value, so numpy ints and Python ints meet."""
    return key.item() if isinstance(key, np.generic) else key


def _keys(d: dict) -> dict:
    """Map keys normalised (plain_key) -> the original key."""
    return {plain_key(k): k for k in d}


def _kind(v) -> str:
    if v is None:
        return "None"
    if isinstance(v, dict):
        return "map"
    if isinstance(v, (list, tuple)):
        return "sequence"
    return "tensor"


def _index(idx) -> str:
    return "[" + ",".join(str(int(i)) for i in idx) + "]"


def _finite(x: float):
    return x if math.isfinite(x) else str(x)


def _maybe(x: Optional[float]):
    return None if x is None else _finite(x)


def _plain(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    if isinstance(v, complex):
        return str(v)
    return v


# -- nodes -----------------------------------------------------------------------------

def node_report(graph: Graph, diffs: dict[str, ValueDiff], *, skipped: Optional[list] = None,
                rtol: float = RTOL, atol: float = ATOL, tolerances: Optional[dict] = None) -> Report:
    """Group value diffs by the node of `graph` that produced them, in graph
    order, and mark which nodes had every compared node-made input agree.
    Outputs of constant-only nodes count as sources, like initializers."""
    produced: set = set()
    constants = constant_values(graph)
    nodes = []
    for node in graph.nodes:
        outs = [diffs[v.name] for v in node.outputs if v is not None and v.name in diffs]
        constant = all(v is None or v.name in constants for v in node.outputs)
        for v in node.outputs:
            if v is not None and not constant:
                produced.add(v.name)
        reads = [v.name for v in _reads(node)]
        inputs_agree = all(diffs[n].agrees for n in reads if n in diffs and n in produced)
        if outs:
            nodes.append(NodeDiff(node, outs, inputs_agree, constant))
    sources = [n for n, d in diffs.items() if n not in produced and not d.agrees]
    return Report(nodes, diffs, sources, list(skipped or []), rtol, atol, dict(tolerances or {}))


RANDOM_OPS = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
                         "Bernoulli", "Dropout"})


def constant_values(graph: Graph) -> set:
    """Names of `graph`'s values that hold constants: initializers, Constant
    outputs, and what nodes compute from those alone (a Cast, an Identity,
    a Reshape of a weight). Random and control-flow nodes are computations."""
    names = set(graph.initializers)
    for node in graph.nodes:
        if node.op_type in RANDOM_OPS or any(True for _ in node.subgraphs()):
            continue
        ins = [v for v in node.inputs if v is not None]
        if (node.op_type == "Constant" and not ins) or (ins and all(v.name in names for v in ins)):
            names.update(v.name for v in node.outputs if v is not None)
    return names


def _reads(node: Node):
    """The values a node reads: its inputs and what its subgraphs take from
    outside, scoped by graph (a body's own value named like an outer one is
    not a read of the outer one)."""
    return node_reads(node)


# -- onnxruntime -----------------------------------------------------------------------

class CompareError(Exception):
    """The comparison could not be made (onnxruntime missing or refusing the model)."""


class Stop:
    """Cancel of a comparison, pressed in another thread (the app's Cancel).
    Our own passes ask `is_set()` between values and nodes; onnxruntime's
    run asks nobody, so `set()` raises the terminate flag of each run in
    progress and it ends at its next node (a decoder's 8 s run had to be
    waited out, and the values compared after it, before a Cancel took)."""

    def __init__(self):
        self._set = threading.Event()
        self._lock = threading.Lock()
        self._runs: list = []            # onnxruntime's RunOptions of the runs in progress

    def set(self) -> None:
        with self._lock:
            self._set.set()
            for options in self._runs:
                options.terminate = True

    def is_set(self) -> bool:
        return self._set.is_set()

    @contextlib.contextmanager
    def watching(self, options):
        """Within it, `set()` terminates the run made with these RunOptions;
        Cancelled at once when set already."""
        with self._lock:
            if self._set.is_set():
                raise Cancelled("comparison cancelled")
            self._runs.append(options)
        try:
            yield
        finally:
            with self._lock:
                self._runs.remove(options)


# onnxruntime's graph optimisation levels by the names the app and the CLI show.
OPT_LEVELS = {"disable": "ORT_DISABLE_ALL", "basic": "ORT_ENABLE_BASIC", "extended": "ORT_ENABLE_EXTENDED",
              "all": "ORT_ENABLE_ALL"}


def available_providers() -> list[str]:
    """The execution providers of the installed onnxruntime; CompareError
    when it is not installed."""
    return list(_load_onnxruntime().get_available_providers())


def _session_options(ort, provider: str, opt_level: str):
    """onnxruntime's SessionOptions for `opt_level`; CompareError naming
    the choices when the provider or the level is not one it has."""
    providers = ort.get_available_providers()
    if provider not in providers:
        raise CompareError(f"onnxruntime has no execution provider {provider!r} here; "
                           f"choose one of {', '.join(providers)}")
    if opt_level not in OPT_LEVELS:
        raise CompareError(f"no graph optimisation level {opt_level!r}; choose one of {', '.join(OPT_LEVELS)}")
    options = ort.SessionOptions()
    # Fatal only: its notes on unused initializers are not ours, and an error
    # it logs is the one it raises, which we report in a sentence (its log
    # line came first, once per attempt to expose the intermediates).
    options.log_severity_level = 4
    options.graph_optimization_level = getattr(ort.GraphOptimizationLevel, OPT_LEVELS[opt_level])
    return options


def compare_with_onnxruntime(model: Model, feeds: dict, *, rtol: float = RTOL, atol: float = ATOL,
                             seed: int = 0, intermediates: bool = True, tolerances: Optional[dict] = None,
                             provider: str = DEFAULT_PROVIDER, opt_level: str = "disable",
                             bodies: bool = True, body_budget: int = DEFAULT_BUDGET,
                             reference_model: Optional[Model] = None, own: bool = True) -> Report:
    """Run `feeds` through our executor and through onnxruntime, exposing every
    intermediate of the main graph on both sides, and compare them per node.

    onnxruntime sees a copy of the model (of `reference_model` when given:
    the file before an edit) with the intermediates added as graph outputs
    (values it cannot expose are left out and listed in `Report.skipped`)
    and runs it on `provider` (one of `available_providers()`) at graph
    optimisation `opt_level` (one of OPT_LEVELS; "disable" by default, so
    each value it returns is the one its node computed). Raises
    CompareError when onnxruntime is not installed, the provider or level
    is not one it has, or it cannot run the model.

    With `own`, each node's own error is measured too (own_error.py): the
    node run alone on onnxruntime's values of its inputs.

    With `bodies` (and `intermediates`), our run also keeps the values inside
    If/Loop/Scan bodies (up to `body_budget` bytes) and each body is compared
    as a model of its own (compare_bodies.py): `Report.bodies`.
    """
    from .session import Session

    ours_session = Session(model, keep=intermediates, seed=seed, keep_body_values=intermediates and bodies,
                           body_budget=body_budget)
    outputs = ours_session.run({k: v for k, v in feeds.items() if k in ours_session.input_names})
    ours = {**ours_session.values, **outputs} if intermediates else dict(outputs)
    report, _ = compare_run_with_onnxruntime(
        model, ours, feeds, reference_model=reference_model, intermediates=intermediates, own=own,
        kept=ours_session.body_values if intermediates and bodies else None, rtol=rtol, atol=atol,
        tolerances=tolerances, provider=provider, opt_level=opt_level, seed=seed)
    return report


def compare_run_with_onnxruntime(model: Model, ours: dict, feeds: dict, *, reference_model: Optional[Model] = None,
                                 intermediates: bool = True, own: bool = True, kept=None, rtol: float = RTOL,
                                 atol: float = ATOL, tolerances: Optional[dict] = None,
                                 provider: str = DEFAULT_PROVIDER, opt_level: str = "disable",
                                 seed: int = 0, stop: Optional[Stop] = None,
                                 values_progress: Optional[Callable] = None,
                                 own_progress: Optional[Callable] = None) -> tuple[Report, dict]:
    """(Report, onnxruntime's values by name) for a run of ours already made:
    `ours` holds its values (every intermediate when it kept them), `kept`
    its values inside bodies (kept.BodyValues, or None: bodies not compared).
    onnxruntime runs `reference_model` when given, else `model`.
    `stop` (set from another thread) ends onnxruntime's run and the
    comparison of the values with Cancelled; set during the own-error pass,
    it stops the pass between nodes and the report says so
    (Report.own_cancelled). `values_progress(i, n, node)` is told before each
    value is compared (`node`: the one computing it), `own_progress(i, n,
    node)` before each node of the own-error pass."""
    target = reference_model if reference_model is not None else model
    cancelled = stop.is_set if stop is not None else (lambda: False)
    wanted = intermediate_names(model.graph) if intermediates else []
    names = [n for n in wanted if n in ours and target.graph.lookup(n) is not None]
    theirs, skipped = _run_onnxruntime(target, feeds, names, provider=provider, opt_level=opt_level, stop=stop)
    skipped += [n for n in wanted if n not in names and n not in skipped]
    ordered = {n: ours[n] for n in [*wanted, *(v.name for v in model.graph.outputs)] if n in ours}

    def progress(i: int, n: int, name: str) -> None:
        value = model.graph.lookup(name)
        if values_progress is not None and value is not None and value.producer is not None:
            values_progress(i, n, value.producer)
    diffs = compare_values(ordered, theirs, rtol=rtol, atol=atol, tolerances=tolerances,
                           carried=carried_precision(model.graph, ours), cancelled=cancelled, progress=progress)
    report = node_report(model.graph, diffs, skipped=skipped, rtol=rtol, atol=atol, tolerances=tolerances)
    if own and intermediates:
        from .own_error import add_own_errors
        add_own_errors(report, model, ours, {**feeds, **theirs}, seed=seed, cancelled=cancelled,
                       progress=own_progress)
    if kept is not None:
        report.bodies = body_reports(target, ours, kept, rtol=rtol, atol=atol, tolerances=tolerances,
                                     provider=provider, opt_level=opt_level)
    return report, theirs


def body_reports(model: Model, ours: dict, kept, *, rtol: float = RTOL, atol: float = ATOL,
                 tolerances: Optional[dict] = None, provider: str = DEFAULT_PROVIDER,
                 opt_level: str = "disable", paths: Optional[set] = None) -> list:
    """Every body of `model` (those at `paths` when given) compared with
    onnxruntime running it on its own (compare_bodies.py), from `ours`
    (main-graph values) and `kept` (the run's kept.BodyValues, or None)."""
    from .compare_bodies import compare_bodies

    def run_body(blob, feeds, names):
        return run_onnxruntime_bytes(blob, feeds, names, provider, opt_level)

    def compare(graph, mine, theirs):
        diffs = compare_values(mine, theirs, rtol=rtol, atol=atol, tolerances=tolerances)
        return node_report(graph, diffs, rtol=rtol, atol=atol, tolerances=tolerances)
    return compare_bodies(model, ours, kept, run_body=run_body, compare=compare, paths=paths)


def run_onnxruntime_model(model: Model, feeds: dict, names: list, *, provider: str = DEFAULT_PROVIDER,
                          opt_level: str = "disable") -> dict:
    """onnxruntime's values of `names` (outputs of `model`) on `feeds`; CompareError when it refuses."""
    from ..serde.io import to_bytes
    try:
        blob = to_bytes(model)
    except Exception as e:  # noqa: BLE001 - a model we cannot serialise is not comparable
        raise CompareError(f"cannot hand the model to onnxruntime: {e}") from None
    return run_onnxruntime_bytes(blob, feeds, names, provider, opt_level)


def run_onnxruntime_bytes(blob: bytes, feeds: dict, names: list, provider: str, opt_level: str) -> dict:
    """onnxruntime's values of `names` for the model `blob`; CompareError with its first line."""
    ort = _load_onnxruntime()
    options = _session_options(ort, provider, opt_level)
    try:
        sess = ort.InferenceSession(blob, options, providers=[provider])
        return dict(zip(names, sess.run(names, feeds)))
    except Exception as e:  # noqa: BLE001 - onnxruntime's own errors: report its first line
        text = str(e).strip()
        raise CompareError(text.splitlines()[0] if text else type(e).__name__) from None


def intermediate_names(graph: Graph) -> list[str]:
    """The values the main graph's nodes compute that are not graph outputs, in graph order."""
    outs = {v.name for v in graph.outputs}
    names = []
    for node in graph.nodes:
        for v in node.outputs:
            if v is not None and v.name and v.name not in outs:
                names.append(v.name)
    return names


def _load_onnxruntime():
    try:
        import onnxruntime  # optional: the reference to compare with
    except ImportError:
        raise CompareError("onnxruntime is not installed (pip install onnxruntime); "
                           "nothing to compare with") from None
    return onnxruntime


def _run_onnxruntime(model: Model, feeds: dict, extra: list[str], *, provider: str = DEFAULT_PROVIDER,
                     opt_level: str = "disable", stop: Optional[Stop] = None) -> tuple[dict, list[str]]:
    """onnxruntime's outputs plus as many of `extra` as it can expose;
    Cancelled when `stop` is set before or while it runs."""
    ort = _load_onnxruntime()
    options = _session_options(ort, provider, opt_level)
    from ..proto import onnx_pb2 as pb
    from ..serde.io import to_bytes

    try:
        base = to_bytes(model)
    except Exception as e:  # noqa: BLE001 - a model we cannot serialise is not comparable
        raise CompareError(f"cannot hand the model to onnxruntime: {e}") from None
    attempts = [extra, _typed_only(model, extra), []] if extra else [[]]
    last_error = ""
    for names in attempts:
        mp = pb.ModelProto()
        mp.ParseFromString(base)
        for n in names:
            mp.graph.output.add().name = n
        run_options = ort.RunOptions()
        try:
            sess = ort.InferenceSession(mp.SerializeToString(), options, providers=[provider])
            takes = {i.name for i in sess.get_inputs()}
            out_names = [o.name for o in sess.get_outputs()]
            with stop.watching(run_options) if stop is not None else contextlib.nullcontext():
                got = sess.run(out_names, {k: v for k, v in feeds.items() if k in takes}, run_options)
        except Cancelled:
            raise
        except Exception as e:  # noqa: BLE001 - onnxruntime's own errors: report its first line
            if stop is not None and stop.is_set():
                raise Cancelled("comparison cancelled") from None      # terminated: not a refusal to retry
            last_error = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            continue
        return dict(zip(out_names, got)), [n for n in extra if n not in names]
    raise CompareError(f"onnxruntime could not run the model: {last_error}")


def _typed_only(model: Model, names: list[str]) -> list[str]:
    """Intermediates whose type is known as a tensor (second try when
    onnxruntime refuses some untyped or non-tensor extra output)."""
    from ..ir.types import TensorType
    keep = []
    for n in names:
        v = model.graph.lookup(n)
        if v is not None and isinstance(v.type, TensorType):
            keep.append(n)
    return keep
