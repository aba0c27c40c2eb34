"""Running a model with the built-in kernels: whole graphs, selected nodes,
one node at a time.

    s = Session(model, keep=True)
    s.start({"x": x})
    while not s.done:
        node, outputs = s.step()
    s.results()

A Session compiles once and can be started many times. `cancel()` may be
called from another thread; the run stops before the next node (also inside
loops) and raises Cancelled.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

import numpy as np

from ..ir import Graph, Model, Node
from . import kernels  # noqa: F401  (registers every kernel)
from .allocator import tune_allocator
from .errors import Cancelled, ExecError, FeedError
from .failures import node_failure
from .bodies import Body, BodyRunning
from .fast_steps import memo_candidate, store_result
from .fusion import compile_runners
from .frame import Frame
from .kept import DEFAULT_BUDGET, BodyValues
from .pause_points import pause_point
from .kernels._math_util import quiet_numpy
from .plan import Plan, Step
from .registry import VARIES, KernelContext
from .threads import ThreadTuner
from .values import FeedCheck, normalize

Progress = Callable[[int, int, Node], None]


@dataclass
class StepResult:
    node: Node
    index: int
    outputs: dict


class Session(BodyRunning):
    def __init__(self, model: Model, *, graph: Optional[Graph] = None, nodes: Optional[Iterable] = None,
                 outputs: Optional[list[str]] = None, keep: bool = False, seed: int = 0,
                 keep_body_values: bool = False, body_budget: int = DEFAULT_BUDGET,
                 every_iteration: bool = False):
        tune_allocator()
        self.model = model
        self.graph = graph if graph is not None else model.graph
        self.keep = keep
        self.seed = seed
        self.plan = Plan(self.graph, model, model.opset_imports, nodes=nodes, outputs=outputs, keep=keep)
        self.breakpoints: set = set()
        # A plain flag: the hot loop reads it before every node, and an
        # attribute read is cheaper than Event.is_set(); bool writes are atomic.
        self._cancelled = False
        self._plans: dict[int, Plan] = {id(self.graph): self.plan}
        self._bodies: dict[int, Body] = {}    # id(body graph) -> its compiled Body
        self._frame: Optional[Frame] = None
        self._feed_checks: Optional[list] = None   # (input name, FeedCheck or None), made on first start
        self._pos = 0
        self._rng = None
        self.progress: Optional[Progress] = None
        self._threads = ThreadTuner()
        # Values inside bodies, kept only when asked (kept.py): None otherwise.
        self.body_values: Optional[BodyValues] = None
        self._keep_options: Optional[tuple] = None
        if keep_body_values:
            self.keep_bodies(body_budget, every_iteration)

    # -- interface -------------------------------------------------------------------

    @property
    def input_names(self) -> list[str]:
        return list(self.plan.inputs)

    @property
    def output_names(self) -> list[str]:
        return list(self.plan.outputs)

    @property
    def nodes(self) -> list[Node]:
        return [s.node for s in self.plan.steps]

    @property
    def done(self) -> bool:
        return self._frame is not None and self._pos >= len(self.plan.steps)

    @property
    def position(self) -> int:
        """Index of the next step to run."""
        return self._pos

    def resume_at(self, index: int) -> None:
        """Make step `index` the next to run: after a failed run, the step
        that failed, which stepping then retries."""
        self._pos = index

    @property
    def values(self) -> dict:
        """Every value computed so far and still held (all of them with keep=True)."""
        return dict(self._frame.values) if self._frame is not None else {}

    def cancel(self) -> None:
        self._cancelled = True

    def start(self, feeds: dict) -> None:
        self._cancelled = False
        self._rng = None   # made on first use: most runs have no random op
        values = self._constants(self.graph)
        dims: dict = {}
        missing = []
        if self._feed_checks is None:
            self._feed_checks = [(name, FeedCheck(v) if v is not None else None)
                                 for name in self.plan.inputs for v in (self.graph.lookup(name),)]
        for name, check in self._feed_checks:
            if name in feeds:
                value = normalize(feeds[name])
                if check is not None:
                    check(value, dims)
                values[name] = value
            elif name not in values:
                missing.append(name)
        unknown = [k for k in feeds if k not in self.plan.inputs and k not in values]
        if missing:
            raise FeedError("missing input" + ("s " if len(missing) > 1 else " ")
                            + ", ".join(f'"{m}"' for m in missing)
                            + (f" (not expected: {', '.join(unknown)})" if unknown else ""))
        if unknown:
            raise FeedError("unknown input" + ("s " if len(unknown) > 1 else " ") + ", ".join(f'"{u}"' for u in unknown)
                            + "; the model takes " + ", ".join(f'"{n}"' for n in self.plan.inputs))
        self._frame = Frame(values)
        self._pos = 0
        if self._keep_options is not None:     # each run keeps its own body values
            self.body_values = BodyValues(*self._keep_options)

    def step(self) -> StepResult:
        if self._frame is None:
            raise ExecError("start() the session first")
        if self.done:
            raise ExecError("the run is complete")
        i = self._pos
        s = self.plan.steps[i]
        if self._cancelled:
            raise Cancelled("run cancelled")
        if self.progress is not None:
            self.progress(i, len(self.plan.steps), s.node)
        with quiet_numpy():
            outs = self._run_step(s, self._frame)
        self._pos += 1
        return StepResult(s.node, i, outs)

    def run_to(self, node) -> StepResult:
        """Run up to and including `node` (a Node or its name)."""
        target = self._index_of(node)
        if target < self._pos:
            raise ExecError(f"{self.plan.steps[target].node.display_name} has already run")
        r = None
        while self._pos <= target:
            r = self.step()
        return r

    def resume(self) -> Optional[StepResult]:
        """Run until the next breakpoint (which is not run) or the end."""
        r = None
        first = True
        while not self.done:
            node = self.plan.steps[self._pos].node
            if not first and (node in self.breakpoints or node.name in self.breakpoints):
                break
            first = False
            r = self.step()
        return r

    def results(self) -> dict:
        out = {}
        for name in self.plan.outputs:
            try:
                out[name] = self._frame.get(name)
            except KeyError:
                raise ExecError(f"output {name!r} was not computed") from None
        return out

    def run(self, feeds: dict) -> dict:
        self.start(feeds)
        with quiet_numpy():
            if self.plan.folded is None or self.progress is not None:
                self._execute(self.plan, self._frame, self.progress)
            else:   # a repeated run: let the BLAS thread count follow what is fastest now
                self._threads.run(lambda: self._execute(self.plan, self._frame, None))
        self._pos = len(self.plan.steps)
        return self.results()

    def timed_run(self, feeds: dict, *, merged: bool = True,
                  progress: Optional[Progress] = None) -> tuple[dict, list, float]:
        """A profiled run (profile.py reads it): the outputs, the seconds each
        piece took, and the run's wall seconds. With `merged` the pieces are
        the runners of a repeated run (`plan.runner_nodes` says which nodes
        each computes); without, each live step alone through the general
        step, as a run with progress does. A session's first run is an
        ordinary one before it (it folds constants and compiles the
        runners). Apart from `run`, so runs nobody profiles pay nothing."""
        if self.plan.folded is None:
            self.run(feeds)
        plan = self.plan
        pieces = self._timed_pieces(plan, merged)
        nodes = [covered[-1] for covered in plan.runner_nodes] if merged else [s.node for s in plan.live_steps]
        times = [0.0] * len(pieces)
        clock = time.perf_counter
        begin = clock()
        self.start(feeds)
        frame = self._frame
        with quiet_numpy():
            frame.values.update(plan.folded)
            self._run_timed(pieces, frame, times, progress, nodes)
        self._pos = len(plan.steps)
        outputs = self.results()
        return outputs, times, clock() - begin

    def _timed_pieces(self, plan: Plan, merged: bool) -> list:
        """What a profiled run times: the runners of a repeated run (merged
        as it merges them), or each live step alone through the general step."""
        if merged:
            return plan.runners
        run_step = self._run_step
        return [lambda values, frame, s=s: run_step(s, frame, False) for s in plan.live_steps]

    def _run_timed(self, pieces: list, frame: Frame, spent: list, progress: Optional[Progress] = None,
                   nodes: Optional[list] = None) -> None:
        """Run `pieces` in order, adding each one's seconds to `spent[i]`
        (a body that runs many times sums its runs). Each piece's time runs
        from the previous one's end, so the pieces add up to the loop's whole
        time, bookkeeping included; `progress`'s own time is left out."""
        values = frame.values
        clock = time.perf_counter
        n = len(pieces)
        t = clock()
        for i, piece in enumerate(pieces):
            if self._cancelled:
                raise Cancelled("run cancelled")
            piece(values, frame)
            now = clock()
            spent[i] += now - t
            if progress is not None:
                progress(i, n, nodes[i])
                now = clock()
            t = now

    def _execute(self, plan: Plan, frame: Frame, progress: Optional[Progress] = None) -> None:
        """Run every step of `plan`, reusing constant-only results after the first run."""
        run_step = self._run_step
        if plan.folded is None:
            self._first_execute(plan, frame, progress)
            return
        frame.values.update(plan.folded)
        if progress is None:
            self._run_live(plan, frame)
            return
        steps = plan.live_steps
        n = len(steps)
        for i, s in enumerate(steps):
            if self._cancelled:
                raise Cancelled("run cancelled")
            progress(i, n, s.node)
            run_step(s, frame, False)

    def _run_live(self, plan: Plan, frame: Frame) -> None:
        """The steps that are not folded, in a frame that already holds the folded values."""
        values = frame.values
        for run in plan.runners:
            if self._cancelled:
                raise Cancelled("run cancelled")
            run(values, frame)

    def _first_execute(self, plan: Plan, frame: Frame, progress: Optional[Progress]) -> None:
        """Every step, keeping the constant-only steps' outputs for later runs."""
        values = frame.values
        folded = {}
        n = len(plan.steps)
        for i, s in enumerate(plan.steps):
            if self._cancelled:
                raise Cancelled("run cancelled")
            if progress is not None:
                progress(i, n, s.node)
            if not plan.foldable[i]:
                if s.kernel is not None and s.kernel.prepare is not None and not s.kernel.context:
                    self._prepare(s, plan, frame)
                if not plan.keep:
                    s.memo = memo_candidate(s, self._current_args(s, frame), plan.outputs)
            self._run_step(s, frame, False)
            if plan.foldable[i]:
                folded.update((name, values[name]) for name in s.outputs
                              if name in plan.live_reads and name in values)
        plan.folded = folded
        # Dropping a folded or outer-scope name from a frame frees no memory
        # (the plan or the enclosing frame holds it): later runs skip that.
        plan.forget_frees(set(folded).union(plan.outer_names))
        general = self._run_step_quietly
        plan.runners = compile_runners(plan, general, lambda name: self._const_value(plan, frame, name))

    @staticmethod
    def _const_value(plan: Plan, frame: Frame, name: str):
        """A constant's value after the first run (whose frees may have
        dropped initializers from the frame)."""
        if plan.folded and name in plan.folded:
            return plan.folded[name]
        init = plan.graph.initializers.get(name)
        if init is not None and init.const is not None:
            return normalize(init.const)
        return frame.get(name)

    @staticmethod
    def _current_args(s: Step, frame: Frame) -> list:
        args = []
        for name in s.args:
            try:
                args.append(frame.get(name) if name else None)
            except KeyError:   # the step itself will report it
                return []
        return args

    def _run_step_quietly(self, s: Step, frame: Frame) -> None:
        self._run_step(s, frame, False)

    # -- internals -----------------------------------------------------------------------

    def _index_of(self, node) -> int:
        for i, s in enumerate(self.plan.steps):
            if s.node is node or (isinstance(node, str) and s.node.name == node):
                return i
        raise ExecError(f"node {getattr(node, 'display_name', node)!r} is not part of this run")

    @staticmethod
    def _constants(graph: Graph) -> dict:
        values = {}
        for name, v in graph.initializers.items():
            values[name] = normalize(v.const)
            pause_point()           # the first run decodes each initializer
        for name, v in graph.sparse_initializers.items():
            values[name] = v.const.to_dense()
        return values

    def _run_step(self, s: Step, frame: Frame, collect: bool = True) -> Optional[dict]:
        """Run one step in `frame`; with `collect`, return its outputs by name.
        This is the executor's hot loop: keep it lean."""
        values = frame.values
        try:
            if s.single:
                args = (values[s.single],)
            elif s.fetch is not None:
                args = s.fetch(values)
            else:
                args = [values[n] if n else None for n in s.args]
        except KeyError:   # captured from an enclosing graph, or never produced: say which
            args = [self._lookup(frame, n, s) if n else None for n in s.args]
        try:
            if s.call is not None:
                result = s.call(*args)
            elif s.function is not None:
                result = self._call_function(s, args)
            elif s.kernel.context:
                ctx = s.context or self._context_for(s)
                ctx.frame = frame
                result = s.kernel.fn(ctx, *args, **s.attrs)
            elif s.attrs:
                result = s.kernel.fn(*args, **s.attrs)
            else:
                result = s.kernel.fn(*args)
        except (Cancelled, ExecError):
            raise
        except Exception as e:  # noqa: BLE001  (wrap with the node's context)
            raise node_failure(s.node, s.inputs, args, e) from e
        outputs = s.outputs
        if collect:
            # Stepping shows every output, also one this step is the last to read.
            store_result(values, outputs, result, ())
            outs = {n: values[n] for n in outputs if n in values}
            for name in s.frees:
                values.pop(name, None)
            return outs
        store_result(values, outputs, result, s.frees)
        return None

    @staticmethod
    def _prepare(s: Step, plan: Plan, frame: Frame) -> None:
        """Let the kernel specialise itself to the step's attributes and
        constant inputs."""
        consts = []
        for name in s.args:
            if not name:
                consts.append(None)
            elif name in plan.consts:
                try:
                    consts.append(frame.get(name))
                except KeyError:   # not computed: leave the error to the run
                    return
            else:
                consts.append(VARIES)
        try:
            s.call = s.kernel.prepare(tuple(consts), s.attrs)
        except Exception:  # noqa: BLE001  (bad constants: the general kernel reports it with context)
            s.call = None

    def _context_for(self, s: Step) -> "_StepContext":
        """The step's KernelContext, made once: a body runs through it in
        whichever frame the step is running in at the time."""
        ctx = _StepContext(opset=s.opset, num_outputs=len(s.outputs), rng=self._get_rng, node=s.node)
        ctx.run_subgraph = lambda g, ins: self._run_graph(g, ins, ctx.frame)
        ctx.body_runner = lambda g: self._body_runner(g, ctx.frame)
        s.context = ctx
        return ctx

    def _get_rng(self):
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        return self._rng

    @staticmethod
    def _lookup(frame: Frame, name: str, s: Step):
        try:
            return frame.get(name)
        except KeyError:
            raise ExecError(f"{s.node.path}: input {name!r} has no value (it is neither computed "
                            f"before this node nor fed)", s.node) from None

class _StepContext(KernelContext):
    """A step's reusable KernelContext; `frame` is where the step runs now."""
    __slots__ = ("frame",)


def run(model: Model, feeds: dict, *, outputs: Optional[list[str]] = None, nodes=None,
        keep: bool = False, seed: int = 0) -> dict:
    """Run `model` (or the selected `nodes`) on `feeds`; returns outputs by name.
    With keep=True every intermediate value is returned as well."""
    s = Session(model, nodes=nodes, outputs=outputs, keep=keep, seed=seed)
    res = s.run(feeds)
    if keep:
        return {**s.values, **res}
    return res


__all__ = ["Session", "StepResult", "run"]
