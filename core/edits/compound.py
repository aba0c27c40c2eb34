"""Compound edits: each function looks at the model and returns a `Macro` of
primitive edits (undone in one step, written to edit scripts as its
primitives). Nothing changes until the Macro is applied, normally through
`Document.apply`:

    doc.apply(insert_on_edge(doc.model, "x", "Relu"))
    doc.apply(set_input_shape(doc.model, "input_ids", [1, "seq"]))
"""
from __future__ import annotations

import heapq
from typing import Optional, Sequence

from ..ir import TensorType
from ..ir.nesting import subgraph_reads, top_level_node
from .base import Edit, EditError, Macro
from .model_edits import SetOpsetImport
from .refs import GraphPath, find_graph, find_node, graph_path, node_ref
from .values import (AddGraphInput, AddGraphOutput, AddInitializer, RemoveGraphInput, RemoveGraphOutput,
                     RemoveInitializer, RemoveValueInfo, RenameValue, SetValueType, norm_shape)
from .wiring import AddNode, RemoveNode, SetNodeInput, SetNodeOrder, visible_value


def stable_ref(node):
    """A reference that stays right while a macro adds nodes: an output name
    when the node has one (unique in SSA form), else its name or index."""
    for v in node.outputs:
        if v is not None and v.name:
            return {"output": v.name}
    return node_ref(node)


def _inside(graph, top) -> bool:
    """True when `graph` is `top` or nested in it."""
    g = graph
    while g is not None:
        if g is top:
            return True
        g = g.parent_graph
    return False


def _uses_in(value, top, consumers=None):
    """(node, input index) reading `value` inside graph `top` (and its bodies),
    restricted to the nodes of `top` listed in `consumers`."""
    wanted = None if consumers is None else {id(n) for n in consumers}
    out = []
    for n, i in value.uses:
        if n.graph is None or not _inside(n.graph, top):
            continue
        if wanted is not None and id(top_level_node(n, top)) not in wanted:
            continue
        out.append((n, i))
    return out


def _rewire(uses, name: str) -> list:
    return [SetNodeInput(stable_ref(n), i, name, graph_path(n.graph)) for n, i in uses]


# -- node-level compounds ---------------------------------------------------------------

def insert_on_edge(model, value: str, op_type: str, *, consumers: Optional[Sequence] = None,
                   attributes: Optional[dict] = None, graph: GraphPath = (), name: str = "",
                   domain: str = "", output: str = "") -> Macro:
    """Insert a one-input node on the edge leaving `value`: the new node reads
    `value` and its readers (all, or the nodes `consumers` names) read the
    new node's output instead. Graph outputs keep their name and value."""
    g = find_graph(model, graph)
    v = visible_value(g, value, f"{g.path}/value {value!r}")
    targets = None if consumers is None else [find_node(g, c) for c in consumers]
    uses = _uses_in(v, g, targets)
    out = output or g.unique_name(f"{value}_{op_type}")
    node_name = name or g.unique_name(f"{op_type}_{value}")
    # index None: right after `value`'s producer, wherever it is when the
    # edit is replayed on a re-exported model.
    edits: list[Edit] = [AddNode(op_type, [value], [out], dict(attributes or {}), node_name, domain, None, graph)]
    edits += _rewire(uses, out)
    return Macro(edits, f"Insert {op_type} after {value}")


def bypass_node(model, node, graph: GraphPath = ()) -> Macro:
    """Delete a node and let the readers of its first output read its first
    input instead. When that output is a graph output, the input takes its
    place in the output list (with the output's declared type)."""
    g = find_graph(model, graph)
    n = find_node(g, node)
    src = next((v for v in n.inputs if v is not None), None)
    if src is None:
        raise EditError(f"{n.path}: it has no input to connect its readers to")
    if not n.outputs or n.outputs[0] is None:
        raise EditError(f"{n.path}: it has no first output to bypass")
    out = n.outputs[0]
    edits: list[Edit] = _rewire(_uses_in(out, g), src.name)
    for i, o in enumerate(list(g.outputs)):
        if o is out:
            if any(x is src for x in g.outputs):
                raise EditError(f"{n.path}: {src.name!r} is already a graph output; remove {out.name!r} "
                                "from the outputs first")
            edits.append(RemoveGraphOutput(out.name, graph))
            edits.append(AddGraphOutput(src.name, i, graph))
            in_function = getattr(g.owner, "is_function", False) and g.parent_node is None
            if isinstance(out.type, TensorType) and not in_function and not src.is_graph_input \
                    and src.type != out.type:
                edits.append(SetValueType(src.name, out.type.elem_type, _file_shape(out.type), graph))
    edits += _output_declarations(g, [n], graph)
    edits.append(RemoveNode(node_ref(n), graph))
    return Macro(edits, f"Delete {n.display_name} and reconnect")


def remove_nodes(model, nodes, graph: GraphPath = (), name: str = "") -> Macro:
    """Remove `nodes` (NodeRefs) in one step, readers first so a selected
    chain goes at once. Each refuses while an output is still read."""
    g = find_graph(model, graph)
    found = sorted((find_node(g, ref) for ref in nodes), key=lambda n: n.index, reverse=True)
    edits = _output_declarations(g, found, graph) + [RemoveNode(node_ref(n), graph) for n in found]
    return Macro(edits, name or f"Delete {len(found)} nodes")


def _output_declarations(g, nodes, graph: GraphPath) -> list:
    """The value_info entries of the outputs of `nodes`, removed with them:
    once the nodes are gone nothing defines those values, and the checker
    warns of each entry left (graph.value-info-unused)."""
    return [RemoveValueInfo(v.name, graph) for n in nodes for v in n.outputs
            if v is not None and v in g.value_info]


def _file_shape(t: TensorType) -> Optional[list]:
    """`t`'s dims as the list a SetValueType takes, written as a file gets
    them (_file_dims)."""
    dims = _file_dims(t)
    return None if dims is None else list(dims)


def rename_everywhere(model, old: str, new: str) -> Macro:
    """Rename the value `old` wherever it is defined in the main graph and its
    bodies; every reader (in bodies that capture it too) follows."""
    edits = []
    for g in model.graph.walk():
        v = g.get_value(old)
        if v is not None and v.graph is g and (v.producer is not None or v.const is not None
                                               or v.is_graph_input or g.parent_graph is None):
            edits.append(RenameValue(old, new, graph_path(g)))
    if not edits:
        raise EditError(f"no value named {old!r} in the model's graph")
    return Macro(edits, f"Rename {old} to {new}")


def replace_with_node(model, nodes: Sequence, op_type: str, *, attributes: Optional[dict] = None,
                      graph: GraphPath = (), name: str = "", domain: str = "") -> Macro:
    """Replace the nodes `nodes` (refs) by one node: it reads the values they
    read from outside and produces, under the same names, the values read
    after them (or listed as graph outputs)."""
    g = find_graph(model, graph)
    chosen = [find_node(g, r) for r in nodes]
    if not chosen:
        raise EditError(f"{g.path}: no nodes to replace")
    ids = {id(n) for n in chosen}
    inside_ids = set()
    for n in chosen:
        for _, body in n.subgraphs():
            for b in body.walk():
                inside_ids.update(id(x) for x in b.nodes)
    chosen.sort(key=lambda n: n.index)
    made = {id(v) for n in chosen for v in n.outputs if v is not None}
    ins, outs = [], []
    for n in chosen:
        reads = list(n.inputs) + list(subgraph_reads(n))
        for v in reads:
            if v is not None and id(v) not in made and all(v is not x for x in ins):
                ins.append(v)
        for v in n.outputs:
            if v is None:
                continue
            outside = [u for u, _ in v.uses if id(u) not in ids and id(u) not in inside_ids]
            if outside or any(v is o for o in g.outputs):
                outs.append(v)
    if not outs:
        raise EditError(f"{g.path}: nothing reads what the selected nodes produce")
    temps = [g.unique_name(f"{v.name}_new") for v in outs]
    node_name = name or g.unique_name(op_type)
    # Placed right after the producers of its inputs, so before every reader
    # of the replaced outputs.
    edits: list[Edit] = [AddNode(op_type, [v.name for v in ins], temps, dict(attributes or {}), node_name, domain,
                                 None, graph)]
    for v, t in zip(outs, temps):
        uses = [(u, i) for u, i in v.uses if id(u) not in ids and id(u) not in inside_ids]
        edits += _rewire(uses, t)
        for k, o in enumerate(g.outputs):
            if o is v:
                edits += [RemoveGraphOutput(v.name, graph), AddGraphOutput(t, k, graph)]
    for n in reversed(chosen):
        edits.append(RemoveNode(stable_ref(n), graph))
    for v, t in zip(outs, temps):
        edits.append(RenameValue(t, v.name, graph))
        if any(v is o for o in g.outputs) and v.type is not None and isinstance(v.type, TensorType):
            edits.append(SetValueType(v.name, v.type.elem_type, _file_shape(v.type), graph))
    return Macro(edits, f"Replace 1 node by {op_type}" if len(chosen) == 1
                 else f"Replace {len(chosen)} nodes by {op_type}")


# -- inputs, initializers, shapes ----------------------------------------------------------

def promote_initializer(model, name: str, graph: GraphPath = ()) -> Macro:
    """Turn the initializer `name` into a graph input of its type (its data is dropped)."""
    g = find_graph(model, graph)
    v = g.initializers.get(name)
    if v is None:
        raise EditError(f'{g.path}: no initializer named "{name}"')
    if v.is_graph_input:
        return Macro([RemoveInitializer(name, graph)], f"Make {name} an input")
    return Macro([AddGraphInput(name, graph=graph), RemoveInitializer(name, graph)], f"Make {name} an input")


def _inputs_are(g, shown: int = 8) -> str:
    """'; its inputs are a, b, c' (the first `shown`), so a typo can be fixed
    from the message."""
    names = [v.name for v in g.inputs if v.const is None]
    if not names:
        return "; it has no inputs"
    more = f" and {len(names) - shown} more" if len(names) > shown else ""
    return f"; its inputs are {', '.join(names[:shown])}{more}"


def demote_input(model, name: str, array=None, graph: GraphPath = ()) -> Macro:
    """Turn the graph input `name` into an initializer holding `array` (or the
    default value it already has)."""
    g = find_graph(model, graph)
    v = next((x for x in g.inputs if x.name == name), None)
    if v is None:
        raise EditError(f"{g.path}: no graph input named {name!r}{_inputs_are(g)}")
    edits: list[Edit] = []
    if v.const is None:
        if array is None:
            raise EditError(f"{g.path}/input {name!r}: it has no default value; give the data it should hold")
        edits.append(AddInitializer(name, array, graph=graph))
    elif array is not None:
        from .values import SetInitializer
        edits.append(SetInitializer(name, array, graph=graph))
    edits.append(RemoveGraphInput(name, graph))
    return Macro(edits, f"Make {name} a constant")


class RankChangeRefused(EditError):
    """set_input_shape was asked to change an input's rank without
    `allow_rank_change`: the nodes that read the input were made for its
    rank, so the app asks first and the CLI wants --allow-rank-change.
    `input_name`, `old_rank` and `new_rank` say what was asked."""

    def __init__(self, message: str, input_name: str, old_rank: int, new_rank: int):
        super().__init__(message)
        self.input_name, self.old_rank, self.new_rank = input_name, old_rank, new_rank


def set_input_shape(model, name: str, dims, *, allow_rank_change: bool = False) -> Macro:
    """Give the main graph's input `name` the shape `dims` (ints, names or
    None), re-propagate shapes and rewrite the value_info entries and output
    declarations the change reaches. A dim given as "1" is the int 1.

    A new rank is refused (RankChangeRefused, nothing changed) unless
    `allow_rank_change`. Declarations are re-derived by inference with the
    declarations set aside, once from the input as it is and once from the
    new shape: a value whose inferred type the change does not alter keeps
    its declaration; otherwise what inference now knows is written, and
    where it knows less than the declaration (an If whose branches differ, a
    data-dependent size) the declaration keeps its rank and those of its
    dims inference never derived from the input, so a valid declaration is
    never traded for a missing shape (see _rederived)."""
    g = model.graph
    v = next((x for x in g.inputs if x.name == name), None)
    if v is None:
        raise EditError(f"{g.path}: no graph input named {name!r}{_inputs_are(g)}")
    place = f'{g.path}/input "{name}"'
    shape = norm_shape(dims, place)
    old_shape = getattr(v.type, "shape", None)
    if not allow_rank_change and shape is not None and old_shape is not None and len(shape) != len(old_shape):
        raise RankChangeRefused(
            f"{place}: the new shape {_shown(shape)} has rank {len(shape)}, the input has rank "
            f"{len(old_shape)} {_shown(old_shape)}; the nodes that read it expect rank {len(old_shape)}. "
            f"Give {len(old_shape)} dims, or allow the rank change (--allow-rank-change)",
            name, len(old_shape), len(shape))
    first = SetValueType(name, None, None if shape is None else list(shape), ())
    declared = _rederivable_declarations(g)
    # Both inferences run on one copy: the live model changes only through
    # the Macro returned.
    before, after = _inferred_without_declarations(model, declared, first)
    edits: list[Edit] = [first]
    for sub, x, old in declared:
        if getattr(sub.owner, "is_function", False):
            continue
        new = _rederived(old, before.get(id(x)), after.get(id(x)))
        if new is not None:
            edits.append(SetValueType(x.name, new.elem_type, None if new.shape is None else list(new.shape),
                                      graph_path(sub)))
    return Macro(edits, f"Set shape of {name}")


def _shown(shape) -> str:
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


def _rederivable_declarations(g) -> list:
    """(graph, value, declared type) of every value_info entry and output
    declaration in `g` and its bodies, each value once. Inputs and
    initializers are left out, even when value_info lists them too: their
    type is where inference starts, not what it derives."""
    declared, seen = [], set()
    for sub in g.walk():
        for items in (sub.value_info, sub.outputs):
            for x in items:
                if x.is_graph_input or x.const is not None:
                    continue
                if (x.graph is sub or sub.parent_graph is None) and id(x) not in seen:
                    seen.add(id(x))
                    declared.append((sub, x, x.type))
    return declared


def _inferred_without_declarations(model, declared, edit: Edit) -> tuple[dict, dict]:
    """id(value) -> the type inference gives it with `declared`'s types set
    aside (so a stale declaration does not feed the result), before and
    after `edit`. Worked out on a copy (Model.clone, weights shared):
    `model` is not touched."""
    from ..infer import Inference
    copies: dict = {}
    copy = model.clone(copies)
    for _, x, _ in declared:
        copies[id(x)].type = None     # the copy is private to this function

    def inferred() -> dict:
        inf = Inference(copy)
        inf.run()
        return {id(x): inf.type_of(copies[id(x)]) for _, x, _ in declared}
    before = inferred()
    edit.apply(copy)
    return before, inferred()


def _rederived(old, before, after) -> Optional[TensorType]:
    """The type to declare for a value declared `old`, inferred `before` the
    input's change and `after` it; None to keep the declaration as it is.

    - inference knows nothing of the value, or infers the same type from
      the old and the new input: the change does not reach it; keep `old`.
    - so too per dim: a dim inferred the same before and after keeps its
      declaration (an exporter's `LayerNormalization399_dim_1` stays when
      only the batch size changes; written as inferred, it became `seq`, and
      setting the input back could not bring it back).
    - a dim inference now knows is written as inferred.
    - a dim it does not know keeps the declared one, unless inference had
      derived exactly that dim from the old input (it followed the input
      there, so it may be stale now): then it is written unknown.
    - a rank it does not know keeps the declared rank (a graph output needs
      a shape; the checker and onnx refuse a missing one).
    """
    if not isinstance(after, TensorType) or (after.elem_type == 0 and after.shape is None):
        return None
    a = _file_dims(after)
    b = _file_dims(before) if isinstance(before, TensorType) else None
    if isinstance(before, TensorType) and before.elem_type == after.elem_type and a == b:
        return None
    o = old.shape if isinstance(old, TensorType) else None
    elem = after.elem_type or getattr(old, "elem_type", 0)
    b_dims = b if b is not None and o is not None and len(b) == len(o) else None
    if o is not None and (a is None or len(a) == len(o)):
        shape = tuple(_kept(od, None if a is None else a[i], None if b_dims is None else b_dims[i])
                      for i, od in enumerate(o))
    else:
        shape = a
    if isinstance(old, TensorType) and old.elem_type == elem and old.shape == shape:
        return None
    return TensorType(elem, shape)


def _kept(declared, now, was):
    """One dim for _rederived: declared where the change does not reach it,
    else inferred now, else declared, else unknown."""
    if now is not None and now == was:
        return declared
    if now is not None:
        return now
    if was is not None and was == declared:
        return None
    return declared


def _file_dims(inferred: TensorType) -> Optional[tuple]:
    # The dims as `onnxstudio infer` writes them (fresh.as_written, the one
    # rule): names inference made up for unknown sizes (`?3`) are unknown.
    from ..infer.fresh import as_written
    shape = as_written(inferred).shape
    return None if shape is None else tuple(shape)


# -- whole-graph compounds --------------------------------------------------------------------

def toposort(model, graph: GraphPath = ()) -> Macro:
    """Put the nodes in topological order, moving as little as possible
    (among ready nodes, the one that came first goes first)."""
    g = find_graph(model, graph)
    nodes = list(g.nodes)
    pos = {id(n): i for i, n in enumerate(nodes)}
    deps: list[set] = []
    for n in nodes:
        reads = list(n.inputs) + list(subgraph_reads(n))
        deps.append({pos[id(v.producer)] for v in reads
                     if v is not None and v.producer is not None and id(v.producer) in pos
                     and v.producer is not n})
    users: list[list] = [[] for _ in nodes]
    waiting = [len(d) for d in deps]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(i)
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(order) < len(nodes):
        stuck = [nodes[i].display_name for i in range(len(nodes)) if waiting[i] > 0][:5]
        raise EditError(f"{g.path}: the nodes form a cycle and cannot be sorted ({', '.join(stuck)} ...)")
    if order == list(range(len(nodes))):
        return Macro([], "Sort nodes")
    return Macro([SetNodeOrder(order, graph)], "Sort nodes")


def cleanup(model) -> Macro:
    """Remove what nothing needs: nodes whose outputs nobody reads (in the
    main graph, live bodies and function bodies), initializers nothing reads,
    value_info entries the cleaned graph defines no value for (what the
    checker reports as graph.value-info-unused), and opset imports no node
    uses (the default domain always stays)."""
    roots = [model.graph] + [f.graph for f in model.functions.values()]
    live = _live_nodes(roots)
    dead_units = [n for g in _live_graphs(roots, live) for n in g.nodes if id(n) not in live]
    edits: list[Edit] = [RemoveNode(stable_ref(n), graph_path(n.graph)) for n in _users_first(dead_units, live)]
    removed_inits: set = set()
    for g in _live_graphs(roots, live):
        edits += _unused_initializers(g, live, removed_inits)
    for g in _live_graphs(roots, live):
        edits += _stale_value_info(g, live, removed_inits)
    used = {"" if n.domain == "ai.onnx" else n.domain
            for g in _live_graphs(roots, live) for n in g.nodes if id(n) in live}
    edits += [SetOpsetImport(d, None) for d in list(model.opset_imports) if d and d not in used]
    return Macro(edits, "Clean up")


def _live_nodes(roots) -> set:
    """ids of the nodes the graph outputs of `roots` depend on, followed from
    the outputs back through producers (so the file's node order, even an
    unsorted one, does not matter). A live node's bodies are live up to
    their outputs, and the outside values they read are needed."""
    live: set = set()
    todo = [v for g in roots for v in g.outputs]
    while todo:
        v = todo.pop()
        n = v.producer if v is not None else None
        if n is None or id(n) in live:
            continue
        live.add(id(n))
        todo.extend(n.inputs)
        for _, body in n.subgraphs():
            todo.extend(body.outputs)
    return live


def _live_graphs(roots, live):
    """The roots and the bodies of their live nodes, nested ones included."""
    todo = list(roots)
    while todo:
        g = todo.pop()
        yield g
        for n in g.nodes:
            if id(n) in live:
                todo.extend(body for _, body in n.subgraphs())


def _users_first(units, live) -> list:
    """`units` (dead nodes of live graphs) ordered so that every node comes
    after the dead nodes reading its outputs: RemoveNode refuses a node whose
    outputs are still read. A reader inside a dead node's body goes with that
    node."""
    unit_ids = {id(n) for n in units}

    def unit_of(node):
        # The dead node of a live graph that holds `node` (itself, or the node
        # whose body it is in).
        while id(node) not in unit_ids and node.graph is not None and node.graph.parent_node is not None:
            node = node.graph.parent_node
        return node if id(node) in unit_ids else None

    order, state = [], {}
    for first in units:
        stack = [(first, False)]
        while stack:
            n, expanded = stack.pop()
            if expanded:
                state[id(n)] = "done"
                order.append(n)
                continue
            if state.get(id(n)):
                continue        # done, or on the stack already (a cycle: RemoveNode will say so)
            state[id(n)] = "open"
            stack.append((n, True))
            for inner in [n] + [m for _, body in n.subgraphs() for m in body.all_nodes()]:
                for v in inner.outputs:
                    for user, _ in (v.uses if v is not None else ()):
                        u = unit_of(user)
                        if u is not None and u is not n and not state.get(id(u)):
                            stack.append((u, False))
    return order


def _unused_initializers(g, live, removed: set) -> list:
    """Remove the initializers of `g` only dead nodes read; their ids go into `removed`."""
    edits: list[Edit] = []
    for table in (g.initializers, g.sparse_initializers):
        for name, v in table.items():
            if v.is_graph_input or v.is_graph_output:
                continue
            if not any(_is_live(u, live) for u, _ in v.uses):
                edits.append(RemoveInitializer(name, graph_path(g)))
                removed.add(id(v))
    return edits


def _is_live(node, live) -> bool:
    # A node in the body of a dead node goes with it, whatever it is itself.
    while node is not None:
        if id(node) not in live:
            return False
        node = node.graph.parent_node if node.graph is not None else None
    return True


def _stale_value_info(g, live, removed_inits: set) -> list:
    """Remove each value_info entry of `g` that does not describe a value `g`
    itself defines after the cleanup: output of a node that stays, graph
    input, or initializer that stays. That takes the entries of removed
    values, of names nothing defines, and of a value of an enclosing graph
    listed in a body (the checker reports each as graph.value-info-unused)."""
    edits: list[Edit] = []
    for x in g.value_info:
        if x.graph is g and (x.is_graph_input or (x.const is not None and id(x) not in removed_inits)
                             or (x.producer is not None and _is_live(x.producer, live))):
            continue
        edits.append(RemoveValueInfo(x.name, graph_path(g)))
    return edits
