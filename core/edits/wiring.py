"""Primitive edits of the graph's wiring: a node's inputs and outputs, adding
and removing nodes, and the order of the node list.

Refusals (a dangling name, a second producer, a cycle or an order that is no
longer topological, removing a node whose outputs are read) raise EditError
naming the place before anything changes. Inverses may hold the objects they
took out (`restore`), as the contract in base.py allows.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, ClassVar, Optional

from ..ir import IRError, Node, Value
from .base import Changes, Edit, EditError, Macro, register
from .graph_edit import GraphEdit
from .node_edits import SetNodeField, make_attr
from .refs import GraphPath, NodeRef, find_node, node_ref

# Field metadata for what an edit keeps only to undo itself (objects taken
# out): the edit script leaves such fields out.
NOT_IN_SCRIPT = {"json": False}


def visible_value(graph, name: str, place: str) -> Value:
    """The value `name` as seen from `graph` (outer scopes included)."""
    v = graph.lookup(name)
    if v is None:
        raise EditError(f"{place}: no value named {name!r} is visible in {graph.path}")
    return v


def check_before(graph, value: Value, node: Node, place: str) -> None:
    """Refuse reading `value` in `node` unless it is produced earlier."""
    p = value.producer
    if p is None or p.graph is not graph or node.graph is not graph:
        return
    if p is node:
        raise EditError(f"{place}: {node.display_name} cannot read its own output {value.name!r} (a cycle)")
    if p.index >= node.index:
        raise EditError(f"{place}: {value.name!r} is produced by {p.display_name}, which comes after "
                        f"{node.display_name}; the graph would no longer be in topological order")


def check_new_name(graph, name: str, place: str) -> None:
    if not isinstance(name, str) or not name:
        raise EditError(f"{place}: a value needs a non-empty name")
    if graph.value_name_in_use(name):
        raise EditError(f"{place}: the name {name!r} is already used in the model's graph; choose another name")


def check_output_names(graph, names, place: str, mine=()) -> None:
    """Refuse an output list naming a value twice, or a new name (one not in
    `mine`, the node's current outputs) that is already used."""
    given = [n for n in names if n]
    if len(set(given)) != len(given):
        raise EditError(f"{place}: an output name appears twice in {list(names)}")
    for i, n in enumerate(names):
        if n and n not in mine:
            check_new_name(graph, n, f"{place}/output[{i}]")


def ir(call, *args, place: str = "", **kw):
    """Run an IR mutator, turning its refusal into an EditError."""
    try:
        return call(*args, **kw)
    except EditError:
        raise
    except IRError as e:
        raise EditError(f"{place}: {e}" if place else str(e)) from None


def name_list(names, place: str, what: str = "names") -> list:
    """`names` as a list of value names; a lone string is refused (it would
    be read letter by letter: inputs "xy" as the values x and y)."""
    if isinstance(names, (str, bytes)) or not isinstance(names, (list, tuple)):
        raise EditError(f"{place}: {what} are a list of value names, not {names!r}")
    return list(names)


def _names(values) -> list:
    return [v.name if v is not None else "" for v in values]


@register
@dataclass
class SetNodeInput(GraphEdit):
    """Make input `index` of a node read the value `value` ("" leaves an optional input empty)."""
    kind: ClassVar[str] = "set_node_input"
    node: NodeRef
    index: int
    value: str
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)
    # The node's op, noted when applied, so the step's name says what it is
    op_type: str = field(default="", repr=False, compare=False, metadata=NOT_IN_SCRIPT)

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        self.op_type = node.op_type
        place = f"{node.path}/input[{self.index}]"
        if not isinstance(self.index, int) or not 0 <= self.index < len(node.inputs):
            raise EditError(f"{node.path}: no input {self.index} (it has {len(node.inputs)}); "
                            "add trailing inputs with SetNodeInputs")
        if self.restore is not None:
            new = self.restore[0]
        elif self.value:
            new = visible_value(g, self.value, place)
        else:
            new = None
        if new is not None:
            check_before(g, new, node, place)
        old = node.inputs[self.index]
        ir(node.replace_input, self.index, new, place=place)
        changes.node(node)
        return SetNodeInput(node_ref(node), self.index, old.name if old is not None else "", self.graph,
                            restore=(old,), op_type=node.op_type)

    def as_script_edit(self) -> Optional[Edit]:
        return replace(self, restore=None)      # the name is in the fields already

    def describe(self) -> str:
        """'Connect input 0 of Add "/m/add" to 'input_ids'' (the op once applied)."""
        ref = self.node
        named = f'"{ref}"' if isinstance(ref, str) else ", ".join(f"{k} {v!r}" for k, v in ref.items())
        node = f"{self.op_type or 'node'} {named}"
        return f"Connect input {self.index} of {node} to {self.value!r}" if self.value \
            else f"Clear input {self.index} of {node}"


@dataclass
class _NodeValueList(GraphEdit):
    """The fields of SetNodeInputs and SetNodeOutputs: a node, the names of
    its new list and, on inverses, the values to put back."""
    node: NodeRef
    names: list
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)


@register
@dataclass
class SetNodeInputs(_NodeValueList):
    """Set a node's whole input list (names, "" for an empty optional one):
    how trailing optional inputs are added or removed."""
    kind: ClassVar[str] = "set_node_inputs"

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        if self.restore is not None:
            new = list(self.restore)
        else:
            names = name_list(self.names, node.path, "inputs")
            new = [visible_value(g, n, f"{node.path}/input[{i}]") if n else None for i, n in enumerate(names)]
        for i, v in enumerate(new):
            if v is not None:
                check_before(g, v, node, f"{node.path}/input[{i}]")
        old = list(node.inputs)
        node.set_inputs(new)
        changes.node(node)
        return SetNodeInputs(node_ref(node), _names(old), self.graph, restore=old)

    def as_script_edit(self) -> Optional[Edit]:
        return replace(self, restore=None)      # the names are in the fields already

    def describe(self) -> str:
        return "Set node inputs"


@register
@dataclass
class SetNodeOutputs(_NodeValueList):
    """Set a node's output list (names, "" for an unused optional one). An
    output dropped must be unused; a new name must be free."""
    kind: ClassVar[str] = "set_node_outputs"

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        old = list(node.outputs)
        if self.restore is not None:
            new = list(self.restore)
        else:
            mine = {v.name: v for v in old if v is not None}
            names = name_list(self.names, node.path, "outputs")
            check_output_names(g, names, node.path, mine)
            new = [(mine[n] if n in mine else Value(n)) if n else None for n in names]
        ir(g.set_node_outputs, node, new, place=node.path)
        changes.node(node)
        return SetNodeOutputs(node_ref(node), _names(old), self.graph, restore=old)

    def describe(self) -> str:
        return "Set node outputs"


@register
@dataclass
class AddNode(GraphEdit):
    """Add a node reading the values `inputs` and producing new values `outputs`.

    `attributes` maps a name to (AttrType, value). `index` is the position in
    the node list; None puts the node right after the last producer of its
    inputs (the first place where it is topologically valid)."""
    kind: ClassVar[str] = "add_node"
    op_type: str
    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    attributes: dict = field(default_factory=dict)
    name: str = ""
    domain: str = ""
    index: Optional[int] = None
    graph: GraphPath = ()
    restore: Any = field(default=None, repr=False, compare=False, metadata=NOT_IN_SCRIPT)

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        if self.restore is not None:
            node, pos = self.restore
            ir(g.insert_at, pos, node, place=g.path)
        else:
            node = self._build(g)
            pos = self._position(g, node)
            try:
                g.insert_at(pos, node)
            except IRError as e:
                node.detach_inputs()
                raise EditError(f"{g.path}: cannot add {node.display_name}: {e}") from None
        changes.nodes_added.add(node)
        changes.graph(g)
        return RemoveNode(node_ref(node), self.graph)

    def _build(self, g) -> Node:
        what = f'{g.path}/new {self.op_type} "{self.name}"' if self.name else f"{g.path}/new {self.op_type}"
        if not isinstance(self.op_type, str) or not self.op_type:
            raise EditError(f"{g.path}: a node needs an op_type")
        inputs, outputs = name_list(self.inputs, what, "inputs"), name_list(self.outputs, what, "outputs")
        ins = [visible_value(g, n, f"{what}/input[{i}]") if n else None for i, n in enumerate(inputs)]
        check_output_names(g, outputs, what)
        outs = [Value(n) if n else None for n in outputs]
        shell = Node(self.op_type, (), (), name=self.name, domain=self.domain)
        attrs = {}
        if not isinstance(self.attributes or {}, dict):
            raise EditError(f"{what}: attributes are a mapping of name to (type, value), not {self.attributes!r}")
        for key, spec in (self.attributes or {}).items():
            if not isinstance(spec, (list, tuple)) or len(spec) not in (2, 3):
                raise EditError(f'{what}/attribute "{key}": give it as (type, value), e.g. (AttrType.FLOAT, 0.5); '
                                f"not {spec!r}")
            t, value = spec[0], spec[1]
            ref = spec[2] if len(spec) > 2 else ""
            attrs[key] = make_attr(shell, key, t, value, ref)
        return Node(self.op_type, ins, outs, attrs, name=self.name, domain=self.domain)

    def _position(self, g, node) -> int:
        if self.index is not None:
            if not isinstance(self.index, int) or not 0 <= self.index <= len(g.nodes):
                node.detach_inputs()
                raise EditError(f"{g.path}: position {self.index} is outside the node list "
                                f"(0..{len(g.nodes)})")
            return self.index
        pos = 0
        for v in node.inputs:
            if v is not None and v.producer is not None and v.producer.graph is g:
                pos = max(pos, v.producer.index + 1)
        return pos

    def describe(self) -> str:
        return f"Add {self.op_type}" + (f' "{self.name}"' if self.name else "")

    def as_script_edit(self) -> Optional[Edit]:
        """A removed node put back from its fields: this add_node at its old
        position, then its doc string and overload. None when the node holds
        what no edit writes (metadata_props, device configurations)."""
        if self.restore is None:
            return self
        node, pos = self.restore
        if node.metadata_props or node.device_configurations:
            return None
        attributes = {a.name: (int(a.type), a.value, a.ref_attr_name) if a.ref_attr_name else (int(a.type), a.value)
                      for a in node.attributes.values()}
        edits = [AddNode(node.op_type, _names(node.inputs), _names(node.outputs), attributes, node.name,
                         node.domain, pos, self.graph)]
        edits += [SetNodeField({"index": pos}, name, getattr(node, name), self.graph)
                  for name in ("overload", "doc_string") if getattr(node, name)]
        return edits[0] if len(edits) == 1 else Macro(edits, self.describe())


@register
@dataclass
class RemoveNode(GraphEdit):
    """Remove a node; refused while any of its outputs is read (the readers are named)."""
    kind: ClassVar[str] = "remove_node"
    node: NodeRef
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        node = find_node(g, self.node)
        pos = node.index
        spec = _spec(node)
        ir(g.remove, node)
        changes.nodes_removed.add(node)
        changes.graph(g)
        return AddNode(node.op_type, spec[0], spec[1], {}, node.name, node.domain, pos, self.graph,
                       restore=(node, pos))

    def describe(self) -> str:
        return f"Remove node {self.node if isinstance(self.node, str) else self.node}"


def _spec(node):
    return _names(node.inputs), _names(node.outputs)


@register
@dataclass
class SetNodeOrder(GraphEdit):
    """Reorder the node list: `order[i]` is the current position of the node
    that goes to position i. The result must be in topological order."""
    kind: ClassVar[str] = "set_node_order"
    order: list
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        order = list(self.order)
        if sorted(order) != list(range(len(g.nodes))):
            raise EditError(f"{g.path}: the new order must list each of the {len(g.nodes)} nodes once")
        nodes = list(g.nodes)
        seen = set()
        for i in order:
            n = nodes[i]
            for v in n.inputs:
                p = v.producer if v is not None else None
                if p is not None and p.graph is g and id(p) not in seen:
                    raise EditError(f"{g.path}: in the new order {n.display_name} would read {v.name!r} "
                                    f"before {p.display_name} produces it")
            seen.add(id(n))
        return _Reorder(_reorder(g, order, changes), self.graph)

    def describe(self) -> str:
        return "Reorder nodes"


@dataclass
class _Reorder(GraphEdit):
    """Inverse of SetNodeOrder: puts back the order the graph had (which may
    not have been topological in a file loaded as it was)."""
    kind: ClassVar[str] = "reorder_back"
    order: list
    graph: GraphPath = ()

    def edit_graph(self, model, g, changes: Changes) -> Edit:
        return SetNodeOrder(_reorder(g, list(self.order), changes), self.graph)


def _reorder(g, order: list, changes: Changes) -> list:
    """Reorder `g`'s nodes (no checks); the order that puts them back."""
    nodes = list(g.nodes)
    g.reorder(order)
    for n in nodes:
        changes.node(n)
    inverse = [0] * len(order)
    for new_pos, old_pos in enumerate(order):
        inverse[old_pos] = new_pos
    return inverse
