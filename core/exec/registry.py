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

Registering the same (domain, op_type, since_version) twice is an error, so two
modules can never silently disagree about an operator.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

KernelFn = Callable[..., Any]


@dataclass(frozen=True)
class Kernel:
    domain: str
    op_type: str
    since: int
    fn: KernelFn
    context: bool = False


@dataclass
class KernelContext:
    """What a context kernel may ask of the session running it."""
    opset: int                       # imported version of the node's domain
    num_outputs: int                 # outputs the node declares (incl. empty names)
    rng: Any                         # numpy Generator, seeded per session
    node: Any = None                 # the ir.Node being run (for error messages)
    # run_subgraph(graph, inputs: list) -> list of outputs; outer-scope names
    # of the calling graph are visible inside the subgraph.
    run_subgraph: Optional[Callable[[Any, list], list]] = None
    # output_types[i]: the inferred/declared ir type of output i or None.
    output_types: list = field(default_factory=list)


class DuplicateKernelError(RuntimeError):
    pass


_KERNELS: dict[tuple[str, str], list[Kernel]] = {}


def _norm_domain(domain: str) -> str:
    return "" if domain == "ai.onnx" else domain


def kernel(op_type: str, since: int, domain: str = "", *, context: bool = False):
    """Decorator registering `fn` for `op_type` from opset `since` on."""
    domain = _norm_domain(domain)

    def register(fn: KernelFn) -> KernelFn:
        versions = _KERNELS.setdefault((domain, op_type), [])
        if any(k.since == since for k in versions):
            raise DuplicateKernelError(
                f"kernel {domain or 'ai.onnx'}::{op_type} since {since} registered twice "
                f"(second: {fn.__module__}.{fn.__qualname__})")
        versions.append(Kernel(domain, op_type, since, fn, context))
        versions.sort(key=lambda k: k.since)
        return fn

    return register


def find_kernel(domain: str, op_type: str, opset: int) -> Optional[Kernel]:
    """The kernel with the highest since_version <= opset, or None."""
    versions = _KERNELS.get((_norm_domain(domain), op_type))
    if not versions:
        return None
    i = bisect.bisect_right([k.since for k in versions], opset)
    return versions[i - 1] if i else None


def registered() -> list[Kernel]:
    return [k for ks in _KERNELS.values() for k in ks]
