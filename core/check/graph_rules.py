"""Rules for a GraphProto: names, SSA, def-before-use with lexical scoping into
subgraphs, cycles, initializers, value_info, typed top-level inputs/outputs.

A graph is checked in two parts so one node can be re-checked alone:
`check_structure` (everything about names; builds the Scope) and
`check_node_at` (one node and the subgraphs under it, given that Scope).
"""
from __future__ import annotations

import functools

from ..proto import onnx_pb2 as pb
from . import paths
from .context import Scope, declared_types, graph_parts, proto_type_str
from .elem_types import output_types
from .scan import odd_summary, scan_graph
from .node_rules import check_node
from ..ir.dtypes import type_name
from ..ir.text import as_text
from .tensor_rules import DTYPE_SINCE_IR, check_sparse, check_tensor, tensor_clean
from .text_rules import NAME, damaged_text, what_onnxstudio_does

INPUT_POS, INIT_POS = -2, -1
_IR_TYPE_KIND_SINCE = {"optional_type": 8, "sparse_tensor_type": 8}


def check_graph(g: pb.GraphProto, gpath: str, ctx, out, parent: Scope | None) -> Scope:
    """Full check of a graph (used for subgraphs and as the reference)."""
    scope = check_structure(g, gpath, ctx, out, parent)
    suspects, scope.suspects = scope.suspects, None
    if suspects is None:
        for i in range(len(g.node)):
            check_node_at(g, i, scope, ctx, out)
    else:
        for i, graphs in suspects:
            check_node_at(g, i, scope, ctx, out, graphs)
    return scope


def check_node_at(g, i: int, scope: Scope, ctx, out, graphs=None) -> None:
    """Check node i (and the subgraphs under it) with the rules; with
    `graphs` (scan.judge_nodes found nothing in the node itself) only those
    subgraphs, in attribute order, as the rules would."""
    node = g.node[i]
    here = scope.at(i)
    npath = paths.Lazy(paths.node, scope.graph_path, i, node.op_type, node.name)
    nested = ctx.nested()
    if graphs is not None:
        for name, atype, value in graphs:
            apath = paths.Lazy(paths.attribute, npath, name)
            if atype == pb.AttributeProto.GRAPH:
                check_graph(value, apath, nested, out, here)
            else:
                for k, sub in enumerate(value):
                    check_graph(sub, f"{apath}[{k}]", nested, out, here)
        return

    def check_subgraph(sub, spath, _scope):
        check_graph(sub, spath, nested, out, here)

    check_node(node, npath, here, ctx, out, check_subgraph)


def _check_io_type(vi, where, ctx, out) -> None:
    """A top-level input/output: a type with its element type and shape."""
    if not vi.HasField("type"):
        out.add("graph.io-type-missing", where, "a top-level input/output must declare its type")
        return
    tp = vi.type
    kind = tp.WhichOneof("value")
    if kind == "tensor_type" or kind == "sparse_tensor_type":
        tt = tp.tensor_type if kind == "tensor_type" else tp.sparse_tensor_type
        if not tt.elem_type:
            out.add("graph.io-elem-type-missing", where, "the declared tensor type has no element type")
        if not tt.HasField("shape"):
            out.add("graph.io-shape-missing", where,
                    "the declared tensor type has no shape; give at least the rank (dims may be symbolic)")
    elif kind in ("sequence_type", "optional_type"):
        if not getattr(tp, kind).HasField("elem_type"):
            out.add("graph.io-elem-type-missing", where, f"the declared {kind.split('_')[0]} type has no element type")
    elif kind == "map_type":
        if not tp.map_type.key_type or not tp.map_type.HasField("value_type"):
            out.add("graph.io-elem-type-missing", where, "the declared map type needs a key and a value type")
    elif kind is None:
        out.add("graph.io-type-missing", where, "the declared type is empty")


def check_elem_type_given(vi, where, out) -> None:
    """value_info and subgraph inputs/outputs may leave the type out, but a
    tensor type they give must say its element type (the IR spec: MUST be
    present): an incomplete declaration is not "no declaration"."""
    if not vi.HasField("type"):
        return
    tp = vi.type
    kind = tp.WhichOneof("value")
    if kind == "tensor_type" and not tp.tensor_type.elem_type or \
            kind == "sparse_tensor_type" and not tp.sparse_tensor_type.elem_type:
        out.add("graph.elem-type-missing", where,
                f"the declared {kind.replace('_type', '').replace('_', ' ')} type of {paths.shown(vi.name)} has no "
                "element type; give it, or remove the type to leave it to inference")


def type_too_new(vi, ir: int):
    """Why the declared type of `vi` needs a newer IR version than `ir`
    (a message), or None."""
    if not ir or not vi.HasField("type"):
        return None
    tp = vi.type
    while True:
        kind = tp.WhichOneof("value")
        if kind == "tensor_type":       # the usual case first
            elem = tp.tensor_type.elem_type
            since = DTYPE_SINCE_IR.get(elem)
            if since and ir < since:
                return f"element type {type_name(elem)} needs IR version {since}; the model declares {ir}"
            return None
        since = _IR_TYPE_KIND_SINCE.get(kind)
        if since and ir < since:
            return f"{kind} needs IR version {since}; the model declares {ir}"
        if kind == "sparse_tensor_type":
            elem = tp.sparse_tensor_type.elem_type
            since = DTYPE_SINCE_IR.get(elem)
            if since and ir < since:
                return f"element type {type_name(elem)} needs IR version {since}; the model declares {ir}"
            return None
        if kind in ("sequence_type", "optional_type") and getattr(tp, kind).HasField("elem_type"):
            tp = getattr(tp, kind).elem_type
        elif kind == "map_type" and tp.map_type.HasField("value_type"):
            tp = tp.map_type.value_type
        else:
            return None


def _check_type_version(vi, where, ctx, out) -> None:
    message = type_too_new(vi, ctx.ir_version)
    if message is not None:
        out.add("model.feature-too-new", where, message)


def check_ir10_fields(msg, where, ctx, out) -> None:
    """Node/graph/function fields added in IR version 10."""
    if not ctx.ir_version or ctx.ir_version >= 10:
        return
    if len(msg.metadata_props):
        out.add("model.feature-too-new", where,
                f"metadata_props here needs IR version 10; the model declares {ctx.ir_version}")
    if getattr(msg, "overload", ""):
        out.add("model.feature-too-new", where,
                f"overload needs IR version 10; the model declares {ctx.ir_version}")


def check_structure(g: pb.GraphProto, gpath: str, ctx, out, parent: Scope | None) -> Scope:
    """The graph's own rules (names, IO, initializers, value_info, SSA and
    def-before-use) and its lexical scope, in which its nodes are checked.
    gpath may be a paths.Lazy (a subgraph's): spelt only if a finding or a
    type_lookup needs it. (The live checker runs the same parts one by one,
    keeping each part's findings: check/graph_unit.py.)"""
    parts = graph_parts(g)
    defs: dict = {}
    names: list = []      # in definition order, for the identifier rule
    check_header(g, parts, gpath, ctx, out, parent, defs, names)
    scope = check_nodes_structure(g, parts, gpath, ctx, out, parent, defs, names, declared_types(g, parts))
    check_declarations(parts, gpath, ctx, out, parent, scope.defs)
    check_names(odd_summary(names), gpath, out)
    return scope


def check_header(g, parts, gpath, ctx, out, parent, defs: dict, names: list, clean=None) -> None:
    """The graph's name and fields, inputs, dense and sparse initializers:
    adds their definitions to `defs` and their names to `names`.
    `clean(init, ir, name)`: an initializer's tensor_clean verdict, when the
    caller keeps them between runs."""
    ir = ctx.ir_version
    name = parts.get("name")
    if not name:
        out.add("graph.name-missing", gpath, "the graph has no name; give it one")
    elif name.__class__ is bytes:
        damaged_text(gpath, ["name"], out)
    if ir and ir < 10 and "metadata_props" in parts:
        check_ir10_fields(g, gpath, ctx, out)
    _check_inputs(parts.get("input", ()), gpath, ctx, out, parent, defs, names)
    init_names = _check_initializers(parts.get("initializer", ()), gpath, ctx, out, defs, names, clean)
    _check_sparse_initializers(parts.get("sparse_initializer", ()), gpath, ctx, out, defs, init_names)


def check_declarations(parts, gpath, ctx, out, parent, defs) -> None:
    """Graph outputs and value_info, against the graph's definitions."""
    for name, check in declaration_entries(parts, gpath, ctx, parent):
        check(out, name in defs)


def _check_inputs(inputs, gpath, ctx, out, parent, defs: dict, names: list) -> None:
    for k, vi in enumerate(inputs):
        name = vi.name
        where = paths.Lazy(paths.graph_input, gpath, k, name)
        if not name:
            out.add("graph.input-name-missing", where, "graph input with an empty name")
            continue
        if name in defs:
            out.add("graph.input-duplicate", where, f"input {paths.shown(name)} is declared twice")
        elif parent is not None and parent.visible(name):
            out.add("graph.shadowing", where, f"input {paths.shown(name)} hides a name of the enclosing graph")
        defs.setdefault(name, INPUT_POS)
        names.append(name)
        if ctx.is_main:
            _check_io_type(vi, where, ctx, out)
        else:
            check_elem_type_given(vi, where, out)
        _check_type_version(vi, where, ctx, out)


def _check_initializers(inits, gpath, ctx, out, defs: dict, names: list, clean) -> set:
    """Dense initializers; adds them to defs and names, returns their names."""
    ir = ctx.ir_version
    init_names = set()
    for init in inits:
        name = init.name
        # The usual initializer (clean, named, once, allowed at this IR
        # version) has nothing to report: no path is built for it (a large
        # model has thousands).
        verdict = tensor_clean(init, ir) if clean is None else clean(init, ir, name)
        if verdict and name and name not in init_names and not (ir and ir < 4 and defs.get(name) != INPUT_POS):
            init_names.add(name)
            defs.setdefault(name, INIT_POS)
            names.append(name)
            continue
        where = paths.Lazy(paths.initializer, gpath, name)
        if not verdict:
            check_tensor(init, where, ctx, out)
        if not name:
            out.add("graph.initializer-name-missing", where, "initializer with an empty name")
            continue
        if name in init_names:
            out.add("graph.initializer-duplicate", where, f"initializer {paths.shown(name)} is given twice")
        init_names.add(name)
        if ir and ir < 4 and defs.get(name) != INPUT_POS:
            out.add("graph.initializer-not-input", where,
                    f"with IR version {ir} (< 4) every initializer must also be a graph input")
        defs.setdefault(name, INIT_POS)
        names.append(name)
    return init_names


def _check_sparse_initializers(sparse, gpath, ctx, out, defs: dict, init_names: set) -> None:
    ir = ctx.ir_version
    for sp in sparse:
        name = sp.values.name
        where = paths.initializer(gpath, name, sparse=True)
        if ir and ir < 6:
            out.add("model.feature-too-new", where,
                    f"sparse initializers need IR version 6; the model declares {ir}")
        check_sparse(sp, where, ctx, out)
        if not name:
            out.add("sparse.name-missing", where, "sparse initializer whose values tensor has no name")
            continue
        if name.__class__ is bytes:     # told here: check_names' summary leaves sparse initializers out
            damaged_text(where, [NAME], out)
        if name in init_names:
            out.add("graph.initializer-duplicate", where,
                    f"{paths.shown(name)} is used by more than one initializer or sparse initializer")
        init_names.add(name)
        defs.setdefault(name, INIT_POS)


def check_nodes_structure(g, parts, gpath, ctx, out, parent, defs: dict, names: list, types: dict) -> Scope:
    """The scope with every node's outputs defined and their element types
    derived. The lean pass reads every node once (outside function bodies,
    whose nodes all meet the rules). Only when a name is defined twice or
    used before its definition do the detailed passes run to say where."""
    scope = None
    if not ctx.in_function:
        scope = Scope(dict(defs), 1 << 62, parent, types, gpath)
        known = len(names)
        try:
            scope.suspects = scan_graph(parts.get("node", ()), scope, ctx, names)
        except Exception:  # noqa: BLE001 - an optimisation only: the detailed passes decide
            scope.suspects = None
        if scope.suspects is None:
            del names[known:]
            scope = None
        elif "" in names:
            names[known:] = [n for n in names[known:] if n]
    if scope is None:
        _check_definitions(g, gpath, defs, names, parent, out)
        scope = Scope(defs, 1 << 62, parent, types, gpath)
        _check_def_use(g, gpath, scope, out)
        infer_elem_types(g, scope, ctx)
    if not ctx.in_function:
        # What the lean pass of this graph's subgraphs reads (scan_graph).
        ctx.memo.setdefault("defined", set()).update(scope.defs)
    return scope


def declaration_entries(parts, gpath, ctx, parent, vi_clean=None):
    """The graph outputs, then the value_info entries, in order: (name,
    check), where `check(out, defined)` adds that entry's findings given
    whether the graph defines `name` (all that the entry's findings take
    from the rest of the graph)."""
    inputs = parts.get("input", ())
    # What an output named like a graph input must agree with (a pass-through).
    input_decls = {v.name: v for v in inputs if v.HasField("type")} if inputs else {}
    for k, vi in enumerate(parts.get("output", ())):
        yield vi.name, functools.partial(_check_output, vi, k, gpath, ctx, parent, input_decls.get(vi.name))
    vi_names = set()
    io_types = None
    for k, vi in enumerate(parts.get("value_info", ())):
        name = vi.name
        duplicate = name in vi_names
        vi_names.add(name)
        if io_types is None:
            io_types = {v.name: proto_type_str(v.type) for v in (*parts.get("input", ()), *parts.get("output", ()))
                        if v.HasField("type")}
        yield name, functools.partial(_check_value_info, vi, k, gpath, ctx, duplicate, io_types.get(name), vi_clean)


def _check_output(vi, k, gpath, ctx, parent, input_vi, out, defined: bool) -> None:
    """`input_vi`: the typed graph input of this name (None: none)."""
    name = vi.name
    where = paths.Lazy(paths.graph_output, gpath, k, name)
    if not name:
        out.add("graph.input-name-missing", where, "graph output with an empty name")
        return
    if input_vi is not None and vi.HasField("type"):
        _check_pass_through(vi, input_vi, name, where, out)
    if not defined:
        outer = parent is not None and parent.visible(name)
        out.add("graph.output-undefined", where,
                f"output {paths.shown(name)} is " + ("a name of the enclosing graph; a subgraph output must be "
                                                     "produced inside it (add an Identity)" if outer
                                                     else "not produced by any node, input or initializer"))
        if name.__class__ is bytes:     # told here: check_names' summary has defined names only
            damaged_text(where, [NAME], out)
    if ctx.is_main:
        _check_io_type(vi, where, ctx, out)
    else:
        check_elem_type_given(vi, where, out)
    _check_type_version(vi, where, ctx, out)


def _check_pass_through(vi, input_vi, name, where, out) -> None:
    """An output that is the graph input of its name is that input's value:
    its declaration may say less, never something else: another element
    type, rank or known size is false. onnxruntime runs such a model and
    returns the input as it is; onnx refuses another element type, and
    another shape only where a node's inference meets it (the differential
    search found both)."""
    mine, theirs = proto_type_str(vi.type), proto_type_str(input_vi.type)
    if mine is not None and theirs is not None and mine != theirs:
        out.add("graph.output-conflict", where,
                f"output {paths.shown(name)} is declared {mine}, but it is the graph input of that name, "
                f"declared {theirs}: declare the output {theirs}, or give it a node of its own")
        return
    a, b = _tensor_dims(vi.type), _tensor_dims(input_vi.type)
    if a is None or b is None:
        return
    if len(a) != len(b):
        differs = f"rank {len(a)} declared, {len(b)} given"
    else:
        differs = ", ".join(f"dim {i}: {x} declared, {y} given" for i, (x, y) in enumerate(zip(a, b))
                            if x is not None and y is not None and x != y)
        if not differs:
            return
    out.add("graph.declared-type-contradicts", where,
            f"output {paths.shown(name)} is the graph input of that name, declared with shape "
            f"{_shown_shape(input_vi.type)}, but the output declares {_shown_shape(vi.type)} ({differs}): correct "
            "the output's shape, or give it a node of its own")


def _tensor_dims(tp):
    """The dims a tensor type declares (None for a symbolic, unknown or
    negative one), or None when it declares no shape."""
    kind = tp.WhichOneof("value")
    if kind != "tensor_type" and kind != "sparse_tensor_type":
        return None
    tt = getattr(tp, kind)
    if not tt.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") and d.dim_value >= 0 else None for d in tt.shape.dim]


def _shown_shape(tp) -> str:
    """A declared shape as messages write it: [1, batch, ?] (only for a
    type _tensor_dims read)."""
    dims = getattr(tp, tp.WhichOneof("value")).shape.dim
    return "[" + ", ".join(str(d.dim_value) if d.HasField("dim_value") else as_text(d.dim_param) if d.dim_param
                           else "?" for d in dims) + "]"


def _check_value_info(vi, k, gpath, ctx, duplicate: bool, io_declared, vi_clean, out, defined: bool) -> None:
    """`io_declared`: the type string a graph input or output of this name
    declares (None: none)."""
    ir = ctx.ir_version
    name = vi.name
    where = None
    if duplicate:
        where = paths.Lazy(paths.value_info, gpath, name)
        out.add("graph.value-info-duplicate", where, f"value_info for {paths.shown(name)} is given twice")
    if io_declared is not None and vi.HasField("type"):
        mine = proto_type_str(vi.type)
        if mine is not None and mine != io_declared:
            where = where or paths.Lazy(paths.value_info, gpath, name)
            out.add("graph.value-info-conflict", where,
                    f"value_info says {paths.shown(name)} is {mine}, but the graph input/output declares {io_declared}")
    if not defined:
        where = where or paths.Lazy(paths.value_info, gpath, name)
        out.add("graph.value-info-unused", where, f"value_info describes {paths.shown(name)}, which nothing defines")
        if name.__class__ is bytes:     # told here: check_names' summary has defined names only
            damaged_text(where, [NAME], out)
    if vi_clean is not None and vi_clean(k, vi, ir):
        return      # its type passed both tests below at the last run, unchanged since
    message = type_too_new(vi, ir)
    if message is not None:
        out.add("model.feature-too-new", where or paths.Lazy(paths.value_info, gpath, name), message)
    check_elem_type_given(vi, where or paths.Lazy(paths.value_info, gpath, name), out)


def check_names(summary: tuple, gpath, out) -> None:
    """Summary findings over every name the graph defines (`summary`:
    scan.odd_summary): invalid UTF-8 (a damaged file) and names that are
    not C identifiers."""
    count, first, damaged = summary
    if damaged:
        shown = ", ".join(paths.quote(n) for n in damaged[:3])
        out.add("text.invalid-utf8", gpath, f"{len(damaged)} name{'s are' if len(damaged) > 1 else ' is'} not "
                f"valid UTF-8 (shown with U+FFFD: {shown}); the file is damaged ({what_onnxstudio_does(gpath)})")
    if count:
        shown = ", ".join(paths.quote(n) for n in first)
        out.add("name.not-identifier", gpath,
                (f"{count} names are" if count > 1 else "1 name is")
                + f" not a C identifier (e.g. {shown}); most tools accept them")


def _check_definitions(g, gpath, defs, names, parent, out) -> None:
    """Where each node output is first defined (into `defs`), reporting
    redefinitions; "defined later" (order problem or cycle) is then told
    from "never defined" by _check_def_use."""
    later = {}
    for i, node in enumerate(g.node):
        npath = None
        for k, name in enumerate(node.output):
            if not name:
                continue
            if name in defs or name in later or (parent is not None and parent.visible(name)):
                npath = npath or paths.node(gpath, i, node.op_type, node.name)
                first = defs.get(name, later.get(name))
                what = ("a graph input" if first == INPUT_POS else "an initializer" if first == INIT_POS
                        else f"node[{first}]" if first is not None else "the enclosing graph")
                out.add("graph.redefinition", paths.node_output(npath, k, name),
                        f"{paths.shown(name)} is already defined by {what}; every name is assigned once (SSA)")
                continue
            later[name] = i
            names.append(name)
    defs.update(later)


def infer_node(g, i: int, scope: Scope, ctx) -> list:
    """Derived output types of node i; records them for undeclared outputs.
    Returns the names whose derived type changed. (The full check derives
    all nodes at once in memo.derive_and_key; this is the re-check's step.)"""
    node = g.node[i]
    types = scope.types
    for o in node.output:
        if o and o not in types:
            break
    else:
        return []       # every output declared: nothing to derive
    here = scope.at(i)
    schema = ctx.schema_for(node)
    if schema is None:
        outs = [None] * len(node.output)
    else:
        outs = output_types(node, schema, lambda n: here.type_str(n, ctx))
    changed = []
    inferred = scope.inferred
    defs = scope.defs
    for name, t in zip(node.output, outs):
        if not name or name in types or defs.get(name) != i:
            continue
        if inferred.get(name) != t:
            changed.append(name)
            if t is None:
                inferred.pop(name, None)
            else:
                inferred[name] = t
    return changed


def infer_elem_types(g, scope: Scope, ctx) -> None:
    for i in range(len(g.node)):
        infer_node(g, i, scope, ctx)


def _check_def_use(g, gpath, scope: Scope, out) -> None:
    defs = scope.defs
    parent = scope.parent
    backward = []   # (consumer index, producer index) edges that point forward in the list
    for i, node in enumerate(g.node):
        npath = None
        for k, name in enumerate(node.input):
            if not name:
                continue
            pos = defs.get(name)
            if pos is not None and pos < i:
                continue
            if pos is None and parent is not None and parent.visible(name):
                continue
            npath = npath or paths.node(gpath, i, node.op_type, node.name)
            where = paths.node_input(npath, k, name)
            if pos is None:
                out.add("graph.undefined-input", where, f"input {paths.shown(name)} is not defined by any node, "
                        "graph input or initializer" + (" here or in an enclosing graph" if parent is not None else ""))
                if name.__class__ is bytes:     # told here: check_names' summary has defined names only
                    damaged_text(where, [NAME], out)
            else:
                backward.append((i, pos, where, name))
    if not backward:
        return
    in_cycle = _cycle_nodes(g, defs)
    for i, pos, where, name in backward:
        if i in in_cycle and pos in in_cycle:
            out.add("graph.cycle", where,
                    f"input {paths.shown(name)} comes from node[{pos}], which depends on this node: a cycle")
        else:
            out.add("graph.not-topological", where,
                    f"input {paths.shown(name)} is produced by node[{pos}], which comes later; reorder the nodes")


def _cycle_nodes(g, defs) -> set:
    """Indices of nodes on a dependency cycle (Kahn's algorithm leftovers that
    still reach themselves)."""
    n = len(g.node)
    succ = [[] for _ in range(n)]
    indeg = [0] * n
    for i, node in enumerate(g.node):
        for name in node.input:
            p = defs.get(name)
            if p is not None and p >= 0 and p != i:
                succ[p].append(i)
                indeg[i] += 1
            elif p == i:
                indeg[i] += 1
                succ[i].append(i)
    ready = [i for i in range(n) if indeg[i] == 0]
    while ready:
        i = ready.pop()
        for j in succ[i]:
            indeg[j] -= 1
            if indeg[j] == 0:
                ready.append(j)
    return {i for i in range(n) if indeg[i] > 0}

