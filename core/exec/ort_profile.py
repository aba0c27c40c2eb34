"""onnxruntime's profiles (SessionOptions.enable_profiling) tied back to
the graph's nodes.

    profile = read_ort_profile("prof.json", model, optimized=opt_model)
    profile = profile_with_onnxruntime(model, feeds, runs=3)   # makes one

onnxruntime writes one Chrome-trace event per kernel call, named after the
node of *its* graph, which its optimisations have rewritten: fused nodes
are renamed (`.../MatMul/MatMulAddFusion`, `fused /pooler/dense/Gemm`) or
named anew (`SkipLayerNormalization_token_145`, `Gelu`). An event is tied
to our nodes, first that applies:

1. by name: a node of ours has the event's node name;
2. through the optimised model onnxruntime saved beside the profile
   (`optimized_model_filepath`; `profile_with_onnxruntime` always saves
   it): the event's node there reads and writes values that our graph
   has too, and our nodes between those values are the ones it fused.
   Values onnxruntime made up (its Gemm's reshapes) are followed through
   its graph to ours;
3. by a name prefix: a fused node named after one of ours plus a suffix
   onnxruntime adds (`/MatMulAddFusion`) counts as that node.

A fused kernel's time is split evenly among the nodes it covers, each of
which names the others. What none of these can tie is listed as unmapped,
with its time. The first run is a warm-up (memory arenas, caches): when a
profile holds several, the first one's events are left out.
"""
from __future__ import annotations

import os
import pathlib
import tempfile
from typing import Optional

from ..ir import Graph, Model, Node
from .profile import NodeTime, Profile, ProfileError, node_key, read_json

KERNEL_SUFFIX = "_kernel_time"
_COVER_LIMIT = 64          # a fused kernel covering more of our nodes than this was not found right
_OTHER_MODEL_SHARE = 0.5   # less of the kernel time than this tied to nodes: a profile of another model


def read_ort_profile(path, model: Model, optimized: Optional[Model] = None) -> Profile:
    """`path` (onnxruntime's profile JSON) as a Profile of `model`'s main
    graph; `optimized` is the optimised model onnxruntime saved in the same
    session, when there is one. ProfileError when the file is not such a
    profile or is a profile of another model."""
    return profile_from_events(read_json(path), model, optimized, str(path))


def profile_from_events(events, model: Model, optimized: Optional[Model] = None,
                        where: str = "profile") -> Profile:
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise ProfileError(f"{where}: not an onnxruntime profile (expected a list of trace events)")
    kernels, runs, notes = _kernel_events(events, where)
    graph = model.graph
    mapper = _Mapper(graph, optimized.graph if optimized is not None else None)
    seconds: dict = {}
    merged: dict = {}
    unmapped: dict = {}
    how = {"name": 0.0, "optimised model": 0.0, "name prefix": 0.0}
    for name, op, micros in kernels:
        covered, way = mapper.nodes_for(name)
        t = micros * 1e-6 / runs
        if not covered:
            key = (name, op)
            unmapped[key] = unmapped.get(key, 0.0) + t
            continue
        how[way] += t
        keys = [node_key(n) for n in covered]
        for n, key in zip(covered, keys):
            seconds[id(n)] = seconds.get(id(n), 0.0) + t / len(covered)
            if len(covered) > 1:
                merged[id(n)] = tuple(k for k in keys if k != key)
    mapped = sum(how.values())
    lost = sum(unmapped.values())
    if mapped + lost > 0 and mapped < _OTHER_MODEL_SHARE * (mapped + lost):
        examples = ", ".join(f"'{n}'" for (n, _), _ in sorted(unmapped.items(), key=lambda kv: -kv[1])[:3])
        raise ProfileError(f"{where}: this onnxruntime profile does not look like one of {_model_name(model)}: "
                           f"only {mapped / (mapped + lost):.0%} of its kernel time is in nodes this model has "
                           f"(not found: {examples}); profile this model (`onnxstudio profile FILE --onnxruntime`)"
                           + ("" if optimized is not None else ", or give the optimised model onnxruntime saved"))
    nodes = [NodeTime(node_key(n), n.op_type, seconds.get(id(n), 0.0), merged.get(id(n), ()), n)
             for n in graph.nodes]
    tied = ", ".join(f"{way} {share / mapped:.0%}" for way, share in how.items() if share > 0) if mapped else ""
    if tied:
        notes.append(f"kernel time tied to nodes by {tied}; a fused kernel's time is split evenly among "
                     "the nodes it covers")
    if unmapped:
        notes.append(f"{len(unmapped)} kernels ({lost / (mapped + lost):.1%} of the time) could not be tied "
                     "to nodes of this model"
                     + ("" if optimized is not None else ": the optimised model onnxruntime saved would tie "
                        "fused kernels named anew"))
    wall = _mean_run_seconds(events, runs)
    return Profile("onnxruntime", model.graph.name or "model", runs, wall if wall is not None else mapped + lost, nodes,
                   [(n, op, s) for (n, op), s in sorted(unmapped.items(), key=lambda kv: -kv[1])], notes)


def _model_name(model: Model) -> str:
    return f'the model (graph "{model.graph.name}")' if model.graph.name else "the model"


def _kernel_events(events: list, where: str) -> tuple[list, int, list]:
    """(node name, op type, microseconds) of every kernel event after the
    warm-up run, the number of runs they cover, and notes. A kernel that
    runs inside another one's time on the same thread (a node of an If,
    Loop or Scan body) is left out: the node holding the body counts it."""
    starts = sorted(float(e.get("ts", 0)) for e in events
                    if e.get("cat") == "Session" and e.get("name") == "model_run")
    found = []
    notes = []
    cutoff = starts[1] if len(starts) > 1 else None
    for e in events:
        name = e.get("name")
        if e.get("cat") != "Node" or not isinstance(name, str) or not name.endswith(KERNEL_SUFFIX):
            continue
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        try:
            ts, micros = float(e.get("ts", 0)), float(e.get("dur", 0))
        except (TypeError, ValueError):
            raise ProfileError(f"{where}: the event {name!r} has a time that is not a number") from None
        if cutoff is not None and ts < cutoff:
            continue
        found.append((str(e.get("tid", "")), ts, micros, name[:-len(KERNEL_SUFFIX)], str(args.get("op_name", ""))))
    if not found:
        raise ProfileError(f"{where}: no kernel events (names ending in {KERNEL_SUFFIX!r}); was the profile "
                           "made with SessionOptions.enable_profiling and at least one run?")
    kernels = []
    nested = 0
    ends: dict = {}        # thread -> end of the outermost kernel running on it
    for tid, ts, micros, name, op in sorted(found, key=lambda k: (k[0], k[1], -k[2])):
        if ts < ends.get(tid, float("-inf")):
            nested += 1
            continue
        ends[tid] = ts + micros
        kernels.append((name, op, micros))
    runs = max(1, len(starts) - 1) if cutoff is not None else max(1, len(starts))
    if cutoff is not None:
        notes.append(f"the first of {len(starts)} runs is left out as a warm-up")
    if nested:
        notes.append(f"{nested} kernel events ran inside another kernel (nodes of If/Loop/Scan bodies): "
                     "counted in the time of the node holding the body")
    return kernels, runs, notes


def _mean_run_seconds(events: list, runs: int) -> Optional[float]:
    """The mean of the runs' own durations (the warm-up left out), if recorded."""
    durations = sorted(((float(e.get("ts", 0)), float(e.get("dur", 0))) for e in events
                        if e.get("cat") == "Session" and e.get("name") == "model_run"))
    if not durations:
        return None
    kept = durations[1:] if len(durations) > 1 else durations
    return sum(d for _, d in kept) * 1e-6 / max(runs, 1)


class _Mapper:
    """Which of our nodes an onnxruntime node name stands for (module docstring)."""

    def __init__(self, graph: Graph, optimized: Optional[Graph]):
        self.graph = graph
        self.by_name = {n.name: n for n in graph.nodes if n.name}
        self.optimized = optimized
        self.opt_by_name = {n.name: n for n in optimized.nodes if n.name} if optimized is not None else {}
        self._cache: dict = {}

    def nodes_for(self, name: str) -> tuple[list, str]:
        if name not in self._cache:
            self._cache[name] = self._find(name)
        return self._cache[name]

    def _find(self, name: str) -> tuple[list, str]:
        node = self.by_name.get(name)
        if node is not None:
            return [node], "name"
        opt = self.opt_by_name.get(name)
        if opt is not None:
            covered = self._covered(opt)
            if covered:
                return covered, "optimised model"
        node = self._by_prefix(name)
        if node is not None:
            return [node], "name prefix"
        return [], ""

    def _by_prefix(self, name: str) -> Optional[Node]:
        if name.startswith("fused "):
            name = name[len("fused "):]
            if name in self.by_name:
                return self.by_name[name]
        cut = name.rstrip("/")
        while "/" in cut:
            cut = cut[:cut.rindex("/")]
            if cut in self.by_name:
                return self.by_name[cut]
        return None

    # -- through the optimised model ---------------------------------------------------------

    def _ours(self, name: str):
        return self.graph.lookup(name) if name else None

    def _covered(self, opt: Node) -> list:
        """Our nodes computing what `opt` computes: from the values of ours
        it reads (sources) to those it writes (targets)."""
        sources, targets = set(), set()
        seen = {id(opt)}
        todo = [opt]
        while todo:     # onnxruntime's made-up values (a Gemm's reshapes) are followed to ours
            n = todo.pop()
            for v in n.inputs:
                if v is None or v.const is not None:
                    continue
                if self._ours(v.name) is not None:
                    sources.add(v.name)
                elif v.producer is not None and id(v.producer) not in seen:
                    seen.add(id(v.producer))
                    todo.append(v.producer)
            for v in n.outputs:
                if v is None:
                    continue
                if self._ours(v.name) is not None:
                    targets.add(v.name)
                    continue
                for user in v.consumers:
                    if id(user) not in seen:
                        seen.add(id(user))
                        todo.append(user)
        if not targets:
            return []
        return self._between(sources, targets)

    def _between(self, sources: set, targets: set) -> list:
        """Our nodes from `targets` back to `sources` or constants; [] when
        the walk leaves the fused part (reaches a graph input, or too many)."""
        covered: dict = {}
        todo = [self._ours(t).producer for t in targets]
        while todo:
            node = todo.pop()
            if node is None or id(node) in covered:
                continue
            if node.graph is not self.graph or len(covered) >= _COVER_LIMIT:
                return []
            covered[id(node)] = node
            for v in node.inputs:
                if v is None or v.name in sources or v.const is not None:
                    continue
                if v.producer is None:          # a graph input that onnxruntime's node does not read
                    return []
                if v.producer.op_type == "Constant":
                    continue
                todo.append(v.producer)
        return sorted(covered.values(), key=lambda n: n.index)


# -- making a profile ---------------------------------------------------------------------------

def profile_with_onnxruntime(model: Model, feeds: dict, runs: int = 3, *,
                             folder: Optional[str] = None, threads: int = 1) -> Profile:
    """`runs` runs of onnxruntime (after a warm-up) with profiling on, read
    back with the optimised model it saved; the files go to `folder` (a
    temporary one, removed, when not given). One intra-op thread by default,
    so the kernel times add up to a run like ours."""
    try:
        import onnxruntime as ort    # optional: an app without it still profiles our runs
    except ImportError:
        raise ProfileError("onnxruntime is not installed (pip install onnxruntime); "
                           "profile with the built-in executor instead") from None
    from ..serde.io import load, to_bytes
    if runs < 1:
        raise ProfileError(f"runs must be at least 1 (got {runs})")
    with tempfile.TemporaryDirectory(prefix="onnxstudio-ort-profile-") as scratch:
        out = pathlib.Path(folder or scratch)
        options = ort.SessionOptions()
        options.log_severity_level = 3
        options.enable_profiling = True
        options.profile_file_prefix = str(out / "ort_profile")
        optimized_path = out / "ort_optimized.onnx"
        options.optimized_model_filepath = str(optimized_path)
        options.intra_op_num_threads = threads
        try:
            session = ort.InferenceSession(to_bytes(model), options, providers=["CPUExecutionProvider"])
            for _ in range(runs + 1):
                session.run(None, feeds)
            path = session.end_profiling()
        except Exception as e:  # noqa: BLE001 - onnxruntime's own words, first line
            text = str(e).strip()
            raise ProfileError("onnxruntime: " + (text.splitlines()[0] if text else type(e).__name__)) from None
        path = os.path.join(str(out), os.path.basename(path)) if not os.path.isabs(path) else path
        optimized = load(str(optimized_path)) if optimized_path.exists() else None
        return read_ort_profile(path, model, optimized)


__all__ = ["profile_from_events", "profile_with_onnxruntime", "read_ort_profile"]
