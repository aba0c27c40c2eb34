"""Two profiles side by side (before and after an edit, ours and
onnxruntime's): the change per node and per op type.

    diff = compare_profiles(before, after)
    diff.nodes        # NodeDelta, largest change first
    diff.op_types     # OpDelta, largest change first

Nodes are matched by their profile key (the node's name, or its place and
op when it has none): a node only one side has shows with 0 on the other.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .profile import Profile


@dataclass
class NodeDelta:
    name: str
    op_type: str
    before: float             # seconds per run; 0 when that side has no such node
    after: float
    node: object = None       # the graph node, from whichever side has one

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass
class OpDelta:
    op_type: str
    before: float
    after: float

    @property
    def delta(self) -> float:
        return self.after - self.before


@dataclass
class ProfileDiff:
    before: Profile
    after: Profile
    nodes: list[NodeDelta] = field(default_factory=list)
    op_types: list[OpDelta] = field(default_factory=list)
    only_before: list[str] = field(default_factory=list)    # node keys the after side lacks
    only_after: list[str] = field(default_factory=list)

    @property
    def wall_delta(self) -> float:
        return self.after.wall - self.before.wall

    def to_dict(self) -> dict:
        return {
            "before": {"source": self.before.source, "wall_seconds": self.before.wall},
            "after": {"source": self.after.source, "wall_seconds": self.after.wall},
            "nodes": [{"name": d.name, "op_type": d.op_type, "before": d.before, "after": d.after,
                       "delta": d.delta} for d in self.nodes],
            "op_types": [{"op_type": d.op_type, "before": d.before, "after": d.after, "delta": d.delta}
                         for d in self.op_types],
            "only_before": list(self.only_before), "only_after": list(self.only_after),
        }


def compare_profiles(before: Profile, after: Profile) -> ProfileDiff:
    old = {n.name: n for n in before.nodes}
    new = {n.name: n for n in after.nodes}
    nodes = []
    for key in dict.fromkeys([*old, *new]):
        a, b = old.get(key), new.get(key)
        some = b if b is not None else a
        nodes.append(NodeDelta(key, some.op_type, a.seconds if a else 0.0, b.seconds if b else 0.0,
                               (b.node if b is not None and b.node is not None else getattr(a, "node", None))))
    nodes.sort(key=lambda d: -abs(d.delta))
    ops: dict = {}
    for side, profile in ((0, before), (1, after)):
        for t in profile.by_op():
            pair = ops.setdefault(t.op_type, [0.0, 0.0])
            pair[side] = t.seconds
    op_types = sorted((OpDelta(op, a, b) for op, (a, b) in ops.items()), key=lambda d: -abs(d.delta))
    return ProfileDiff(before, after, nodes, op_types,
                       [k for k in old if k not in new], [k for k in new if k not in old])


__all__ = ["NodeDelta", "OpDelta", "ProfileDiff", "compare_profiles"]
