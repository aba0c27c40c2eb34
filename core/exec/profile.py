"""Time per node: where a run of the model spends its time.

    from onnxstudio.core.exec.profile import Profiler

    profile = Profiler(model, runs=3).run(feeds)
    profile.top_nodes(10)          # NodeTime, slowest first
    profile.by_op()                # OpTime per op type, slowest first
    profile.to_dict()              # what `onnxstudio profile --json` prints

A profiled run is `Session.timed_run`, a path of its own: a run nobody
profiles is untouched. What it times is what a repeated run does: the
compiled runners, some of which compute several nodes at once (fusion.py,
shape_blocks.py). The time of such a merged unit is split among its nodes
in proportion to each node's time run alone (one unmerged run, which also
warms up, measures that), and each of those nodes names the others it was
merged with. Nodes computed from constants only run once, on a session's
first run, and take no time afterwards. Time spent in an If/Loop/Scan
body is its node's; the body's own nodes are timed too (all their runs in a
run added up, split among merged nodes the same way) and kept apart, in
`body_nodes`, for the canvas to show inside the body.

onnxruntime's profiles become the same `Profile` (ort_profile.py), and two
profiles are compared by profile_compare.py.
"""
from __future__ import annotations

import json
import threading
import time
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Callable, Optional

from ..errors import CoreError
from ..ir import Model, Node
from .bodies import BodyTimes
from .errors import Cancelled
from .session import Progress, Session
from .threads import blas_threads, limited_blas_threads

PROFILE_FORMAT = "onnxstudio-profile-1"


class ProfileError(CoreError):
    """A profile that cannot be made or read; the message says why and what to do."""


class _PastLimit(Exception):
    """A trial run stopped: it took longer than the run it is compared with."""


def node_key(node: Node) -> str:
    """How a profile names a node: its name, or for an unnamed one its
    place and op (`#12 Relu`), so two profiles of one file can be matched."""
    return node.name or f"#{node.index} {node.op_type}"


@dataclass
class NodeTime:
    name: str                 # node_key of the node
    op_type: str
    seconds: float            # per run
    merged: tuple = ()        # the nodes this time was measured together with (their keys)
    node: Optional[Node] = None   # the graph's node (None in a profile read back from JSON)


@dataclass
class OpTime:
    op_type: str
    seconds: float
    count: int                # nodes of that op type with a time


@dataclass
class Profile:
    source: str               # "onnxstudio" or "onnxruntime"
    model: str                # the graph's name or the file's
    runs: int                 # runs the times are the mean of
    wall: float               # mean seconds of one run, measured around it
    nodes: list[NodeTime] = field(default_factory=list)     # graph order
    unmapped: list = field(default_factory=list)    # (event name, op type, seconds per run): no node found
    notes: list[str] = field(default_factory=list)  # what a reader should know (merged, folded, dropped)
    # Nodes inside If/Loop/Scan bodies (graph order, body by body): their time
    # is also their holding node's, so they are kept apart from `nodes` and
    # count in no total, list or op type; the canvas shows them on body levels.
    body_nodes: list[NodeTime] = field(default_factory=list)
    bodies_timed: bool = False      # whether body nodes were timed at all (onnxruntime's are not)

    @property
    def total(self) -> float:
        """Seconds per run given to nodes."""
        return sum(n.seconds for n in self.nodes)

    @property
    def unmapped_seconds(self) -> float:
        return sum(s for _, _, s in self.unmapped)

    def share(self, seconds: float) -> float:
        """`seconds` as a fraction of all the time measured (nodes and unmapped)."""
        whole = self.total + self.unmapped_seconds
        return seconds / whole if whole > 0 else 0.0

    def top_nodes(self, k: Optional[int] = None) -> list[NodeTime]:
        ranked = sorted((n for n in self.nodes if n.seconds > 0), key=lambda n: -n.seconds)
        return ranked if k is None else ranked[:k]

    def by_op(self) -> list[OpTime]:
        ops: dict = {}
        for n in self.nodes:
            if n.seconds > 0:
                t = ops.setdefault(n.op_type, OpTime(n.op_type, 0.0, 0))
                t.seconds += n.seconds
                t.count += 1
        return sorted(ops.values(), key=lambda t: -t.seconds)

    def seconds_by_node(self) -> dict:
        """id(graph node) -> seconds, for drawing on the graph."""
        return {id(n.node): n.seconds for n in self.nodes if n.node is not None}

    def to_dict(self) -> dict:
        return {
            "format": PROFILE_FORMAT, "source": self.source, "model": self.model, "runs": self.runs,
            "wall_seconds": self.wall, "node_seconds": self.total, "unmapped_seconds": self.unmapped_seconds,
            "nodes": [{"name": n.name, "op_type": n.op_type, "seconds": n.seconds, "share": self.share(n.seconds),
                       **({"merged_with": list(n.merged)} if n.merged else {})} for n in self.nodes],
            "op_types": [{"op_type": t.op_type, "seconds": t.seconds, "nodes": t.count,
                          "share": self.share(t.seconds)} for t in self.by_op()],
            "unmapped": [{"event": e, "op_type": op, "seconds": s} for e, op, s in self.unmapped],
            "notes": list(self.notes),
            "body_nodes": [{"name": n.name, "op_type": n.op_type, "seconds": n.seconds,
                            "graph": n.node.graph.path if n.node is not None else "",
                            **({"merged_with": list(n.merged)} if n.merged else {})} for n in self.body_nodes],
        }

    @classmethod
    def read(cls, path, where: str = "") -> "Profile":
        """A profile saved by `onnxstudio profile --json` (or its `--compare --json`)."""
        where = where or str(path)
        data = read_json(path, where)
        if isinstance(data, dict) and "profile" in data and "compared" in data:
            data = data["profile"]
        return cls.from_dict(data, where)

    @classmethod
    def from_dict(cls, data, where: str = "profile") -> "Profile":
        """A profile written by `to_dict` (`onnxstudio profile --json`)."""
        if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
            raise ProfileError(f"{where}: not a profile written by onnxstudio (`onnxstudio profile FILE --json` "
                               f"writes one; its \"format\" is {PROFILE_FORMAT!r})")
        try:
            nodes = [NodeTime(str(n["name"]), str(n["op_type"]), float(n["seconds"]),
                              tuple(n.get("merged_with", ()))) for n in data["nodes"]]
            unmapped = [(str(u["event"]), str(u["op_type"]), float(u["seconds"])) for u in data.get("unmapped", ())]
            body_nodes = [NodeTime(str(n["name"]), str(n["op_type"]), float(n["seconds"]),
                                   tuple(n.get("merged_with", ()))) for n in data.get("body_nodes", ())]
            return cls(str(data["source"]), str(data["model"]), int(data["runs"]), float(data["wall_seconds"]),
                       nodes, unmapped, [str(x) for x in data.get("notes", ())], body_nodes, bool(body_nodes))
        except (KeyError, TypeError, ValueError) as e:
            raise ProfileError(f"{where}: a profile with a missing or malformed field ({e})") from None


def read_json(path, where: str = ""):
    """The JSON in `path`; ProfileError naming `where` (the path when not given)
    when it cannot be read or is not JSON."""
    where = where or str(path)
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as e:
        raise ProfileError(f"{where}: cannot read ({e.strerror or e})") from None
    except (ValueError, UnicodeDecodeError) as e:
        raise ProfileError(f"{where}: not JSON ({e})") from None


class Profiler:
    """Profiled runs of `model`'s main graph with our executor. `cancel()`
    may be called from another thread (the run stops before the next node)."""

    def __init__(self, model: Model, runs: int = 3):
        if runs < 1:
            raise ProfileError(f"runs must be at least 1 (got {runs})")
        self.model = model
        self.runs = runs
        self.session = Session(model)
        self._threads_note = ""
        self._cancelled = False

    def cancel(self) -> None:
        # Each run of the session starts with its flag cleared: between two
        # runs only this one holds the request (checked at every progress report).
        self._cancelled = True
        self.session.cancel()

    def run(self, feeds: dict, progress: Optional[Progress] = None) -> Profile:
        s = self.session
        plan = s.plan
        body_times = BodyTimes()
        steps, live = len(plan.steps), len(plan.live_steps)
        done = [0, 0]      # pieces done in earlier phases, and the whole count (known once compiled)

        def phase(count_before: int) -> Optional[Progress]:
            if progress is None:
                return None
            done[0] = count_before

            def report(i, n, node):
                if self._cancelled:
                    raise Cancelled("run cancelled")
                progress(done[0] + i, done[1], node)
            return report

        self._cancelled = False

        done[1] = steps + live + self.runs * live      # until the runners are known
        first = 0
        if plan.folded is None:                         # folds constants, compiles the runners
            s.progress = phase(0)
            try:
                s.run(feeds)
            finally:
                s.progress = None
            first = steps
        done[1] = first + live + self.runs * len(plan.runners)
        # Bodies' pieces timed from here on (their first runs, which compile, are behind us).
        s.time_bodies(body_times)
        body_times.clear(merged=False)
        _, alone, _ = s.timed_run(feeds, merged=False, progress=phase(first))
        alone_by_node = {id(st.node): t for st, t in zip(plan.live_steps, alone)}
        for body_plan, _merged, spent in body_times.plans.values():
            alone_by_node.update((id(st.node), t) for st, t in zip(body_plan.live_steps, spent))
        per_runner = [0.0] * len(plan.runners)
        wall = 0.0
        threads = self._blas_threads(feeds)
        body_times.clear(merged=True)
        with limited_blas_threads(threads) if threads is not None else nullcontext():
            for r in range(self.runs):
                _, times, seconds = s.timed_run(feeds, progress=phase(first + live + r * len(plan.runners)))
                wall += seconds
                per_runner = [a + b for a, b in zip(per_runner, times)]
        profile = self._profile(per_runner, alone_by_node, wall)
        profile.body_nodes = self._body_nodes(body_times, alone_by_node)
        profile.bodies_timed = True
        if profile.body_nodes:
            bodies = len({id(n.node.graph) for n in profile.body_nodes})
            where = f"{bodies} If/Loop/Scan bod{'y' if bodies == 1 else 'ies'}"
            profile.notes.append(f"{_count(len(profile.body_nodes), 'node')} in {where} "
                                 "timed too (all their runs in a run added up): shown inside the bodies, their time "
                                 "being their holding node's already")
        if self._threads_note:
            profile.notes.append(self._threads_note)
        return profile

    def _blas_threads(self, feeds: dict) -> Optional[int]:
        """The BLAS thread count the measured runs use: as Session.run's
        tuner does (threads.py), the faster of one and all, tried on a run
        each. None: leave the setting as it is (one thread only, or a
        worker thread, the app's: the setting is process-wide).

        The run on all threads is stopped once it has taken as long as the
        run on one: it has lost by then, so the choice is the one a whole
        run would give, and the trial costs at most two runs on one thread.
        On busy cores a run on two threads took 3-7x one on a thread
        (convnext_tiny: 4.2 and 7.5 s against 1.5 and 1.1 s), a quarter of
        the whole profile's time."""
        available = blas_threads()
        self._threads_note = ""
        if not available or available <= 1 or threading.current_thread() is not threading.main_thread():
            return None
        with limited_blas_threads(1):
            one = self.session.timed_run(feeds)[2]
        with limited_blas_threads(available):
            many, stopped = self._run_within(feeds, one)
        on_all = f"{available} threads"
        if stopped is not None:
            done, total = stopped
            self._threads_note = (f"BLAS on 1 thread: a run took {one * 1e3:.1f} ms on 1 thread; on {on_all} the "
                                  f"trial run was stopped, slower already, after {done} of its {total} steps")
            return 1
        best = 1 if one <= many else available
        self._threads_note = (f"BLAS on {'1 thread' if best == 1 else on_all}, the faster: a run took "
                              f"{one * 1e3:.1f} ms on 1 thread and {many * 1e3:.1f} ms on {on_all}")
        return best

    def _run_within(self, feeds: dict, limit: float) -> tuple[float, Optional[tuple]]:
        """(seconds, None) of a timed run that took no longer than `limit`
        seconds, or (limit, (pieces done, pieces)) for one stopped when it
        went past."""
        clock = time.perf_counter
        start = clock()

        def check(i, n, node):
            if clock() - start > limit:
                raise _PastLimit(i + 1, n)
        try:
            return self.session.timed_run(feeds, progress=check)[2], None
        except _PastLimit as past:
            return limit, past.args

    def _split(self, runner_nodes: list, per_runner: list, alone_by_node: dict,
               seconds: dict, merged: dict) -> int:
        """Each runner's time per run given to the nodes it computes (into
        `seconds` and `merged`, by id of node); how many merged units there were."""
        units = 0
        for covered, t in zip(runner_nodes, per_runner):
            t /= self.runs
            if len(covered) == 1:
                seconds[id(covered[0])] = seconds.get(id(covered[0]), 0.0) + t
                continue
            units += 1
            weights = [alone_by_node.get(id(n), 0.0) for n in covered]
            whole = sum(weights)
            if whole <= 0:
                weights, whole = [1.0] * len(covered), float(len(covered))
            keys = [node_key(n) for n in covered]
            for n, w, key in zip(covered, weights, keys):
                seconds[id(n)] = seconds.get(id(n), 0.0) + t * w / whole
                merged[id(n)] = tuple(k for k in keys if k != key)
        return units

    def _body_nodes(self, body_times: BodyTimes, alone_by_node: dict) -> list[NodeTime]:
        """The nodes of every body that ran in the measured runs, with their time per run."""
        nodes = []
        for body_plan, _merged, spent in body_times.plans.values():
            seconds: dict = {}
            merged: dict = {}
            self._split(body_plan.runner_nodes, spent, alone_by_node, seconds, merged)
            nodes += [NodeTime(node_key(st.node), st.node.op_type, seconds.get(id(st.node), 0.0),
                               merged.get(id(st.node), ()), st.node) for st in body_plan.steps]
        return nodes

    def _profile(self, per_runner: list, alone_by_node: dict, wall: float) -> Profile:
        plan = self.session.plan
        runs = self.runs
        seconds: dict = {}
        merged: dict = {}
        units = self._split(plan.runner_nodes, per_runner, alone_by_node, seconds, merged)
        nodes = [NodeTime(node_key(st.node), st.node.op_type, seconds.get(id(st.node), 0.0),
                          merged.get(id(st.node), ()), st.node) for st in plan.steps]
        notes = []
        if units:
            covered = sum(len(c) for c in plan.runner_nodes if len(c) > 1)
            notes.append(f"{_count(units, 'merged unit')} computed {_count(covered, 'node')} together (MatMul+Add, "
                         "shape arithmetic, ...): each unit's time is split among its nodes in proportion to their "
                         "times run alone")
        folded = len(plan.steps) - len(plan.live_steps)
        if folded:
            notes.append(f"{_count(folded, 'node')} computed from constants only: run once on the first run, "
                         "no time on the runs measured")
        return Profile("onnxstudio", self.model.graph.name or "model", runs, wall / runs, nodes, [], notes)


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def profile_run(model: Model, feeds: dict, runs: int = 3,
                progress: Optional[Callable] = None) -> Profile:
    """`runs` profiled runs of `model` on `feeds` (see Profiler)."""
    return Profiler(model, runs).run(feeds, progress)


__all__ = ["NodeTime", "OpTime", "Profile", "ProfileError", "Profiler", "node_key", "profile_run", "read_json"]
