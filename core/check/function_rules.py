"""Rules for model-local functions and training_info."""
from __future__ import annotations

from .. import schemas
from . import paths
from .context import Scope
from .elem_types import output_types
from .graph_rules import check_graph
from .node_rules import check_node
from .text_rules import FUNCTION_FIELDS, NAME, attribute_label, damaged_text, opset_label, value_label


def function_key(fn) -> tuple:
    return (fn.domain, fn.name, fn.overload)


def check_functions(model, ctx, out) -> None:
    seen = set()
    for fn in model.functions:
        fpath = paths.function(fn.name, fn.overload)
        if (fn.overload or len(fn.metadata_props)) and ctx.ir_version and ctx.ir_version < 10:
            out.add("model.feature-too-new", fpath,
                    f"function overload / metadata_props need IR version 10; the model declares {ctx.ir_version}")
        if len(fn.attribute_proto) and ctx.ir_version and ctx.ir_version < 9:
            out.add("model.feature-too-new", fpath,
                    f"function attribute defaults need IR version 9; the model declares {ctx.ir_version}")
        if function_key(fn) in seen:
            out.add("function.duplicate", fpath,
                    f"another function is already named {fn.domain}.{fn.name}"
                    + (f" ({fn.overload})" if fn.overload else ""))
        seen.add(function_key(fn))
        _check_function(fn, fpath, ctx, out)
    _check_recursion(model, out)


def _check_function(fn, fpath, ctx, out) -> None:
    if not fn.name:
        out.add("function.name-missing", fpath, "the function has no name")
    if not fn.HasField("domain"):
        out.add("function.domain-missing", fpath, "the function has no domain; nodes call it by (domain, name)")
    fopsets = {}
    for op in fn.opset_import:
        fopsets[schemas.canonical_domain(op.domain)] = op.version
    attrs = list(fn.attribute) + [a.name for a in fn.attribute_proto]
    damaged_text(fpath, function_text(fn, attrs), out)
    if len(set(attrs)) != len(attrs):
        dup = next(a for a in attrs if attrs.count(a) > 1)
        out.add("function.attribute-duplicate", fpath, f"attribute {paths.shown(dup)} is declared more than once")
    if len(set(fn.output)) != len(fn.output):
        dup = next(o for o in fn.output if list(fn.output).count(o) > 1)
        out.add("function.output-duplicate", fpath, f"output {paths.shown(dup)} is declared more than once")
    defs = {}
    for name in fn.input:
        if name in defs:
            out.add("function.input-duplicate", fpath, f"input {paths.shown(name)} is declared more than once")
        defs[name] = -1
    # Types from outside (inference of the main graph) mean nothing here.
    fctx = ctx.sub(opsets=fopsets, is_main=False, in_function=True, function_attrs=frozenset(attrs),
                   type_lookup=None)
    # Function inputs are untyped; element types derived inside the body
    # (Constant, Cast, single-type constraints) are checked like anywhere.
    scope = Scope(defs, 0, None, {}, fpath)
    for i, node in enumerate(fn.node):
        npath = paths.node(fpath, i, node.op_type, node.name)
        for k, name in enumerate(node.input):
            if name and name not in defs:
                where = paths.node_input(npath, k, name)
                out.add("graph.undefined-input", where,
                        f"input {paths.shown(name)} is neither a function input nor an output of an earlier node")
                if name.__class__ is bytes:     # told here: function_text has defined names only
                    damaged_text(where, [NAME], out)
        here = scope.at(i)

        def check_subgraph(sub, spath, _scope, here=here):
            check_graph(sub, spath, fctx, out, here)

        check_node(node, npath, here, fctx, out, check_subgraph)
        _check_opset_agreement(node, npath, fopsets, ctx.model_opsets, out)
        derived = output_types(node, fctx.schema_for(node), lambda n, here=here: here.type_str(n, fctx))
        for k, name in enumerate(node.output):
            if not name:
                continue
            if name in defs:
                out.add("graph.redefinition", paths.node_output(npath, k, name),
                        f"{paths.shown(name)} is already defined in this function; every name is assigned once (SSA)")
                continue
            defs[name] = i
            if derived[k] is not None:
                scope.inferred[name] = derived[k]
    for name in fn.output:
        if name not in defs:
            out.add("function.output-undefined", fpath,
                    f"output {paths.shown(name)} is not produced in the function body")


def function_text(fn, attrs: list) -> list:
    """The labels of a FunctionProto's own text holding bytes: its fields,
    opset domains, attributes (`attrs`: declared, then those with defaults)
    and the value names its body defines or declares."""
    labels = [field for field in FUNCTION_FIELDS if getattr(fn, field).__class__ is bytes]
    labels += [opset_label(op.domain) for op in fn.opset_import if op.domain.__class__ is bytes]
    labels += [attribute_label(a) for a in attrs if a.__class__ is bytes]
    names = list(fn.input)
    for node in fn.node:
        names += node.output
    names += fn.output
    labels += [value_label(n) for n in names if n.__class__ is bytes]
    return labels


def _check_opset_agreement(node, npath, fopsets, model_opsets, out) -> None:
    domain = schemas.canonical_domain(node.domain)
    fv, mv = fopsets.get(domain), model_opsets.get(domain)
    if fv is None or mv is None or fv == mv:
        return
    a = schemas.bind_version(domain, node.op_type, fv)
    b = schemas.bind_version(domain, node.op_type, mv)
    if a is None and b is None:
        return
    if a is None or b is None or a.since_version != b.since_version:
        out.add("function.opset-mismatch", npath,
                f"the function imports {domain or 'ai.onnx'} {fv} but the model {mv}; "
                f"{node.op_type} differs between the two")


def _callees(nodes, keys) -> set:
    found = set()
    for node in nodes:
        k = (node.domain, node.op_type, node.overload)
        if k in keys:
            found.add(k)
        for a in node.attribute:
            if a.HasField("g"):
                found |= _callees(a.g.node, keys)
            for g in a.graphs:
                found |= _callees(g.node, keys)
    return found


def _check_recursion(model, out) -> None:
    by_key = {function_key(f): f for f in model.functions}
    calls = {k: _callees(f.node, by_key) for k, f in by_key.items()}
    state = {}
    reported = set()

    def visit(k, stack):
        state[k] = 1
        stack.append(k)
        for c in calls[k]:
            if state.get(c) == 1:
                cycle = stack[stack.index(c):]
                if frozenset(cycle) not in reported:
                    reported.add(frozenset(cycle))
                    names = " -> ".join(x[1] for x in cycle + [c])
                    out.add("function.recursive", paths.function(c[1], c[2]),
                            f"functions call each other in a cycle ({names}); functions must not recurse")
            elif c not in state:
                visit(c, stack)
        stack.pop()
        state[k] = 2

    for k in by_key:
        if k not in state:
            visit(k, [])


def check_training_info(model, main_scope: Scope, ctx, out) -> None:
    if len(model.training_info) and ctx.ir_version and ctx.ir_version < 7:
        out.add("model.feature-too-new", "training_info",
                f"training_info needs IR version 7; the model declares {ctx.ir_version}")
    initializers = {t.name for t in model.graph.initializer} | {s.values.name for s in model.graph.sparse_initializer}
    tctx = ctx.nested()
    for k, ti in enumerate(model.training_info):
        tpath = f"training_info[{k}]"
        produced = {}
        for part in ("initialization", "algorithm"):
            if ti.HasField(part):
                g = getattr(ti, part)
                # Training graphs see the inference graph's names as outer scope.
                check_graph(g, f"{tpath}/{part}", tctx, out, main_scope)
                produced[part] = {o.name for o in g.output} | {o for n in g.node for o in n.output if o}
        for field, part in (("initialization_binding", "initialization"), ("update_binding", "algorithm")):
            keys = set()
            for b in getattr(ti, field):
                where = f"{tpath}/{field} {paths.quote(b.key)}"
                # The rules tell it for a loaded model too: the IR keeps training_info as read.
                damaged_text(where, [label for label, text in (("key", b.key), ("value", b.value))
                                     if text.__class__ is bytes], out)
                if b.key in keys:
                    out.add("training.binding-duplicate", where, f"initializer {paths.shown(b.key)} is bound twice")
                keys.add(b.key)
                if b.key not in initializers:
                    out.add("training.binding-key", where,
                            f"{paths.shown(b.key)} is not an initializer of the main graph")
                if b.value not in produced.get(part, ()):
                    out.add("training.binding-value", where,
                            f"{paths.shown(b.value)} is not an output of the {part} graph")
