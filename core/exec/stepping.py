"""Stepping like a debugger: Step Over, Step Into and Step Out on a DebugRun,
and the nodes those steps pass by.

    run.step_over()    # the next node; an If/Loop/Scan or a function call runs whole, as one step
    run.step_into()    # the same, but a body or call is entered: its first node is next
    run.step_out()     # the rest of the body being walked (every remaining iteration);
                       # stops after the node holding it
    run.step_on_constants = True     # Constant nodes (and anything computed from constants
                                     # only) are steps too; by default they are passed by
    run.step_on_shapes = True        # likewise Shape/Size and arithmetic on their results

A passed-by node still runs in its turn, and its values are kept: it is
only not a place where a step stops. A breakpoint is always a place to stop:
on a passed-by node, and inside a body that Step Over or Step Out runs
through (as in an IDE). The plain `step()` stops on every node.

How bodies are walked (a recording, walked one node per step) is described
in debug.py. In a recording, a nested If/Loop/Scan or call is an "enter"
entry, its body's entries, then an "exit" entry: Step Into at an "enter"
moves into the body, Step Over walks to its "exit" in one go.
"""
from __future__ import annotations

from typing import Optional

from ..ir import Node
from .errors import Cancelled, ExecError
from .shape_blocks import shape_static


def is_control_flow(node: Node) -> bool:
    return bool(node.subgraphs()) and node.domain in ("", "ai.onnx")


def calls_function(session, node: Node) -> bool:
    """True when `node`, a step of `session`'s plan, calls a model-local function."""
    step = _step_of(session, node)
    return step is not None and step.function is not None


def _step_of(session, node: Node):
    steps = session.plan.steps
    pos = session.position
    if pos < len(steps) and steps[pos].node is node:
        return steps[pos]
    return next((st for st in steps if st.node is node), None)


def quiet_kinds(plan) -> list:
    """Per step of `plan`: "constant" when its values are the same on every
    run (a Constant, arithmetic on initializers: what the plan folds),
    "shape" for shape arithmetic (Shape/Size and steps computed from their
    results and constants only: shape_blocks.py's shape-static steps, here
    also when they make a plan output), else ""."""
    folded = plan.foldable
    static = shape_static(plan.steps, plan.consts, skip=folded)
    return ["constant" if f else "shape" if ok else "" for f, ok in zip(folded, static)]


class Stepping:
    """DebugRun's debugger steps (a mixin: the state is DebugRun's)."""

    step_on_constants = False
    step_on_shapes = False

    def step_over(self):
        """Run the next node; a control-flow node or a function call runs
        whole, unless a breakpoint inside it stops the step there."""
        if not self._begin_step():
            return self._done_event()
        if self._walking:
            e = self._trace[self._trace_pos]
            event = self._walk_over(self._trace_pos) if e.kind == "enter" else self._walk_one()
        elif self._holds_breakpoint(self.current):
            event = self._step_main(True)
            event.how = ""
            if self._walking and not self._stops_before(self.current):
                event = self._walk_to(len(self._trace), event)
            elif self._walking:
                event.reason = "breakpoint"
        else:
            event = self._step_main(False)
        return self._settle(event)

    def step_into(self):
        """Run the next node; a control-flow node or a function call is
        entered: the first node of its body (for a Loop, of its first
        iteration) is next. It ran whole already: its outputs are known."""
        if not self._begin_step():
            return self._done_event()
        if self._walking:
            event = self._walk_one()
        else:
            node = self.current
            event = self._step_main(is_control_flow(node) or calls_function(self.session, node))
        return self._settle(event)

    def step_out(self):
        """Finish the body being walked (all its remaining iterations) and
        stop after the node holding it; a breakpoint on the way stops there.
        In the main graph, there is nothing to step out of: run on like
        resume()."""
        if self.session is None:
            raise ExecError("start the run first")
        self.error = None
        self._inputs_checked = True
        self._skip_inputs()
        if not self._walking:
            return self.resume()
        pos = self._trace_pos
        holder_at = self._trace[pos].within
        if holder_at >= 0:
            h = self._trace[holder_at]
            end = h.end + 1 if h.end >= 0 else len(self._trace)
            outs = self._trace[h.end].outputs if h.end >= 0 else {}
            event = self._event(h.node, outs, h.graph, h.iteration)
        else:
            node = self._holder
            end = len(self._trace)
            outs = {v.name: self.values[v.name] for v in node.outputs if v is not None and v.name in self.values}
            event = self._event(node, outs, self.graph, -1)
        event.how = "out"
        self._apply(self._trace[pos])          # the current node: it is where we are, not a stop
        return self._settle(self._walk_to(end, event))

    def settle(self) -> None:
        """Run the nodes steps pass by up to the next one that is a step
        (after start: the run stops at its first real node)."""
        if self.session is not None:
            self._skip_quiet()

    # -- internals --------------------------------------------------------------------

    def _begin_step(self) -> bool:
        """Ready a step: pass by quiet nodes first; False when nothing is left."""
        self._starting_a_step()
        self._skip_quiet()
        return not self.done

    def _starting_a_step(self) -> None:
        """What every step (these and DebugRun.step) does first: refuse before
        the run is started and forget the last step's error."""
        if self.session is None:
            raise ExecError("start the run first")
        self.error = None
        self._inputs_checked = True        # a node runs: the inputs' moment has passed

    @staticmethod
    def _done_event():
        from .debug import StepEvent
        return StepEvent(None, reason="done")

    @staticmethod
    def _event(node, outputs, graph, iteration):
        from .debug import StepEvent
        return StepEvent(node, outputs, graph, iteration)

    def _settle(self, event):
        self._skip_quiet()
        if event.how == "into" and not self._walking:
            event.how = ""              # nothing in the body was a step: it ran as one
        return event

    def _walk_over(self, at: int):
        """Step over the nested body or call whose "enter" is at `at`."""
        e = self._trace[at]
        end = e.end + 1 if e.end >= 0 else len(self._trace)
        self._apply(e)
        event = self._walk_to(end, self._event(e.node, {}, e.graph, e.iteration))
        if event.reason != "breakpoint" and e.end >= 0:
            event.outputs = self._trace[e.end].outputs
            event.nonfinite = list(self.nonfinite.get(e.node, []))
        self._skip_inputs()
        return event

    def _walk_to(self, end: int, event):
        """Walk the recording up to index `end` (not included), stopping
        before a step that is a breakpoint."""
        trace = self._trace
        while self._trace_pos < end:
            if self._cancelled:
                raise Cancelled("run cancelled")
            e = trace[self._trace_pos]
            if e.kind in ("node", "enter") and self._stops_before(e.node):
                event.reason = "breakpoint"
                return event
            self._apply(e)
        self._skip_inputs()
        return event

    def _holds_breakpoint(self, node: Optional[Node]) -> bool:
        """True when a breakpoint is inside the body of `node` (a main-graph
        node) or of the function it calls."""
        if node is None or not self.breakpoints:
            return False
        if is_control_flow(node):
            return self._wanted_inside(node, None)
        step = _step_of(self.session, node)
        if step is None or step.function is None:
            return False
        inside = {id(g) for g in step.function.graph.walk()}
        return any(isinstance(b, Node) and b.graph is not None and id(b.graph) in inside for b in self.breakpoints)

    def _passes(self, kind: str) -> bool:
        return (kind == "constant" and not self.step_on_constants) or (kind == "shape" and not self.step_on_shapes)

    def _skip_quiet(self) -> None:
        """Run the quiet nodes (see `quiet_kinds`) that are next, up to a
        node that is a step or a breakpoint."""
        if self.step_on_constants and self.step_on_shapes:
            return
        while True:
            if self._cancelled:
                raise Cancelled("run cancelled")
            self._skip_inputs()
            if self._walking:
                e = self._trace[self._trace_pos]
                if e.kind != "node" or not self._passes(e.quiet) or self._stops_before(e.node):
                    return
                self._apply(e)
                continue
            s = self.session
            if s.done:
                return
            kind = s.kinds(s.plan)[s.position][1]
            if not self._passes(kind) or self._stops_before(s.plan.steps[s.position].node):
                return
            self._step_main(False)


__all__ = ["Stepping", "quiet_kinds", "is_control_flow", "calls_function"]
