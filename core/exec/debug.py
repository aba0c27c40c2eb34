"""A debug run: the object the app and `onnxstudio run` share to run a model,
or a selection of its nodes, step by step, with breakpoints, and to keep
every value computed so far.

    run = DebugRun(model)
    run.breakpoints.add(node)            # stops before it
    run.break_on_nonfinite = True        # stops after the first node that makes NaN/Inf (inside
                                         # bodies too), or before the first node for a NaN input
    run.start(feeds)                     # or start(feeds, nodes=[...]) for a selection
    run.step()                           # one node; into an If/Loop/Scan body (see below)
    run.step_over() / step_into() / step_out()   # as in an IDE, past constants (stepping.py)
    run.resume()                         # to the next breakpoint or the end
    run.values["logits"]                 # every main-graph value so far, by name
    run.value_of(value)                  # any IR value, also one inside a body being walked

    run.run(feeds)                       # the whole model at full speed
    run.invalidate(changes)              # after an edit: drops exactly the values downstream
    run.run(feeds)                       # recomputes only those

Stepping into a control-flow node runs it whole (its kernel decides the
branch and the iterations), recording every body node it runs, and then
walks that recording one node per step: the body's values appear on its
edges iteration by iteration, breakpoints inside bodies stop the walk, and
the node after the If/Loop/Scan comes next. A nested If/Loop/Scan or call
in the recording is a step of its own (it is entered, or stepped over). The values are the real ones;
only the order of pausing differs from a live interpreter.

Selections take their boundary values (values read by a selected node and
made outside it) from the last run when there is one, then from the given
feeds, and otherwise make them (random values of the inferred type, or a
prefix run from the model inputs): `boundary_feeds`.

Threads: `cancel()` and reading `position`/`total` may happen on another
thread; everything else on the one that runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable, Optional

import numpy as np

from ..ir import Graph, Model, Node, Value
from ..ir.nesting import node_reads, top_level_node
from ..ir.types import TensorType
from .bodies import copy_outer_values as _copy_outer
from .errors import Cancelled, ExecError, FeedError
from .feeds import defaulted_dims, random_value
from .frame import Frame
from .kept import DEFAULT_BUDGET, BodyValues
from .pause_points import pause_point
from .session import Session
from .stepping import Stepping, calls_function, is_control_flow, quiet_kinds
from .tensor_stats import has_nonfinite

TRACE_LIMIT = 20000       # body steps recorded per control-flow node; later ones run unrecorded


@dataclass
class TraceEntry:
    graph: Graph
    node: Optional[Node]          # None: the body's inputs at the start of an iteration
    iteration: int
    outputs: dict
    # "node" (a step), "inputs" (node None), "enter" (a nested If/Loop/Scan
    # or function call starts: a step; its outputs are its "exit"'s) or
    # "exit" (it ended; applied on the way, not a step).
    kind: str = "node"
    end: int = -1                 # of an "enter": the index of its "exit" (-1: not recorded)
    within: int = -1              # index of the "enter" holding this entry (-1: the body walked first)
    quiet: str = ""               # "constant" / "shape": a node debugger steps pass by (stepping.py)


@dataclass
class StepEvent:
    """What one step (or the end of resume/run_to) did."""
    node: Optional[Node]          # the node just run (None when nothing ran)
    outputs: dict = field(default_factory=dict)
    graph: Optional[Graph] = None
    iteration: int = -1           # inside a body: which run of it (from 0)
    nonfinite: list = field(default_factory=list)   # output names holding NaN/Inf
    reason: str = "step"          # "step", "breakpoint", "nonfinite", "done", "target"
    how: str = ""                 # "into": a body was entered; "out": the body holding the step was finished


class _DebugSession(Session):
    """A Session that can record the bodies its control-flow nodes run."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.trace: Optional[list] = None       # set for the one step that records
        self.truncated = False
        self._iterations: dict[int, int] = {}
        self._open: list = []                   # indexes of the "enter" entries running now
        self._kinds: dict[int, list] = {}       # id(plan) -> per step: (runs a body or call, quiet kind)

    def begin_trace(self) -> None:
        self.trace = []
        self.truncated = False
        self._iterations = {}
        self._open = []

    def kinds(self, plan) -> list:
        """Per step of `plan`: (whether it runs a body or a function, its quiet kind)."""
        found = self._kinds.get(id(plan))
        if found is None:
            quiet = quiet_kinds(plan)
            # only kernels given a context run bodies: node.subgraphs() on every node
            # was most of the first step's time on a 10k-node model
            found = [(s.function is not None or (s.kernel is not None and s.kernel.context
                                                  and is_control_flow(s.node)), q)
                     for s, q in zip(plan.steps, quiet)]
            self._kinds[id(plan)] = found
        return found

    def _run_graph(self, graph, inputs, parent):
        if self.trace is None:
            return super()._run_graph(graph, inputs, parent)
        body = self._body(graph)
        values = dict(body.consts)
        _copy_outer(values, body.plan.outer_names, parent)
        values.update(zip(body.in_names, inputs))
        frame = Frame(values, parent)
        it = self._iterations.get(id(graph), 0)
        self._iterations[id(graph)] = it + 1
        self._record(TraceEntry(graph, None, it, dict(zip(body.in_names, inputs)), "inputs"))
        self._run_recorded(body.plan, frame, graph, it)
        return body.outputs(values, frame)

    def _run_function(self, plan, frame):
        if self.trace is None:
            return super()._run_function(plan, frame)
        graph = plan.graph
        it = self._iterations.get(id(graph), 0)
        self._iterations[id(graph)] = it + 1
        self._record(TraceEntry(graph, None, it, dict(frame.values), "inputs"))
        self._run_recorded(plan, frame, graph, it)

    def _run_recorded(self, plan, frame, graph, it) -> None:
        """Run `plan`'s steps, recording each; a step that runs a body or a
        call is bracketed by "enter" and "exit" entries, so stepping can
        stop before it and pass over it."""
        for s, (holds, quiet) in zip(plan.steps, self.kinds(plan)):
            if self._cancelled:
                raise Cancelled("run cancelled")
            if not holds:
                self._record(TraceEntry(graph, s.node, it, self._run_step(s, frame, True), quiet=quiet))
                continue
            start = self._record(TraceEntry(graph, s.node, it, {}, "enter"))
            self._open.append(start)
            try:
                outs = self._run_step(s, frame, True)
            finally:
                self._open.pop()
            end = self._record(TraceEntry(graph, s.node, it, outs, "exit"))
            if start >= 0 and end >= 0:
                self.trace[start].end = end

    def _body_runner(self, graph, parent):
        if self.trace is None:
            return super()._body_runner(graph, parent)
        return lambda inputs: self._run_graph(graph, inputs, parent)

    def _record(self, entry: TraceEntry) -> int:
        """Append `entry`; its index, or -1 past TRACE_LIMIT."""
        if len(self.trace) < TRACE_LIMIT:
            entry.within = self._open[-1] if self._open else -1
            self.trace.append(entry)
            return len(self.trace) - 1
        self.truncated = True
        return -1


class DebugRun(Stepping):
    def __init__(self, model: Model, *, seed: int = 0):
        self.model = model
        self.seed = seed
        self.breakpoints: set = set()          # Node objects (or node names)
        self.break_on_nonfinite = False
        self.progress: Optional[Callable[[int, int, Node], None]] = None
        self.values: dict = {}                 # main-graph values computed (or fed) so far, by name
        self.body_values: dict[int, dict] = {}  # id(body graph) -> its values as far as walked
        self.iterations: dict[int, int] = {}   # id(body graph) -> the iteration being walked
        self.nonfinite: dict = {}              # Node -> names of its outputs holding NaN/Inf
        self.nonfinite_inputs: list = []       # fed inputs holding NaN/Inf (checked when breaking on them)
        self.feeds: dict = {}                  # the model-input (or boundary) feeds of the last start
        self.selection: Optional[list] = None
        self.randomised: list = []             # boundary values of the last selection given random values
        # Names whose value held is random (a selection's boundary): never taken as known by the next
        # selection, which makes them again and says so (they went silently into its results).
        self._made_up: set = set()
        self.nodes_run: list = []              # nodes the last run()/steps computed, in order
        self.error: Optional[ExecError] = None
        self.truncated = False                 # a body recording hit TRACE_LIMIT
        self.session: Optional[_DebugSession] = None
        # Whole runs keep the values inside bodies when asked (kept.py); `kept`
        # is the last whole run's record, None when it has none or it is stale.
        self.keep_body_values = False
        self.body_budget = DEFAULT_BUDGET
        self.every_iteration = False
        self.kept: Optional[BodyValues] = None
        self._trace: list = []
        self._trace_pos = 0
        self._holder: Optional[Node] = None    # the main-graph node whose recording is walked
        self._inner: dict[int, list] = {}      # id(body) -> ids of the bodies nested in it (_inner_graphs)
        self._cancelled = False
        self._inputs_checked = False           # the NaN check of the fed inputs is done for this start
        self._session_feeds: dict = {}         # what the session of the last start was fed

    # -- state ---------------------------------------------------------------------------

    @property
    def graph(self) -> Graph:
        return self.model.graph

    @property
    def started(self) -> bool:
        return self.session is not None

    @property
    def done(self) -> bool:
        return self.session is None or (self.session.done and not self._walking)

    @property
    def _walking(self) -> bool:
        return self._trace_pos < len(self._trace)

    @property
    def position(self) -> int:
        return self.session.position if self.session is not None else 0

    @property
    def total(self) -> int:
        return len(self.session.plan.steps) if self.session is not None else 0

    @property
    def current(self) -> Optional[Node]:
        """The node the next step runs (inside a body while walking one)."""
        self._skip_inputs()
        if self._walking:
            return self._trace[self._trace_pos].node
        if self.session is None or self.session.done:
            return None
        return self.session.plan.steps[self.session.position].node

    @property
    def current_iteration(self) -> int:
        return self._trace[self._trace_pos].iteration if self._walking else -1

    def value_of(self, value, graph: Optional[Graph] = None):
        """The value computed for `value` (an IR Value, or a name with its graph); None if none yet."""
        if isinstance(value, Value):
            graph, name = value.graph, value.name
        else:
            name = value
        if graph is None or graph is self.graph:
            return self.values.get(name)
        found = self.body_values.get(id(graph), {})
        if name in found:
            return found[name]
        if graph.parent_graph is not None:      # read from an enclosing graph
            return self.value_of(name, graph.parent_graph)
        return None

    def cancel(self) -> None:
        self._cancelled = True
        if self.session is not None:
            self.session.cancel()

    # -- starting ------------------------------------------------------------------------

    def start(self, feeds: dict, nodes: Optional[Iterable] = None, *,
              rng: Optional[np.random.Generator] = None, dims: Optional[dict] = None) -> None:
        """Ready a stepping run of the whole model or of `nodes` (a selection of
        main-graph nodes); the first node runs on the first step."""
        self._cancelled = False
        self.error = None
        selection = list(nodes) if nodes is not None else None
        session = _DebugSession(self.model, nodes=selection, keep=True, seed=self.seed)
        self.randomised = []
        if selection is not None:
            known = {k: v for k, v in self.values.items() if k not in self._made_up}
            made = boundary_feeds(self.model, session.input_names, given=feeds, known=known,
                                  rng=rng or np.random.default_rng(self.seed), dims=dims, seed=self.seed)
            feeds, self.randomised = made.feeds, made.randomised
            self._made_up = (self._made_up - set(made.feeds)) | set(made.randomised)
        else:
            feeds = {k: v for k, v in feeds.items() if k in session.input_names}
            self._made_up = set()
        session.start(feeds)
        session.progress = self._progress
        computed = {name for st in session.plan.steps for name in st.outputs if name}
        self._made_up -= computed
        self._inputs_checked = False
        self.nonfinite_inputs = []
        if selection is None:
            self.values = {}
            self.nonfinite = {}
        else:
            for name in computed:
                self.values.pop(name, None)
            for st in session.plan.steps:
                self.nonfinite.pop(st.node, None)
        self.values.update(session.values)
        self.feeds = dict(feeds) if selection is None else self.feeds
        self._session_feeds = feeds
        self.selection = selection
        self.session = session
        self.body_values = {}
        self.iterations = {}
        self.kept = None
        self._trace, self._trace_pos = [], 0
        self.nodes_run = []
        self._inner = {}                # the bodies may have been edited since

    def _progress(self, i: int, n: int, node: Node) -> None:
        if self.progress is not None:
            self.progress(i, n, node)

    # -- stepping ------------------------------------------------------------------------

    def step(self, into: bool = True) -> StepEvent:
        """Run the next node. With `into`, a control-flow node is entered: its
        body nodes are the next steps (see the module docstring)."""
        self._starting_a_step()
        self._skip_inputs()
        if self._walking:
            return self._walk_one()
        if self.session.done:
            return StepEvent(None, reason="done")
        node = self.current
        # A function's body is walked only when looking for NaN/Inf (the app
        # steps over calls otherwise).
        return self._step_main(into and (is_control_flow(node)
                                         or (self.break_on_nonfinite and calls_function(self.session, node))))

    def _step_main(self, record: bool) -> StepEvent:
        """Run the next main-graph node; with `record`, the bodies it runs are
        recorded and walked by the next steps."""
        session = self.session
        if record:
            session.begin_trace()
        try:
            result = session.step()
        except ExecError as e:
            if self.session is session:
                self.error = e
            raise
        finally:
            trace = session.trace
            session.trace = None
        if self.session is not session:
            # An edit (invalidate) came while the node ran, from the thread that
            # shows the run: its result is of the model before, and goes.
            raise Cancelled("the model changed while the node ran")
        self._store(result.node, result.outputs)
        event = StepEvent(result.node, result.outputs, self.graph, -1,
                          self.nonfinite.get(result.node, []))
        if not (record and trace) and self.body_values:
            self._forget_walks_of(self.session.position - 1)
        if record and trace:
            self.truncated = self.truncated or self.session.truncated
            self._trace, self._trace_pos = trace, 0
            self._holder = result.node
            self._skip_inputs()
            event.how = "into"
        return event

    def _forget_walks_of(self, index: int) -> None:
        """The main-graph step at `index` ran whole, unrecorded: the values a
        walk of an earlier run of its bodies left (another call of the same
        function) are not this run's, and go."""
        s = self.session
        holds = s.kinds(s.plan)[index][0] if 0 <= index < len(s.plan.steps) else False
        if holds:
            self._forget_walks_in([s.plan.steps[index].node])

    def _forget_walks_in(self, nodes) -> None:
        """Drop the body values of the bodies `nodes` (main-graph nodes about
        to run, or just run, unrecorded) run: their If/Loop/Scan bodies or the
        function they call, and the bodies nested in those."""
        for node in nodes:
            called = self.model.function(node.domain, node.op_type, node.overload)
            bodies = [called.graph] if called is not None else [g for _, g in node.subgraphs()]
            for body in bodies:
                for g in body.walk():
                    self.body_values.pop(id(g), None)
                    self.iterations.pop(id(g), None)

    def _store(self, node: Node, outputs: dict) -> None:
        self.values.update(outputs)
        self.nodes_run.append(node)
        bad = [name for name, v in outputs.items() if has_nonfinite(v)]
        if bad:
            self.nonfinite[node] = bad

    def _skip_inputs(self) -> None:
        """Apply the entries that are not steps (a body's inputs, the end of a
        nested body or call) up to the next step."""
        while self._walking and self._trace[self._trace_pos].kind in ("inputs", "exit"):
            self._apply(self._trace[self._trace_pos])

    def _apply(self, e: TraceEntry) -> list:
        """Take the values of the entry at the walk's position and move past
        it; the names of its outputs holding NaN/Inf."""
        self._trace_pos += 1
        self.iterations[id(e.graph)] = e.iteration
        if e.kind == "inputs":
            self.body_values[id(e.graph)] = dict(e.outputs)   # a new iteration starts afresh
            # ... and so do the bodies inside it: an If branch still holding the
            # iteration before's values would show them as this iteration's
            # until (or unless) it runs again.
            for inner in self._inner_graphs(e.graph):
                self.body_values.pop(inner, None)
                self.iterations.pop(inner, None)
            return []
        if e.kind == "enter":
            return []
        self.body_values.setdefault(id(e.graph), {}).update(e.outputs)
        bad = [name for name, v in e.outputs.items() if has_nonfinite(v)]
        if bad:
            self.nonfinite[e.node] = bad
        return bad

    def _inner_graphs(self, graph: Graph) -> list:
        """ids of the bodies nested in `graph` (not itself), cached per graph."""
        found = self._inner.get(id(graph))
        if found is None:
            found = self._inner[id(graph)] = [id(g) for g in graph.walk() if g is not graph]
        return found

    def _walk_one(self) -> StepEvent:
        e = self._trace[self._trace_pos]
        if e.kind == "enter":
            # Entering a nested If/Loop/Scan or call: it ran whole, so its
            # outputs are known now; its body's nodes are the next steps.
            self._apply(e)
            outs = self._trace[e.end].outputs if e.end >= 0 else {}
            self.body_values.setdefault(id(e.graph), {}).update(outs)
            self._skip_inputs()
            return StepEvent(e.node, outs, e.graph, e.iteration, how="into")
        bad = self._apply(e)
        self._skip_inputs()
        return StepEvent(e.node, e.outputs, e.graph, e.iteration, bad)

    def _stops_before(self, node: Optional[Node]) -> bool:
        return node is not None and (node in self.breakpoints or (node.name and node.name in self.breakpoints))

    def resume(self, target: Optional[Node] = None, into: bool = False) -> StepEvent:
        """Run until a breakpoint (not run), a node that makes NaN/Inf (run,
        when break_on_nonfinite), `target` (not run) or the end. Control-flow
        nodes are entered only to reach a breakpoint or target inside them
        (or with `into`)."""
        if self.session is None:
            raise ExecError("start the run first")
        last = StepEvent(None, reason="done")
        if self.break_on_nonfinite and not self._inputs_checked:
            self._inputs_checked = True
            bad = self._nonfinite_feeds()
            if bad:
                self.nonfinite_inputs = bad
                return StepEvent(None, nonfinite=bad, reason="nonfinite")
        first = True
        while not self.done:
            if self._cancelled:
                raise Cancelled("run cancelled")
            node = self.current
            if not first and (self._stops_before(node)):
                last.reason = "breakpoint"
                return last
            if target is not None and node is target:
                last.reason = "target"
                return last
            first = False
            walking = self._walking
            enter = into or (not walking and (self._wanted_inside(node, target)
                                              or (self.break_on_nonfinite
                                                  and (is_control_flow(node) or calls_function(self.session, node)))))
            last = self.step(into=enter)
            # A body node that made the NaN/Inf is where to stop, not the
            # If/Loop/Scan holding it: its recording is walked next.
            if self.break_on_nonfinite and last.nonfinite and not (enter and not walking and self._nonfinite_ahead()):
                last.reason = "nonfinite"
                return last
        last.reason = "done"
        return last

    def _nonfinite_feeds(self) -> list:
        """Names of the values fed to this run that hold NaN/Inf."""
        feeds = self._session_feeds
        return [name for name in self.session.input_names if name in feeds and has_nonfinite(feeds[name])]

    def _nonfinite_ahead(self) -> bool:
        """True when a node still to be walked in the recording made NaN/Inf."""
        return any(e.node is not None and any(has_nonfinite(v) for v in e.outputs.values())
                   for e in self._trace[self._trace_pos:])

    def _wanted_inside(self, node: Node, target: Optional[Node]) -> bool:
        if not is_control_flow(node):
            return False
        inside = [b for b in self.breakpoints if isinstance(b, Node) and b is not node
                  and top_level_node(b, self.graph) is node]
        return bool(inside) or (target is not None and target is not node
                                and top_level_node(target, self.graph) is node)

    def can_reach(self, node: Node) -> bool:
        """True when `node` is still ahead in this run (run_to can stop before it)."""
        if self.session is None or self.done:
            return False
        if any(e.node is node for e in self._trace[self._trace_pos:]):
            return True
        top = top_level_node(node, self.graph)
        steps = self.session.plan.steps
        return any(st.node is top for st in steps[self.session.position:])

    def run_to(self, node: Node) -> StepEvent:
        """Run until `node` is next (it is not run); it may be inside a body."""
        return self.resume(target=node)

    def end_stepping(self) -> None:
        """End a stepping run in progress, keeping the values computed so far:
        the inputs it was started on are no longer the ones to run, so the
        next step starts again from the first node (start)."""
        self.session = None
        self._trace, self._trace_pos = [], 0

    # -- whole runs ---------------------------------------------------------------------

    def run(self, feeds: dict, nodes: Optional[Iterable] = None, **start_options) -> dict:
        """Run the whole model (or `nodes`) at full speed, ignoring breakpoints;
        returns the outputs. When the feeds are those of the last run and
        values survive from it, only the missing values are computed."""
        self._cancelled = False
        self.error = None
        if nodes is None and self.values and self._same_feeds(feeds) and not self._wants_bodies():
            needed = self._missing_nodes()
            if not needed:
                self.nodes_run = []
                return self._outputs()
            return self._run_part(needed)
        self.start(feeds, nodes, **start_options)
        if self.keep_body_values:
            self.session.keep_bodies(self.body_budget, self.every_iteration)
        return self._run_rest(self._session_feeds)

    def _wants_bodies(self) -> bool:
        """Body values are asked for and the last run left none (it was before
        the option, or an edit dropped them): only a whole run gives them."""
        functions = self.model.functions
        return (self.keep_body_values and self.kept is None
                and any(n.subgraphs() or (n.domain, n.op_type, n.overload) in functions for n in self.graph.nodes))

    def _run_rest(self, feeds: dict) -> dict:
        s = self.session
        try:
            return s.run(feeds)
        except ExecError as e:
            self.error = e
            self._stop_at(s, e.via[0] if e.via else e.node)
            raise
        finally:
            # Unless an edit (invalidate) ended this session meanwhile: what it
            # computed since is of the model before the edit.
            if self.session is s:
                self._absorb(s)
                self._absorb_bodies(s)

    @staticmethod
    def _stop_at(s: Session, node: Optional[Node]) -> None:
        """After a failed run, the next step is the failing node (or the
        main-graph node holding it), not the first one: that is where the run
        stopped, and stepping retries it."""
        top = top_level_node(node, s.graph) if node is not None and node.graph is not None else None
        for i, st in enumerate(s.plan.steps):
            if st.node is top:
                s.resume_at(i)
                return

    def _absorb(self, s: Session) -> None:
        """Take every value the session computed (also after a failure) and
        flag the nodes that made NaN/Inf."""
        held = s.values
        self.values.update(held)
        ran = [st.node for st in s.plan.steps
               if any(name in held for name in st.outputs if name) or not st.outputs]
        self.nodes_run = ran
        for node in ran:
            pause_point()
            bad = [v.name for v in node.outputs if v is not None and v.name in held
                   and has_nonfinite(held[v.name])]
            if bad:
                self.nonfinite[node] = bad
            else:
                self.nonfinite.pop(node, None)

    def _absorb_bodies(self, s: Session) -> None:
        """The body values a keeping run recorded, where value_of finds them."""
        kept = s.body_values
        if not s.keeping_bodies or kept is None:
            return
        s.stop_keeping()
        if self.kept is None:
            self.kept = kept
        else:           # a partial run after an edit: its bodies join the other kept ones
            self.kept.merge(kept)
        for path, graph in kept.graphs.items():
            self.body_values[id(graph)] = kept.of_graph(graph)
            self.iterations[id(graph)] = kept.iterations[path]

    def _run_part(self, nodes: list) -> dict:
        if self.kept is None and self.body_values:      # a stepping walk's, of another run of these bodies
            self._forget_walks_in(nodes)
        session = _DebugSession(self.model, nodes=nodes, keep=True, seed=self.seed)
        session.progress = self._progress
        if self.keep_body_values and self.kept is not None:    # what the budget has left
            session.keep_bodies(max(0, self.kept.budget - self.kept.nbytes), self.every_iteration)
        self.session = session
        self._trace, self._trace_pos = [], 0
        self._run_rest({name: self.values[name] for name in session.input_names})
        return self._outputs()

    def _outputs(self) -> dict:
        out = {}
        for v in self.graph.outputs:
            if v is not None and v.name:
                if v.name not in self.values:
                    raise ExecError(f"output {v.name!r} was not computed")
                out[v.name] = self.values[v.name]
        return out

    def _same_feeds(self, feeds: dict) -> bool:
        if self.selection is not None:
            return False
        names = [v.name for v in self.graph.inputs if v.name not in self.graph.initializers]
        for name in names:
            a, b = feeds.get(name), self.feeds.get(name)
            if a is None or b is None:
                if a is not b:
                    return False
            elif a is not b and not _equal(a, b):
                return False
        return True

    def _missing_nodes(self) -> list:
        """Main-graph nodes with an output not held (in graph order)."""
        return [n for n in self.graph.nodes
                if any(v is not None and v.name and v.name not in self.values for v in n.outputs)]

    # -- edits ---------------------------------------------------------------------------

    def invalidate(self, changes) -> set:
        """Drop the values an edit (a core.edits `Changes`) makes stale: the
        outputs of touched nodes and of everything downstream of them, and of
        changed initializers' readers. Returns the names dropped. A stepping
        run in progress ends (its compiled plan is of the old model)."""
        if changes.model_fields or changes.functions:
            dropped = set(self.values) - {v.name for v in self.graph.inputs}
            self.kept = None          # every body value is stale too
            self._drop(dropped, set(self.nonfinite))
            return dropped
        graph = self.graph
        touched = set()
        dirty = set()
        for n in set(changes.nodes_changed) | set(changes.nodes_added):
            top = top_level_node(n, graph)
            if top is not None:
                touched.add(top)
        for n in changes.nodes_removed:
            dirty.update(v.name for v in n.outputs if v is not None and v.name)
            top = top_level_node(n, graph) if n.graph is not None else None
            if top is not None:
                touched.add(top)
        for v in changes.initializers:
            if v.name:
                dirty.add(v.name)
            # A body's own initializer is read by nothing in the main graph: the
            # node holding the body (and what follows it) is what went stale.
            owner = v.graph
            if owner is not None and owner is not graph and owner.parent_node is not None:
                touched.add(top_level_node(owner.parent_node, graph))
            for reader, _slot in v.uses:
                if reader.graph is not None and reader.graph is not graph:
                    touched.add(top_level_node(reader, graph))
        touched.discard(None)
        for g, old, new in changes.values_renamed:
            dirty.update((old, new))
        stale_nodes = set()
        for n in graph.nodes:
            if n in touched or any(v.name in dirty for v in node_reads(n)):
                stale_nodes.add(n)
                dirty.update(v.name for v in n.outputs if v is not None and v.name)
        fed = {v.name for v in graph.inputs}      # the user's inputs stay whatever was edited
        dropped = {name for name in dirty if name in self.values and name not in fed}
        self._drop(dropped, stale_nodes | {n for n in self.nonfinite if n.graph is None})
        return dropped

    def _drop(self, names: set, nodes: set) -> None:
        for name in names:
            self.values.pop(name, None)
        for n in nodes:
            self.nonfinite.pop(n, None)
        self.error = None              # it was of the model before the edit
        self.nonfinite_inputs = []
        self.session = None
        self._drop_bodies(nodes)
        self._trace, self._trace_pos = [], 0

    def forget_body_values(self) -> None:
        """Drop what the last whole run kept inside bodies (kept under options
        since changed: another budget, every iteration or none): the next
        whole run keeps anew. The main graph's values stay."""
        self.kept = None
        self._drop_bodies(set())

    def _drop_bodies(self, stale: set) -> None:
        """Values inside the bodies of `stale` main-graph nodes go. Those a
        whole run kept in other bodies stay, so the partial run after an
        edit recomputes only the stale ones; a stepping walk's go."""
        kept = self.kept
        if kept is None:
            self.body_values = {}
            self.iterations = {}
            return
        for path, graph in list(kept.graphs.items()):
            holder = graph.parent_node
            top = top_level_node(holder, self.graph) if holder is not None and holder.graph is not None else None
            if top is None or top in stale:
                kept.forget(path)
                self.body_values.pop(id(graph), None)
                self.iterations.pop(id(graph), None)


def same_feeds(a: dict, b: dict) -> bool:
    """Whether two sets of feeds give the same names the same values (what
    `DebugRun.feeds` holds for a run: the app asks whether a comparison was
    made on the inputs of the values shown)."""
    return a.keys() == b.keys() and all(a[k] is b[k] or _equal(a[k], b[k]) for k in a)


def _equal(a, b) -> bool:
    try:
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return (a.dtype == b.dtype and a.shape == b.shape
                    and bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")))
        return bool(a == b)
    except (TypeError, ValueError):
        return False


# -- feeds of a selection ------------------------------------------------------------------

@dataclass
class BoundaryFeeds:
    feeds: dict
    randomised: list = field(default_factory=list)   # names given random values
    sized_one: list = field(default_factory=list)    # dims made 1 for want of a size


def boundary_feeds(model: Model, names: list, *, given: dict, known: Optional[dict] = None,
                   rng: Optional[np.random.Generator] = None, dims: Optional[dict] = None,
                   seed: int = 0) -> BoundaryFeeds:
    """Values for `names` (a session's inputs): from `given`, then `known`
    (the last run's values), then, for a constant (a Constant node's output,
    a Cast of a weight: compare.constant_values), the model's own, then
    random ones of the value's (inferred) type when `rng` is given, else
    computed by a prefix run from the model inputs in `given`."""
    from .compare import constant_values
    graph = model.graph
    out = BoundaryFeeds({})
    missing = []
    for name in names:
        if name in given:
            out.feeds[name] = given[name]
        elif known and name in known:
            out.feeds[name] = known[name]
        elif name not in graph.initializers:
            missing.append(name)
    if not missing:
        return out
    # A constant is what the model says, whatever the inputs: random values there (a whisper
    # export's attention Constant, at a selection's edge) computed what the model never does.
    constants = [name for name in missing if name in constant_values(graph)]
    if constants:
        out.feeds.update(Session(model, outputs=constants, seed=seed).run({}))
        missing = [name for name in missing if name not in out.feeds]
        if not missing:
            return out
    if rng is not None:
        inferred: dict = {}
        for name in missing:
            value = typed_value(model, name, inferred)
            if value is None:
                raise FeedError(f'input "{name}": no such value in the model')
            out.feeds[name] = random_value(value, rng, dims)
            out.randomised.append(name)
            out.sized_one += [d for d in defaulted_dims(value, dims) if d not in out.sized_one]
        return out
    prefix = Session(model, outputs=missing, seed=seed)
    computed = prefix.run({k: v for k, v in given.items() if k in prefix.input_names})
    out.feeds.update((k, computed[k]) for k in missing)
    return out


def typed_value(model: Model, name: str, inferred: dict) -> Optional[Value]:
    """The value `name`, with its inferred type when the file declares none
    (or no shape): boundary values of a selection are intermediates, which
    exports seldom describe. `inferred` caches the inference between calls."""
    value = model.graph.lookup(name)
    t = value.type if value is not None else None
    if isinstance(t, TensorType) and t.shape is not None and t.elem_type:
        return value
    if not inferred:
        from ..infer import infer      # only when a declared type is missing
        inferred.update(infer(model))
    t = inferred.get(name)
    return Value(name, t) if t is not None else value


__all__ = ["DebugRun", "StepEvent", "TraceEntry", "BoundaryFeeds", "boundary_feeds", "typed_value",
           "is_control_flow", "TRACE_LIMIT"]
