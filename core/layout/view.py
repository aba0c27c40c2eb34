"""What the viewer shows of one ONNX graph: boxes with labels, and arrows.

`from_graph.build_view()` fills these from an `ir.Graph`; the viewer measures
each `NodeLabel` with its own fonts (the `measure` callback), draws the same
label inside the box the layout returns, and uses the `ViewNode`/`ViewEdge`
back references to find the IR objects behind a click.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from .geometry import GroupPath, LayoutRequest

# Kinds of boxes.
OP = "op"            # one IR node (a call of a model-local function is one too)
INPUT = "input"      # a graph input (not an initializer)
OUTPUT = "output"    # a graph output
GROUP = "group"      # a collapsed name-scope group
# Not a box: the title of an open group's frame, measured so the frame is
# laid out at least as wide as it (lines: the group's node count).
GROUP_TITLE = "group_title"


@dataclass(frozen=True)
class NodeLabel:
    """The text drawn in a box; the caller's measure(label) -> (w, h) sizes it."""
    kind: str                       # OP, INPUT, OUTPUT or GROUP
    title: str                      # op type, value name, or group name
    lines: tuple[str, ...] = ()     # key attributes "axis = 1", folded constants
                                    # "B ⟨768⟩ float32", group op counts "MatMul ×4"


Measure = Callable[[NodeLabel], "tuple[float, float]"]


@dataclass
class ViewNode:
    id: str
    label: NodeLabel
    node: Any = None                 # ir.Node for OP boxes
    value: Any = None                # ir.Value for INPUT / OUTPUT boxes
    group: GroupPath | None = None   # for GROUP boxes: the collapsed group
    folded: tuple = ()               # ir.Values (initializers, Constant outputs) drawn inside
    function_key: tuple | None = None   # (domain, name, overload) when the op calls a model function

    @property
    def kind(self) -> str:
        return self.label.kind


@dataclass
class ViewEdge:
    id: str
    source: str
    target: str
    value: Any                       # the ir.Value carried (draw its shape/dtype on the edge)


@dataclass
class GroupInfo:
    path: GroupPath
    expanded: bool
    node_count: int                  # IR nodes inside, at any depth
    op_counts: dict[str, int]        # op_type -> count, at any depth


@dataclass
class GraphView:
    graph: Any                                   # the ir.Graph shown
    request: LayoutRequest                       # feed this to layout()
    nodes: dict[str, ViewNode]
    edges: dict[str, ViewEdge]
    groups: dict[GroupPath, GroupInfo]           # every group, expanded or not
    box_of_node: dict[int, str] = field(default_factory=dict)   # id(ir.Node) -> box id showing it
    path_of_node: dict[int, GroupPath] = field(default_factory=dict)   # id(ir.Node) -> its group path
    expanded: set = field(default_factory=set)   # the group paths asked open (after following an edit)

    def box_for(self, ir_node) -> str | None:
        """Id of the box that shows `ir_node` (its own box or its collapsed group's)."""
        return self.box_of_node.get(id(ir_node))
