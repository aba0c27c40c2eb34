"""Kernel registry: one small function per operator version.

A kernel is registered for (domain, op_type, since_version):

    @kernel("Add", since=14)
    def add(a, b):
        return a + b

Conventions every kernel follows (the session relies on them):

- Inputs arrive positionally, in the operator's input order. An omitted
  optional input (empty name in the node) arrives as `None`; trailing omitted
  ones may be dropped, so give optional parameters a default of `None`.
  A variadic input is taken as `*args`.
- Attributes arrive as keyword arguments, decoded: int, float, str, list of
  those, numpy arrays for tensors (sparse ones densified), `ir.Graph` for
  subgraphs, `ir.types` objects for TYPE_PROTO. Absent attributes are not
  passed, so the Python default of the parameter is the schema default.
  Kernels accept `**_` only when the operator really ignores attributes.
- Tensors are numpy arrays; string tensors are object arrays of `str`.
  Sequences are Python lists; an empty optional is `None`; a map is a dict.
- The return value is one output, or a tuple for several outputs (a kernel may
  return fewer than the node has when trailing optional outputs are unused).
- Kernels registered with `context=True` get a `KernelContext` as their first
  argument (opset version, number of outputs, seeded RNG, subgraph runner).
- A kernel never mutates its inputs: they may be read-only views of weights.
- A kernel may come with `prepare(consts, attrs)`, which the session calls
  once per node (on the first run, for nodes not folded as constant):
  `consts` has the value of each positional input known to be constant
  (initializers, outputs of constant-only nodes), or VARIES. It returns a
  function of the same positional inputs (the attributes are its to keep)
  doing the kernel's work with attributes and constants decoded once, or None
  to keep the general kernel. Context kernels are not prepared.

Registering the same (domain, op_type, since_version) twice is an error, so two
modules can never silently disagree about an operator.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

from ..opsets import DuplicateEntryError, VersionedTable, canonical_domain

KernelFn = Callable[..., Any]


@dataclass(frozen=True)
class Kernel:
    domain: str
    op_type: str
    since: int
    fn: KernelFn
    context: bool = False
    prepare: Optional[Callable[[tuple, dict], Optional[KernelFn]]] = None


class _Varies:
    """Marks an input whose value is not known before the run (see prepare)."""
    __slots__ = ()

    def __repr__(self) -> str:
        return "VARIES"


VARIES = _Varies()


class KernelContext:
    """What a context kernel may ask of the session running it.

    opset: imported version of the node's domain; num_outputs: outputs the
    node declares (incl. empty names); rng: numpy Generator seeded per run
    (pass a Generator, or a callable returning the current one);
    node: the ir.Node being run; run_subgraph(graph, inputs) -> outputs, with
    the calling graph's values visible inside; runner(graph) -> a function of
    inputs doing the same, for bodies run many times; output_types[i]: the
    inferred/declared ir type of output i, or None.
    """
    __slots__ = ("opset", "num_outputs", "_rng", "node", "run_subgraph", "output_types", "body_runner")

    def __init__(self, opset: int, num_outputs: int, rng: Any = None, node: Any = None,
                 run_subgraph: Optional[Callable[[Any, list], list]] = None,
                 output_types: Optional[list] = None):
        self.opset = opset
        self.num_outputs = num_outputs
        self._rng = rng
        self.node = node
        self.run_subgraph = run_subgraph
        self.output_types = output_types if output_types is not None else []
        self.body_runner: Optional[Callable[[Any], Callable[[list], list]]] = None

    def runner(self, graph) -> Callable[[list], list]:
        """A function running `graph` once per call (a loop's iterations):
        like run_subgraph, with the per-body set-up done once."""
        if self.body_runner is not None:
            return self.body_runner(graph)
        return lambda inputs: self.run_subgraph(graph, inputs)

    @property
    def rng(self):
        # A callable is asked every time (not replaced by its result): a
        # session reuses one context per step across runs, and each run
        # starts a freshly seeded generator.
        return self._rng() if callable(self._rng) else self._rng


_KERNELS: VersionedTable[Kernel] = VersionedTable("kernel")


def kernel(op_type: str, since: int, domain: str = "", *, context: bool = False, prepare=None):
    """Decorator registering `fn` for `op_type` from opset `since` on."""
    domain = canonical_domain(domain)

    def register(fn: KernelFn) -> KernelFn:
        try:
            _KERNELS.add(domain, op_type, since, Kernel(domain, op_type, since, fn, context, prepare))
        except DuplicateEntryError as e:
            raise DuplicateEntryError(f"{e} (second: {fn.__module__}.{fn.__qualname__})") from None
        return fn

    return register


def find_kernel(domain: str, op_type: str, opset: int) -> Optional[Kernel]:
    """The kernel with the highest since_version <= opset, or None."""
    return _KERNELS.find(domain, op_type, opset)


def registered() -> list[Kernel]:
    return list(_KERNELS)
