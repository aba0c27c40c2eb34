"""Compiling a graph (or a set of its nodes) into a list of steps.

A step knows its kernel (or model-local function), the decoded attributes,
the names it reads and writes, and which values die after it, so a run keeps
memory to what is still needed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter
from typing import Iterable, Optional

from ..errors import CoreError
from ..ir import AttrType, Graph, Model, Node
from ..ir.nesting import node_reads, top_level_node
from ..ir.tensor import NAMELESS
from ..opsets import canonical_domain
from .errors import ExecError
from .pause_points import pause_point
from .registry import Kernel, find_kernel
from .values import normalize


@dataclass
class Step:
    node: Node
    kernel: Optional[Kernel]
    function: object = None           # ir.Function for model-local function calls
    attrs: dict = field(default_factory=dict)
    inputs: list = field(default_factory=list)    # names ("" for omitted)
    outputs: list = field(default_factory=list)   # names ("" for omitted)
    frees: list = field(default_factory=list)     # names to drop after the step
    opset: int = 0
    body_cache: dict = field(default_factory=dict)
    args: tuple = ()      # input names without trailing omitted ones
    # How the hot loop reads the arguments: `single` names the only one, or
    # `fetch(values)` gives several as a tuple in one C call; with neither
    # (no inputs, or an omitted one between others) it reads them one by one.
    single: str = ""
    fetch: object = None
    context: object = None      # the session's KernelContext for this step, made on first run
    call: object = None         # the kernel specialised to this node's constant inputs, if any
    memo: bool = False          # shape arithmetic: results remembered by input value (fast_steps)

    def __post_init__(self) -> None:
        self.finish()

    def finish(self) -> None:
        names = list(self.inputs)
        while names and not names[-1]:
            names.pop()
        self.args = tuple(names)
        self.single = names[0] if len(names) == 1 else ""
        self.fetch = itemgetter(*names) if len(names) > 1 and all(names) else None


def decode_attr_value(value, attr_type: int):
    """Attribute value as a kernel receives it (see registry docstring)."""
    if attr_type in (AttrType.TENSOR, AttrType.SPARSE_TENSOR):
        return normalize(value)
    if attr_type in (AttrType.TENSORS, AttrType.SPARSE_TENSORS):
        return [normalize(v) for v in value]
    return value


def node_attrs(node: Node, caller_attrs: Optional[dict] = None, defaults: Optional[dict] = None) -> dict:
    """Decoded attributes of `node`; `ref_attr_name` ones resolve against the
    calling node's attributes (inside a function body), else its defaults."""
    out = {}
    for name, a in node.attributes.items():
        if a.ref_attr_name:
            if caller_attrs is not None and a.ref_attr_name in caller_attrs:
                out[name] = caller_attrs[a.ref_attr_name]
            elif defaults is not None and a.ref_attr_name in defaults:
                out[name] = defaults[a.ref_attr_name]
            continue
        try:
            out[name] = decode_attr_value(a.value, a.type)
        except CoreError as e:
            text = str(e)
            if not text.startswith(NAMELESS):
                raise
            # The tensor has no name to give: the place is this attribute.
            raise type(e)(f'{node.path}/attribute "{name}"{text[len(NAMELESS):]}') from None
    return out


# The domains of the ONNX standard (schemas.KNOWN_DOMAINS; not imported from
# there, which would load the signature table with the executor).
_STANDARD_DOMAINS = frozenset({"", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training"})


# Operators whose result is not a function of their inputs alone.
NONDETERMINISTIC = frozenset({"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike",
                              "Bernoulli", "Multinomial", "Dropout"})


class Plan:
    """The steps that compute `outputs` of `graph` from its inputs.

    Steps that depend only on constants (Constant nodes, arithmetic on
    initializers, and in a subgraph body also the enclosing graphs' constants
    named in `outer_consts`) are `foldable`: a session computes them on its
    first run and reuses the values afterwards (`folded`); stepping still runs
    every node. `consts` is every name whose value is the same on every run,
    for the plans of bodies nested in this graph.
    """

    def __init__(self, graph: Graph, model: Optional[Model], opsets: dict[str, int],
                 nodes: Optional[Iterable[Node]] = None, outputs: Optional[list[str]] = None,
                 keep: bool = False, caller_attrs: Optional[dict] = None,
                 attr_defaults: Optional[dict] = None, outer_consts: frozenset = frozenset()):
        self.graph = graph
        self.model = model
        self.opsets = opsets
        selected = list(graph.nodes) if nodes is None else _in_order(graph, nodes)
        chosen = set(map(id, selected))
        self.outputs = list(outputs) if outputs else self._default_outputs(selected, chosen, nodes is None)
        if outputs:
            selected = _needed(selected, set(outputs))
            chosen = set(map(id, selected))
        self.inputs = self._boundary_inputs(selected, chosen, nodes is None and not outputs)
        self.steps = []
        for n in selected:
            self.steps.append(self._compile(n, caller_attrs, attr_defaults))
            pause_point()
        local = {v.name for v in graph.inputs} | set(graph.initializers) | set(graph.sparse_initializers)
        local.update(name for st in self.steps for name in st.outputs if name)
        self.foldable = self._find_foldable(outer_consts - local)
        self.live_steps = [st for st, f in zip(self.steps, self.foldable) if not f]
        # Names of enclosing graphs that this body reads (its nested bodies
        # included): a body run copies them into its own frame once, so every
        # step reads its arguments from one dict. After the first run only
        # the live steps' ones are needed.
        self.outer_names = _outer_reads(self.steps, local)
        self.live_outer_names = _outer_reads(self.live_steps, local)
        # Folded values worth putting into a run's frame: those live steps
        # (or their bodies) read, and requested outputs; with keep, all.
        self.live_reads = {v.name for st in self.live_steps for v in node_reads(st.node)} | set(self.outputs)
        if keep:
            self.live_reads.update(name for st in self.steps for name in st.outputs if name)
        self.folded: Optional[dict] = None
        self.runners: list = []     # the live steps as closures, made by the session after the first run
        self.runner_nodes: list = []    # for each runner, the nodes it computes (several when merged)
        self.keep = keep
        if not keep:
            self._plan_frees()

    # -- boundary ----------------------------------------------------------------

    def _default_outputs(self, selected, chosen, whole: bool) -> list[str]:
        if whole:
            return [v.name for v in self.graph.outputs if v is not None and v.name]
        outs = []
        graph_outs = {id(v) for v in self.graph.outputs}
        for n in selected:
            for v in n.outputs:
                if v is None or not v.name:
                    continue
                # A use in a function body or a detached node has no top-level
                # node (None), which is never chosen: it counts as outside.
                used_outside = any(id(top_level_node(u, self.graph)) not in chosen for u, _ in v.iter_uses())
                if used_outside or id(v) in graph_outs or not v.has_uses:
                    outs.append(v.name)
        return outs

    def _boundary_inputs(self, selected, chosen, whole: bool) -> list[str]:
        if whole:
            return [v.name for v in self.graph.inputs]
        produced = {v.name for n in selected for v in n.outputs if v is not None}
        names: list[str] = []
        seen = set()
        for n in selected:
            for v in node_reads(n):
                if v.name in produced or v.name in seen or (v.const is not None and not v.is_graph_input):
                    continue
                seen.add(v.name)
                names.append(v.name)
        return names

    # -- compile -----------------------------------------------------------------

    def _compile(self, node: Node, caller_attrs, attr_defaults) -> Step:
        domain = canonical_domain(node.domain)
        opset = self.opsets.get(domain, 0)
        step = Step(node, None, opset=opset,
                    inputs=[v.name if v is not None else "" for v in node.inputs],
                    outputs=[v.name if v is not None else "" for v in node.outputs])
        step.finish()
        step.attrs = node_attrs(node, caller_attrs, attr_defaults)
        fn = self.model.function(node.domain, node.op_type, node.overload) if self.model else None
        if fn is not None:
            step.function = fn
            return step
        if domain not in self.opsets and domain == "":
            opset = self.opsets.get("", 1)
        step.kernel = find_kernel(domain, node.op_type, opset) if opset else None
        if step.kernel is None:
            where = f"{domain or 'ai.onnx'}::{node.op_type}"
            if not opset:
                raise ExecError(f"{node.path}: the model does not import the domain {domain!r} "
                                f"that {where} belongs to", node)
            outside = "" if domain in _STANDARD_DOMAINS else (
                f" ({domain} is not an ONNX standard domain: its operators belong to the tool that made "
                "the model" + (", here onnxruntime" if domain == "com.microsoft" else "") + ")")
            raise ExecError(f"{node.path}: the built-in executor has no kernel for {where} at opset {opset}"
                            + outside, node)
        return step

    def _find_foldable(self, outer_consts) -> list[bool]:
        const = {name for name, v in self.graph.initializers.items() if not v.is_graph_input}
        const.update(self.graph.sparse_initializers)
        const.update(outer_consts)
        out = []
        for st in self.steps:
            n = st.node
            ok = (st.function is None and n.op_type not in NONDETERMINISTIC and not n.subgraphs()
                  and all(not name or name in const for name in st.inputs))
            if ok:
                const.update(name for name in st.outputs if name)
            out.append(ok)
        self.consts = frozenset(const)
        return out

    def forget_frees(self, names: set) -> None:
        """Stop the live steps dropping `names` from a run's frame."""
        for st in self.live_steps:
            if st.frees:
                st.frees = [n for n in st.frees if n not in names]

    def _plan_frees(self) -> None:
        last: dict[str, int] = {}
        for i, s in enumerate(self.steps):
            for v in node_reads(s.node):
                last[v.name] = i
        keep = set(self.outputs)
        for name, i in last.items():
            if name not in keep:
                self.steps[i].frees.append(name)
        for i, s in enumerate(self.steps):   # outputs nobody reads die at once
            for name in s.outputs:
                if name and name not in last and name not in keep:
                    s.frees.append(name)


def _outer_reads(steps: list, local: set) -> list[str]:
    names: dict = {}
    for st in steps:
        for v in node_reads(st.node):
            if v.name and v.name not in local:
                names[v.name] = None
    return list(names)


def _in_order(graph: Graph, nodes: Iterable) -> list[Node]:
    wanted = set()
    by_name = None
    for n in nodes:
        if isinstance(n, str):
            if by_name is None:
                by_name = {x.name: x for x in graph.nodes if x.name}
            if n not in by_name:
                raise ExecError(f"no node named {n!r} in {graph.path}")
            n = by_name[n]
        if n.graph is not graph:
            raise ExecError(f"{n.display_name} is not a node of {graph.path}")
        wanted.add(id(n))
    return [n for n in graph.nodes if id(n) in wanted]


def _needed(selected: list[Node], outputs: set) -> list[Node]:
    """The nodes of `selected` that the requested outputs depend on."""
    need = set(outputs)
    keep = []
    for n in reversed(selected):
        if any(v is not None and v.name in need for v in n.outputs):
            keep.append(n)
            need.update(v.name for v in node_reads(n))
    return keep[::-1]


def nodes_between(graph: Graph, sources: list[str], targets: list[str]) -> list[Node]:
    """Nodes on a path from any value in `sources` to any value in `targets`."""
    forward = set(sources)
    reach = set()
    for n in graph.nodes:
        if any(v.name in forward for v in node_reads(n)):
            reach.add(id(n))
            forward.update(v.name for v in n.outputs if v is not None)
    backward = set(targets)
    out = []
    for n in reversed(list(graph.nodes)):
        if any(v is not None and v.name in backward for v in n.outputs):
            if id(n) in reach:
                out.append(n)
            backward.update(v.name for v in node_reads(n))
    return out[::-1]

