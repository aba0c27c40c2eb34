"""Rules that need the IR model, not only its file form.

- An attribute edited from Python with a value its type cannot carry (an
  INT set to "two"): the file form cannot even be written, so serde leaves
  the value out and we say why, on that attribute.
- Declarations that contradict inference: a graph output, graph input or
  value_info whose element type, rank or a known size differs from what the
  producer gives (the node that computes it, the initializer that holds it,
  the node that feeds a subgraph). Stale output shapes after hand edits are
  the typical case. Inference keeps such contradictions
  (`Inference.declarations_contradicted`); here they are pinned to the
  declaration.
- Contradictions inside the graph that inference proves from known dims
  (shapes that cannot broadcast, a rank the operator rules out, an axis
  outside the rank: `ctx.error` in core/infer). Inference keeps them per
  node (`Inference.errors`); `inferred_errors` gives them the node's
  current path: the one place they join the checker's findings.
"""
from __future__ import annotations

from ..diagnostics import CODES, ERROR, Diagnostic
from . import paths

_ATTR_KINDS = {1: "a FLOAT", 2: "an INT", 3: "a STRING", 4: "a TENSOR", 5: "a GRAPH", 6: "FLOATS", 7: "INTS",
               8: "STRINGS", 9: "TENSORS", 10: "GRAPHS", 11: "a SPARSE_TENSOR", 12: "SPARSE_TENSORS",
               13: "a TYPE_PROTO", 14: "TYPE_PROTOS"}


def _diag(code, path, message) -> Diagnostic:
    return Diagnostic(CODES[code][0], code, path, message)


def ir_to_proto(model):
    """(file form of an IR model, diagnostics for attribute values that the
    file form cannot hold). Never raises for such values."""
    from .file_form import file_form  # noqa: PLC0415
    bad = []
    proto = file_form(model, on_bad_value=lambda a, exc: bad.append(a))
    return proto, bad_value_diagnostics(model, bad)


def bad_value_diagnostics(model, attrs) -> list:
    """One finding per attribute in `attrs` (values serde could not write)
    that still belongs to a node of `model`, pinned to that attribute."""
    if not attrs:
        return []
    owners = {}
    graphs = list(model.graph.walk())
    for f in model.functions.values():
        graphs.extend(f.graph.walk())
    for g in graphs:
        for node in g.nodes:
            for a in node.attributes.values():
                owners[id(a)] = node
    diags = []
    for a in attrs:
        node = owners.get(id(a))
        if node is None:
            continue
        where = paths.attribute(node.path, a.name)
        kind = _ATTR_KINDS.get(int(a.type), f"type {int(a.type)}")
        diags.append(_diag("attr.value-not-of-type", where,
                           f"attribute {a.name!r} is {kind} but holds {_short(a.value)} "
                           f"({type(a.value).__name__}), which it cannot carry; set a value of that "
                           "type or change the attribute's type"))
    return diags


def combine(diagnostics: list, extra: list, contradictions: list = ()) -> list:
    """The checker's findings with the IR-level ones. A finding of ours
    replaces the checker's own at the same place (an attribute written
    without its value also reads as "no value")."""
    extra = list(extra) + trusted(contradictions, diagnostics + list(extra))
    if not extra:
        return diagnostics
    places = {d.path for d in extra if d.code == "attr.value-not-of-type"}
    return [d for d in diagnostics if d.path not in places] + extra


def _short(v) -> str:
    text = repr(v)
    return text if len(text) <= 40 else text[:37] + "..."


def declared_vs_inferred(model, inference) -> list:
    """[(diagnostic, path of the producer or None)]: one error per
    declaration that contradicts what inference derives."""
    found = inference.declarations_contradicted()
    if not found:
        return []
    by_id = {id(v): (v, entry) for v, entry in found.items()}
    out = []
    for g in model.graph.walk():
        gpath = g.path
        # In declaration order (inputs, outputs, value_info), so the list
        # does not depend on the order in which inference met them.
        places = [(v, paths.graph_input(gpath, k, v.name)) for k, v in enumerate(g.inputs)]
        places += [(v, paths.graph_output(gpath, k, v.name)) for k, v in enumerate(g.outputs)]
        places += [(v, paths.value_info(gpath, v.name)) for v in g.value_info]
        seen = set()
        for v, where in places:
            hit = by_id.get(id(v))
            if hit is None or id(v) in seen or v.graph is not g:
                continue
            seen.add(id(v))
            declared, derived, what = hit[1]
            source = v.producer.path if v.producer is not None else None
            out.append((_diag("graph.declared-type-contradicts", where,
                              f"declares {_type(declared)} but {_source(v)} gives {_type(derived)} "
                              f"({_difference(declared, derived, what)}); correct the declaration or remove it"),
                        source))
    return out


def inferred_errors(model, inference) -> list:
    """One error per contradiction inference found in a node of `model`, in
    graph order, each at the node's path as it is now (an insertion moves
    the indices of the nodes after it; their findings stay with them)."""
    found = inference.errors
    if not found:
        return []
    main = model.graph
    in_main, in_subgraphs = [], False
    for n in found:
        g = n.graph
        if g is main:
            in_main.append(n)
        elif g is not None:         # (None: a node removed from the model)
            in_subgraphs = True
    if in_subgraphs:
        ordered = [n for g in main.walk() for n in g.nodes if n in found]
    else:
        # The usual case: no subgraph walk, just the nodes in index order.
        ordered = sorted(in_main, key=lambda n: n.index)
    return [_diag(code, n.path, message) for n in ordered for code, message in found[n]]


def _difference(declared, derived, what) -> str:
    a, b = getattr(declared, "shape", None), getattr(derived, "shape", None)
    if what == "dimension" and a is not None and b is not None and len(a) == len(b):
        axes = [i for i, (x, y) in enumerate(zip(a, b))
                if isinstance(x, int) and isinstance(y, int) and x >= 0 and x != y]
        if axes:
            return ", ".join(f"dim {i}: {a[i]} declared, {b[i]} derived" for i in axes)
    return f"{what} differs"


def _type(t) -> str:
    shape = getattr(t, "shape", None)
    if shape is None:
        return str(t) if not hasattr(t, "elem_type") else f"{t} (rank unknown)"
    from ..infer.fresh import mentions_fresh  # noqa: PLC0415 - only with inference, which loaded it
    from ..ir.types import TensorType  # noqa: PLC0415
    if any(mentions_fresh(d) for d in shape):
        # Fresh names (`?3`) are numbered per inference run: shown as `?`,
        # the message reads the same after an edit as after a fresh load.
        t = TensorType(t.elem_type, tuple(None if mentions_fresh(d) else d for d in shape))
    return str(t)


def _source(v) -> str:
    if v.producer is not None:
        return v.producer.path
    if v.const is not None:
        return "its initializer"
    parent = v.graph.parent_node if v.graph is not None else None
    return f"{parent.path} (passing it in)" if parent is not None else "its source"



def trusted(contradictions: list, diagnostics: list) -> list:
    """The contradictions whose producer has no error of its own (on the
    node, its attributes or inputs): such a node derives nothing we should
    hold a declaration to. Errors on its outputs (a declared type outside
    the operator's constraint) do not count: they are the same story."""
    if not contradictions:
        return []
    broken = {d.path for d in diagnostics if d.severity == ERROR}
    out = []
    for diag, source in contradictions:
        if source is not None and any(p == source or p.startswith((source + "/attribute", source + "/input"))
                                      for p in broken):
            continue
        out.append(diag)
    return out
