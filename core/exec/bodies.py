"""Running graphs inside a run: If/Loop/Scan bodies and model-local functions.

A body is compiled once per session (`Body`). Its first run computes every
step and folds the constant-only ones; later runs start from `base` (its
initializers plus the folded values, one dict copy) and run the live steps.
A body sees its enclosing graphs' values: the names it reads from them are
copied into its own frame on entry, so its steps read every argument from
one dict. A Loop or Scan asks for a `runner` instead, which looks those
enclosing values up once for all its iterations: they cannot change while
the loop's node runs.
"""
from __future__ import annotations

from typing import Callable, Optional

from ..ir import Graph
from .errors import ExecError
from .failures import in_function_call
from .frame import Frame
from .kept import BodyValues
from .plan import Plan, Step, decode_attr_value


class Body:
    __slots__ = ("graph", "plan", "consts", "in_names", "out_names", "base")

    def __init__(self, graph: Graph, plan: Plan, consts: dict):
        self.graph = graph
        self.plan = plan
        self.consts = consts
        self.in_names = [v.name for v in graph.inputs]
        self.out_names = [v.name for v in graph.outputs]
        self.base: Optional[dict] = None     # consts + folded values, once the plan has folded

    def outputs(self, values: dict, frame: Frame) -> list:
        try:
            return [values[n] if n in values else frame.get(n) for n in self.out_names]
        except KeyError as e:
            raise ExecError(f"{self.graph.path}: output {e.args[0]!r} was not computed") from None


class BodyRunning:
    """Session methods for bodies and functions. The session provides
    `model`, `_plans` (id(graph) -> Plan), `_bodies` (id(graph) -> Body),
    `_constants(graph)`, `_execute(plan, frame)` and `_run_live(plan, frame)`."""

    def _plan_for(self, graph: Graph, opsets: Optional[dict] = None) -> Plan:
        p = self._plans.get(id(graph))
        if p is None:
            # The enclosing graph's constants are constants of the body too
            # (its plan exists: the body runs from one of its steps).
            parent = self._plans.get(id(graph.parent_graph)) if graph.parent_graph is not None else None
            # Keeping body values: no frees, so the whole frame is there to keep.
            p = Plan(graph, self.model, opsets or self.model.opset_imports,
                     outer_consts=parent.consts if parent is not None else frozenset(),
                     keep=self.body_values is not None)
            self._plans[id(graph)] = p
        return p

    def _body(self, graph: Graph) -> Body:
        body = self._bodies.get(id(graph))
        if body is None:
            body = Body(graph, self._plan_for(graph, self._opsets_of(graph)), self._constants(graph))
            self._bodies[id(graph)] = body
        return body

    def _run_graph(self, graph: Graph, inputs: list, parent: Frame) -> list:
        """Run a body once with the enclosing values visible."""
        body = self._bodies.get(id(graph)) or self._body(graph)
        plan = body.plan
        if body.base is None:
            values = dict(body.consts)
            copy_outer_values(values, plan.outer_names, parent)
            values.update(zip(body.in_names, inputs))
            frame = Frame(values, parent)
            self._execute(plan, frame)
            body.base = {**body.consts, **plan.folded}
            return body.outputs(values, frame)
        # the steady path of every If a run takes: kept to the few calls it needs
        values = body.base.copy()
        if plan.live_outer_names:
            copy_outer_values(values, plan.live_outer_names, parent)
        if inputs:
            values.update(zip(body.in_names, inputs))
        frame = Frame(values, parent)
        self._run_live(plan, frame)
        return body.outputs(values, frame)

    def _body_runner(self, graph: Graph, parent: Frame) -> Callable[[list], list]:
        """A function running `graph` once per call, for a loop's iterations."""
        body = self._body(graph)
        plan = body.plan
        start: Optional[dict] = None      # base + enclosing values, made once the plan has folded
        in_names, run_live, outputs = body.in_names, self._run_live, body.outputs

        def run(inputs: list) -> list:
            nonlocal start
            if start is None:
                if body.base is None:
                    return self._run_graph(graph, inputs, parent)
                start = dict(body.base)
                copy_outer_values(start, plan.live_outer_names, parent)
            values = dict(start)
            values.update(zip(in_names, inputs))
            frame = Frame(values, parent)
            run_live(plan, frame)
            return outputs(values, frame)
        return run

    # -- timing body steps (profile.py) -----------------------------------------------

    def time_bodies(self, times: "BodyTimes") -> None:
        """From the next run on, time each piece of every If/Loop/Scan body
        run into `times` (a profiled run). Set on the instance, as keeping
        is, so that a session not timing pays nothing; not with keep_bodies."""
        self.body_times = times
        self._run_graph = self._run_graph_timed
        self._body_runner = self._body_runner_timed

    def _run_graph_timed(self, graph: Graph, inputs: list, parent: Frame) -> list:
        body = self._bodies.get(id(graph)) or self._body(graph)
        if body.base is None:           # its first run folds and compiles: not a repeated run's time
            return BodyRunning._run_graph(self, graph, inputs, parent)
        plan = body.plan
        values = body.base.copy()
        copy_outer_values(values, plan.live_outer_names, parent)
        values.update(zip(body.in_names, inputs))
        frame = Frame(values, parent)
        self._timed_live(plan, frame)
        return body.outputs(values, frame)

    def _body_runner_timed(self, graph: Graph, parent: Frame) -> Callable[[list], list]:
        return lambda inputs: self._run_graph_timed(graph, inputs, parent)

    def _timed_live(self, plan: Plan, frame: Frame) -> None:
        """The body's live steps, each piece timed: its runners (merged as a
        repeated run merges them), or with `times.merged` off each step alone."""
        pieces = self._timed_pieces(plan, self.body_times.merged)
        self._run_timed(pieces, frame, self.body_times.spent_in(plan, len(pieces)))

    # -- keeping body values (kept.py) ------------------------------------------------

    def keep_bodies(self, budget: int, every_iteration: bool = False) -> None:
        """From the next run on, keep what every body run computes in
        `self.body_values`. Bodies run through the methods below then, set on
        the instance so that a session not keeping pays nothing for it."""
        self.body_values = BodyValues(budget, every_iteration)
        self._keep_options = (budget, every_iteration)
        self._run_graph = self._run_graph_kept
        self._body_runner = self._body_runner_kept
        self._run_function = self._run_function_kept       # a function's body is kept like a subgraph's
        # Body plans made so far free their values: make them again, keeping.
        self._plans = {id(self.graph): self.plan}
        self._bodies = {}

    @property
    def keeping_bodies(self) -> bool:
        """True between keep_bodies() and stop_keeping()."""
        return self._keep_options is not None

    def stop_keeping(self) -> None:
        """Bodies run as usual again (stepping records them its own way);
        `body_values` stays as the last run left it."""
        self.__dict__.pop("_run_graph", None)
        self.__dict__.pop("_body_runner", None)
        self.__dict__.pop("_run_function", None)
        self._keep_options = None

    def _run_graph_kept(self, graph: Graph, inputs: list, parent: Frame) -> list:
        body = self._bodies.get(id(graph)) or self._body(graph)
        plan = body.plan
        values = dict(body.consts) if body.base is None else body.base.copy()
        copy_outer_values(values, plan.outer_names, parent)
        values.update(zip(body.in_names, inputs))
        frame = Frame(values, parent)
        kept = self.body_values
        try:
            self._execute(plan, frame)
        finally:   # a body that fails keeps what it computed before the failing node
            kept.keep(graph, kept.names_for(graph, plan), values)
        if body.base is None:
            body.base = {**body.consts, **plan.folded}
        return body.outputs(values, frame)

    def _run_function_kept(self, plan: Plan, frame: Frame) -> None:
        """A function call's body, keeping what it computes (each call is one
        run of the body: the last call's values stay, or every call's)."""
        kept = self.body_values
        try:
            self._execute(plan, frame)
        finally:
            kept.keep(plan.graph, kept.names_for(plan.graph, plan), frame.values)

    def _body_runner_kept(self, graph: Graph, parent: Frame) -> Callable[[list], list]:
        return lambda inputs: self._run_graph_kept(graph, inputs, parent)

    def _opsets_of(self, graph: Graph) -> dict:
        root = graph.root()
        owner = root.owner
        if owner is not None and getattr(owner, "is_function", False):
            merged = dict(self.model.opset_imports)
            merged.update(owner.opset_imports)
            return merged
        return self.model.opset_imports

    def _function_plan(self, s: Step) -> Plan:
        """The plan of the function `s` calls, with `s`'s attributes, made once."""
        # A run keeping body values keeps every value of the call (a plan of its own).
        keep = self._keep_options is not None
        key = "plan kept" if keep else "plan"
        plan = s.body_cache.get(key)
        if plan is None:
            fn = s.function
            defaults = {k: decode_attr_value(a.value, a.type) for k, a in fn.attribute_defaults.items()}
            plan = Plan(fn.graph, self.model, self._opsets_of(fn.graph), keep=keep, caller_attrs=s.attrs,
                        attr_defaults=defaults)
            s.body_cache[key] = plan
        return plan

    def _call_function(self, s: Step, args: list):
        fn = s.function
        plan = self._function_plan(s)
        values = {}
        for v, x in zip(fn.graph.inputs, args):
            values[v.name] = x
        frame = Frame(values)
        try:
            self._run_function(plan, frame)
        except ExecError as e:    # the path inside the function starts at the function: lead to it from the call
            raise in_function_call(s.node, e) from e
        out = []
        for v in fn.graph.outputs:
            try:
                out.append(frame.get(v.name))
            except KeyError:
                raise ExecError(f"function {fn.name}: output {v.name!r} was not computed") from None
        return tuple(out)


    def _run_function(self, plan: Plan, frame: Frame) -> None:
        self._execute(plan, frame)


class BodyTimes:
    """Seconds spent in each piece of each body plan over the runs timed
    (BodyRunning.time_bodies): `merged` pieces are a plan's runners, else its
    live steps one by one. Nested bodies' time is also their holding node's."""

    def __init__(self):
        self.merged = True
        self.plans: dict = {}       # id(plan) -> (plan, merged, [seconds per piece])

    def spent_in(self, plan: Plan, pieces: int) -> list:
        entry = self.plans.get(id(plan))
        if entry is None or entry[1] != self.merged or len(entry[2]) != pieces:
            entry = self.plans[id(plan)] = (plan, self.merged, [0.0] * pieces)
        return entry[2]

    def clear(self, merged: bool) -> None:
        self.merged = merged
        self.plans = {}


def copy_outer_values(values: dict, names, parent: Frame) -> None:
    """Copy into a body's `values` the outer values it reads (`names`), from
    the nearest enclosing frame that has them."""
    near = parent.values
    for name in names:
        if name in near:
            values[name] = near[name]
        else:
            try:
                values[name] = parent.get(name)
            except KeyError:   # not computed: the step that reads it reports the error
                pass
