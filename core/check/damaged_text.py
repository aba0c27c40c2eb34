"""Text the file held as invalid UTF-8, for a check of an IR model.

Protobuf hands back bytes for a string field that is not UTF-8; the IR
holds str with U+FFFD in their place (ir/text.py), and so does the file
form serde writes for the checker, where the rules would see valid text.
The file's bytes stay in the source messages the IR keeps, so this module
reads the damage there once per full check (`DamagedText.read`) and says it
with the rules' own labels and words (text_rules.py, and
`graph_rules.check_names` for the names a graph defines) for as long as the
IR still holds that text: a renamed value, a node given another op_type or
a producer name set anew is no longer damaged.

Only a graph or function holding U+FFFD in a name, field or attribute name
is looked up in the sources, so a sound model costs one substring search
per graph over its joined text, gathered during the walk over its graphs
that finding them takes anyway.
"""
from __future__ import annotations

from ..diagnostics import Collector
from ..ir.text import as_text
from ..schemas import canonical_domain
from . import paths
from .graph_rules import check_names
from .text_rules import (FUNCTION_FIELDS, MODEL_TEXT_FIELDS, NAME, NODE_FIELDS, attribute_label, damaged_text,
                         metadata_label, opset_label, value_label)

_MARK = "\ufffd"
_GRAPH_KINDS = (5, 10)      # AttrType.GRAPH, GRAPHS


def _marked_graphs(top) -> list:
    """The graphs under `top` (itself included) whose name, value names,
    nodes' op_type, domain and name, or attributes' names hold U+FFFD."""
    marked = []
    stack = [top]
    while stack:
        g = stack.pop()
        text = [g.name]
        text += g.values()
        for node in g.nodes:
            text.append(node.op_type + node.domain + node.name)
            attrs = node.attributes
            if attrs:
                # Their names (a ref_attr_name the rules see in the file form themselves).
                holds_graph = False
                for a in attrs.values():
                    text.append(a.name)
                    holds_graph = holds_graph or a.type in _GRAPH_KINDS
                if holds_graph:
                    stack.extend(sub for _, sub in node.subgraphs())
        # One C-level search over everything the graph names.
        if _MARK in "".join(text):
            marked.append(g)
    return marked


def _defined_here(v, g) -> bool:
    """Whether graph `g` itself defines value `v` (graph_rules' `defs`)."""
    return v.graph is g and _defined(v)


def _defined(v) -> bool:
    return v.producer is not None or v.const is not None or v.is_graph_input


def _graph_path(g) -> str:
    owner = g.owner
    if owner is not None and getattr(owner, "is_function", False):
        return paths.function(owner.name, owner.overload)
    return g.path


def _damaged(names) -> set:
    return {as_text(n) for n in names if n.__class__ is bytes}


class _NodeText:
    """A node whose message held bytes: its own fields and attributes'
    names (one finding at the node), its inputs' names (one at each input
    that nothing defines; a defined name is told where it is defined)."""

    def __init__(self, node, src):
        self.node = node
        self.fields = [(field, as_text(getattr(src, field))) for field in NODE_FIELDS
                       if getattr(src, field).__class__ is bytes]
        # Attribute names (a ref_attr_name stays in the message the file
        # form copies for an unedited attribute: attr_rules tells it there).
        self.attrs = [(attribute_label(a.name), as_text(a.name)) for a in src.attribute if a.name.__class__ is bytes]
        self.inputs = _damaged(src.input)

    def __bool__(self) -> bool:
        return bool(self.fields or self.attrs or self.inputs)

    def report(self, gpath, out) -> None:
        node = self.node
        labels = [field for field, text in self.fields if getattr(node, field) == text]
        labels += [label for label, name in self.attrs if name in node.attributes]
        npath = paths.node(gpath, node.index, node.op_type, node.name)
        damaged_text(npath, labels, out)
        if self.inputs:
            for k, v in enumerate(node.inputs):
                if v is not None and v.name in self.inputs and not _defined(v):
                    damaged_text(paths.node_input(npath, k, v.name), [NAME], out)


class _GraphText:
    """A graph whose messages held bytes: its name, the names it defines
    (check_names' summary), its sparse initializers, its outputs and
    value_info entries naming what it does not define, and its nodes."""

    def __init__(self, g):
        self.g = g
        src = g.source
        self.name = as_text(src.name) if src is not None and src.name.__class__ is bytes else None
        self.defined = []
        self.outputs = self.value_info = self.sparse = set()
        if src is not None:
            self.defined = [as_text(n) for n in _source_names(src) if n.__class__ is bytes]
            self.outputs = _damaged(vi.name for vi in src.output)
            self.value_info = _damaged(vi.name for vi in src.value_info)
            self.sparse = _damaged(sp.values.name for sp in src.sparse_initializer)
        self.nodes = [t for t in (_NodeText(node, node.source) for node in g.nodes if node.source is not None) if t]

    def __bool__(self) -> bool:
        return bool(self.name is not None or self.defined or self.outputs or self.value_info or self.sparse
                    or self.nodes)

    def report(self, out) -> None:
        g = self.g
        gpath = _graph_path(g)
        if self.name is not None and g.name == self.name:
            damaged_text(gpath, ["name"], out)
        if self.defined:
            here = set(_defined_names(g))
            held = [t for t in self.defined if t in here]
            if held:
                check_names((0, [], held), gpath, out)
        for name in g.sparse_initializers if self.sparse else ():
            if name in self.sparse:
                damaged_text(paths.initializer(gpath, name, sparse=True), [NAME], out)
        if self.outputs:
            for k, v in enumerate(g.outputs):
                if v.name in self.outputs and not _defined_here(v, g):
                    damaged_text(paths.graph_output(gpath, k, v.name), [NAME], out)
        if self.value_info:
            for v in g.value_info:
                if v.name in self.value_info and not _defined_here(v, g):
                    damaged_text(paths.value_info(gpath, v.name), [NAME], out)
        for t in self.nodes:
            if t.node.graph is g:
                t.report(gpath, out)


class _FunctionText:
    """A function whose message held bytes in its own fields, opset
    domains, attribute names or value names (function_rules.function_text)."""

    def __init__(self, f):
        self.f = f
        src = f.source
        self.items = []      # (label, held(f))
        for field in FUNCTION_FIELDS:
            raw = getattr(src, field)
            if raw.__class__ is bytes:
                self.items.append((field, lambda f, field=field, text=as_text(raw): getattr(f, field) == text))
        for op in src.opset_import:
            if op.domain.__class__ is bytes:
                domain = canonical_domain(as_text(op.domain))
                self.items.append((opset_label(op.domain), lambda f, d=domain: d in f.opset_imports))
        for a in [*src.attribute, *(a.name for a in src.attribute_proto)]:
            if a.__class__ is bytes:
                text = as_text(a)
                self.items.append((attribute_label(a),
                                   lambda f, t=text: t in f.attributes or t in f.attribute_defaults))
        names = list(src.input)
        for node in src.node:
            names += node.output
        names += src.output
        for n in names:
            if n.__class__ is bytes:
                self.items.append((value_label(n), lambda f, t=as_text(n): f.graph.get_value(t) is not None))

    def report(self, out) -> None:
        f = self.f
        damaged_text(paths.function(f.name, f.overload), [label for label, held in self.items if held(f)], out)


def _function_marked(f) -> bool:
    text = [f.name, f.domain, f.overload, *f.attributes, *f.attribute_defaults, *f.opset_imports]
    text += f.graph.values()
    return _MARK in "".join(text)


def _defined_names(g) -> list:
    """The names a graph defines, in the order graph_rules lists them:
    inputs, dense initializers, node outputs."""
    names = [v.name for v in g.inputs]
    names += list(g.initializers)
    for node in g.nodes:
        names += [v.name for v in node.outputs if v is not None]
    return names


def _source_names(src) -> list:
    names = [vi.name for vi in src.input]
    names += [t.name for t in src.initializer]
    for node in src.node:
        names += list(node.output)
    return names


class DamagedText:
    """What the file held as invalid UTF-8, kept with the text the IR made
    of it; `findings(model)` says what of it the model still holds."""

    def __init__(self, model_text: list, graphs: list, functions: list):
        self._model_text = model_text   # [(label, held(model))]
        self._graphs = graphs           # [_GraphText]
        self._functions = functions     # [_FunctionText]

    @classmethod
    def read(cls, model) -> "DamagedText":
        model_text = []
        src = model.source
        if src is not None:
            for field in MODEL_TEXT_FIELDS:
                raw = getattr(src, field)
                if raw.__class__ is bytes:
                    model_text.append((field, lambda m, field=field, text=as_text(raw): getattr(m, field) == text))
            for op in src.opset_import:
                if op.domain.__class__ is bytes:
                    domain = canonical_domain(as_text(op.domain))
                    model_text.append((opset_label(op.domain), lambda m, d=domain: d in m.opset_imports))
            for e in src.metadata_props:
                if e.key.__class__ is bytes or e.value.__class__ is bytes:
                    key, value = as_text(e.key), as_text(e.value)
                    model_text.append((metadata_label(e.key),
                                       lambda m, k=key, v=value: m.metadata_props.get(k) == v))
        tops = [model.graph]
        functions = []
        for f in model.functions.values():
            if f.source is not None and _function_marked(f):
                functions.append(_FunctionText(f))
            tops.append(f.graph)
        graphs = [t for t in (_GraphText(g) for top in tops for g in _marked_graphs(top)) if t]
        return cls(model_text, graphs, functions)

    def __bool__(self) -> bool:
        return bool(self._model_text or self._graphs or self._functions)

    def findings(self, model) -> list:
        """The findings for the damaged text `model` still holds."""
        if not self:
            return []
        out = Collector()
        damaged_text("model", [label for label, held in self._model_text if held(model)], out)
        if self._graphs:
            tops = [model.graph, *(f.graph for f in model.functions.values())]
            graphs = {g for top in tops for g in top.walk()}
            for t in self._graphs:
                if t.g in graphs:
                    t.report(out)
        functions = set(model.functions.values()) if self._functions else ()
        for t in self._functions:
            if t.f in functions:
                t.report(out)
        return out.items
