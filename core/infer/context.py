"""What a per-operator inference rule sees, and how rules are registered.

A rule is a plain function `rule(ctx) -> list[Type | None]` returning one type
per output (a shorter list leaves the rest unknown). It reads:

- `ctx.types[i]`: the type of input i (None when omitted or unknown),
- `ctx.attrs`: attributes as decoded Python values (absent ones are missing:
  rules pass the operator's default to `ctx.attr(name, default)`),
- `ctx.const(i)`: the numpy value of input i when it is a known constant,
- `ctx.sym(i)`: the entries of a 1-D/0-D integer input as dims when they are
  known partly symbolically (e.g. `(batch, seq, 128)` from a Shape chain).

A rule may also publish `ctx.out_syms[i]` (a tuple of dims) so shape tensors it
computes keep their symbolic entries downstream. Rules never raise on purpose
for bad models; the driver turns any exception into an info diagnostic.

A rule that meets a contradiction the operator's spec rejects for sure (two
known dims that cannot broadcast, an axis outside the rank) says so with
`ctx.error(code, message)` (codes: `core.diagnostics.CODES`; helpers in
findings.py) and still returns its best types. The engine keeps these per
node (`Inference.errors`), and the checker reports them as errors. Symbols and
unknown dims never contradict anything: only known numbers do.
"""
from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..ir.types import TensorType
from ..opsets import VersionedTable

MAX_SYM_ENTRIES = 64
RuleFn = Callable[["NodeContext"], list]

# (domain, op_type) -> sorted list of (since_version, rule)
_RULES: VersionedTable[RuleFn] = VersionedTable("inference rule")


def rule(*op_types: str, since: int = 1, domain: str = ""):
    """Register `fn` as the rule for op_types from opset `since` on."""
    def register(fn: RuleFn) -> RuleFn:
        for op in op_types:
            _RULES.add(domain, op, since, fn)
        return fn
    return register


def find_rule(domain: str, op_type: str, opset: int) -> Optional[RuleFn]:
    return _RULES.find(domain, op_type, opset)


def registered_ops() -> set[tuple[str, str]]:
    return _RULES.keys()


class NodeContext:
    """Inputs, attributes and known values of one node, for its rule."""

    __slots__ = ("op_type", "domain", "opset", "attrs", "types", "num_outputs", "inputs",
                 "_consts", "_syms", "out_syms", "out_consts", "node", "driver", "errors")

    def __init__(self, op_type, domain, opset, attrs, types, num_outputs,
                 consts=None, syms=None, node=None, driver=None, inputs=None):
        self.op_type = op_type
        self.domain = domain
        self.opset = opset
        self.attrs = attrs
        self.types = types
        self.num_outputs = num_outputs
        self.inputs = inputs          # the node's input Values (None = omitted)
        self._consts = consts or {}
        self._syms = syms or {}
        self.out_syms: dict[int, tuple] = {}
        self.out_consts: dict[int, np.ndarray] = {}
        self.node = node
        self.driver = driver          # for subgraph inference (If/Loop/Scan, functions)
        self.errors = None            # [(code, message)] once a rule reports one

    # --- inputs ---------------------------------------------------------------
    @property
    def num_inputs(self) -> int:
        return len(self.types)

    def has_input(self, i: int) -> bool:
        """False for an omitted optional input (empty name) or past the end."""
        inputs = self.inputs
        if inputs is None:
            return i < len(self.types) and self.types[i] is not None
        return i < len(inputs) and inputs[i] is not None

    def type(self, i: int):
        return self.types[i] if i < len(self.types) else None

    def elem(self, i: int) -> int:
        t = self.types[i] if i < len(self.types) else None
        return getattr(t, "elem_type", 0) if isinstance(t, TensorType) else 0

    def shape(self, i: int):
        t = self.types[i] if i < len(self.types) else None
        return t.shape if isinstance(t, TensorType) else None

    def rank(self, i: int):
        s = self.shape(i)
        return None if s is None else len(s)

    def const(self, i: int) -> Optional[np.ndarray]:
        return self._consts.get(i)

    @property
    def knows_values(self) -> bool:
        """True when any input's data or dims are known (a constant or a
        symbolic shape), i.e. `const` or `sym` may answer."""
        return bool(self._syms or self._consts)

    def sym(self, i: int) -> Optional[tuple]:
        """Entries of a small integer input as dims (ints, symbols or None)."""
        s = self._syms.get(i)
        if s is not None:
            return s
        c = self._consts.get(i)
        # Shape tensors are short; longer integer constants are data, not dims.
        if c is not None and c.ndim <= 1 and c.size <= MAX_SYM_ENTRIES and c.dtype.kind in "iub":
            return tuple(c.reshape(-1).tolist())
        return None

    def ints(self, i: int) -> Optional[list]:
        """A constant integer input as a Python list (None if not constant)."""
        c = self._consts.get(i)
        if c is None:
            return None
        return np.asarray(c).reshape(-1).tolist()

    # --- findings -------------------------------------------------------------------
    def error(self, code: str, message: str) -> None:
        """Report a contradiction of this node (see the module doc)."""
        if self.errors is None:
            self.errors = []
        self.errors.append((code, message))

    def warn(self, code: str, message: str) -> None:
        """Report what the node's numbers imply that the model's own types do
        not say (a WARNING code: a symbolic dim they allow one size of). Kept
        with the contradictions; the checker gives each its code's severity."""
        self.error(code, message)

    # --- attributes -------------------------------------------------------------
    def attr(self, name: str, default=None):
        return self.attrs.get(name, default)

    def attr_or_input(self, name: str, index: int):
        """A list that moved from an attribute to an input in a later opset."""
        if name in self.attrs:
            v = self.attrs[name]
            return list(v) if isinstance(v, (list, tuple)) else v
        if index < len(self.types):
            return self.ints(index)
        return None


def tensor(elem: int, shape) -> TensorType:
    return TensorType(elem, None if shape is None else tuple(shape))
