"""Ops whose result does not depend on the order of their inputs.

One list for matching (which pairs Add(bias, x) with Add(x, bias)) and for
classifying (which must not call that pair rewired): torch's legacy
exporter writes a bias Add one way round, its dynamo exporter the other."""
from __future__ import annotations

from ..ir import Node

# Ops of the default domain only: a custom domain's Add may mean anything.
COMMUTATIVE_OPS = frozenset({"Add", "Mul", "Sum", "Max", "Min", "Mean", "And", "Or", "Xor", "Equal",
                             "BitwiseAnd", "BitwiseOr", "BitwiseXor"})


def is_commutative(node: Node) -> bool:
    return (node.domain or "") in ("", "ai.onnx") and node.op_type in COMMUTATIVE_OPS
