"""The graph driver: walks a model in topological order, runs each node's rule,
folds small constant shape arithmetic and keeps partly symbolic shape tensors.

Inferred types live in the `Inference` object (keyed by `ir.Value`), never in
the model unless `write()` is called, so inference can run on a model that is
being edited and re-run only downstream of a change (`update`).
"""
from __future__ import annotations

from types import MappingProxyType
from typing import Iterable, Optional

import numpy as np

# One Diagnostic type for the whole core, so the problems panel lists the
# checker's and inference's findings alike.
from .. import gc_policy
from ..diagnostics import INFO, WARNING, Diagnostic
from ..ir.dtypes import DataType, from_numpy_dtype
from ..ir.nesting import top_level_node
from ..ir.types import TensorType
from . import (ops_contrib, ops_contrib_fused, ops_contrib_llm, ops_control, ops_elementwise,  # noqa: F401  (register rules)
               ops_experimental, ops_index, ops_misc, ops_ml, ops_nn, ops_reduce, ops_sequence, ops_shape)
from .call_types import CallTypes
from .context import NodeContext, find_rule
from .fallback import schema_output_types
from .folding import MAX_FOLD_ELEMENTS, fold
from .fresh import FreshSymbols, any_size, as_written, declared_names
from .merge import merge_types

_MISSING = object()
_LATEST = 10 ** 6          # a domain the model does not import: use the newest rule
_MAX_FUNCTION_DEPTH = 8      # recursive functions are invalid; this bounds the work


class InferenceResult(dict):
    """Value name -> type for the main graph, plus the run's diagnostics."""

    def __init__(self, types: dict, diagnostics: list):
        super().__init__(types)
        self.diagnostics = diagnostics


class Inference:
    """Type and shape inference over one model, re-runnable after edits."""

    def __init__(self, model):
        self.model = model
        self.types: dict = {}        # Value -> Type
        self.consts: dict = {}       # Value -> small numpy array
        self.syms: dict = {}         # Value -> tuple of dims (partly symbolic shape tensor)
        self._diags: dict = {}       # Node -> [Diagnostic]
        # Node -> [(code, message)]: contradictions its rule found (ctx.error),
        # reported by the checker as errors at the node's current path.
        self.errors: dict = {}
        self._rule_cache: dict = {}
        self._attr_scopes: list[dict] = []
        self._opset_stack: list[dict] = []
        self._const_checked: set = set()
        self.fresh = FreshSymbols()  # names for unknown dims, stable across update()
        # Value -> (declared type, derived type, what differs): declarations
        # that contradict what the producer (node, initializer, caller) gives.
        self.contradictions: dict = {}
        self.nodes_inferred = 0      # rule evaluations so far (shows what update() saved)
        self.previous: dict = {}     # see update()
        self._functions = None       # the model's functions, read once per run / update
        # What each call gave its function's body; the body's values show
        # what holds for every call (call_types.py).
        self.calls = CallTypes()
        # Value of the main graph -> the main-graph nodes holding a body that
        # gives it back as one of its outputs, or None until first needed
        # (see _holders_giving_back).
        self._given_back: Optional[dict] = None

    # --- public API ----------------------------------------------------------------
    def run(self) -> InferenceResult:
        self.types.clear()
        self.consts.clear()
        self.syms.clear()
        self._diags.clear()
        self.errors.clear()
        self._const_checked.clear()
        self.contradictions.clear()
        self.calls.clear()
        self._given_back = None
        self.fresh.avoid(*declared_names(self.model.graph))
        self._functions = self.model.functions.snapshot()   # a dict: looked up per node
        # The walk allocates many small short-lived objects but no reference
        # cycles; pausing the cyclic collector (which would otherwise traverse
        # the whole IR again and again) halves the time on large models.
        # Through gc_policy: turning it back on here by itself would undo a
        # worker job's hold on it (the walk runs in the analysis job).
        with gc_policy.paused():
            self._infer_graph(self.model.graph, self.model.opset_imports)
        self.calls.settle(self.types)
        return self.result()

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [d for ds in self._diags.values() for d in ds]

    def type_of(self, value):
        t = self.types.get(value, _MISSING)
        if t is _MISSING:
            # Initializers are typed on first use: most are weights that only
            # one node reads, and typing them up front costs a pass of its own.
            if value.const is not None:
                t = self.types[value] = self._source_type(value)
            else:
                t = value.type
        return t

    def types_in(self, graph) -> dict:
        """Value name -> type for every value a graph defines."""
        out = {}
        for v in graph.inputs:
            out[v.name] = self.type_of(v)
        for v in graph.initializers.values():
            out.setdefault(v.name, self.type_of(v))
        for node in graph.nodes:
            for v in node.outputs:
                if v is not None:
                    out[v.name] = self.type_of(v)
        return out

    def result(self) -> InferenceResult:
        return InferenceResult(self.types_in(self.model.graph), self.diagnostics)

    def apply(self, changes) -> Optional[set]:
        """Bring inference up to date after edits that recorded what they
        touched in `changes` (core.changes.Changes): the Values whose type
        moved (`type_before_update` gives what they had), or None after a
        full run (a new IR version or opset import moves everything)."""
        if changes.changes_every_verdict:
            self.run()
            return None
        from .changes import affected  # noqa: PLC0415
        main = self.model.graph
        if changes.structural or any(g is not main for g in changes.graphs) or any(
                n.subgraphs() for n in changes.nodes_changed):
            self._given_back = None     # a body, or what it gives back, may have changed
        nodes, values, removed = affected(self.model, changes)
        self.forget(removed)
        return self.update(nodes=nodes, values=values)

    def forget(self, removed_nodes: Iterable) -> None:
        """Drop what inference holds about nodes removed from the model and
        the values only they defined."""
        for n in removed_nodes:
            self._diags.pop(n, None)
            self.errors.pop(n, None)
            self.calls.drop(n)
            for v in n.outputs:
                if v is not None and (v.producer is None or v.producer is n):
                    self.types.pop(v, None)
                    self.consts.pop(v, None)
                    self.syms.pop(v, None)
                    self.contradictions.pop(v, None)

    def type_before_update(self, value):
        """The type `value` had before the last `update` or `apply` moved it
        (None when it had none)."""
        return self.previous.get(value)

    def declarations_contradicted(self) -> dict:
        """{Value: (declared type, derived type, what differs)}: declarations
        that contradict what the producer gives (read only)."""
        return MappingProxyType(self.contradictions)

    def update(self, nodes: Iterable = (), values: Iterable = ()) -> set:
        """Re-infer after an edit: `nodes` whose attributes/inputs changed and
        `values` whose declared type or data changed (e.g. an input dim).

        Only nodes downstream of the change run again, and propagation stops
        where a node's outputs come out as before. Returns the changed Values.
        """
        main = self.model.graph
        # Nothing moves nodes during an update, so `Node.index` stays a cheap
        # read. The node to infer next is always the first pending one in
        # graph order (a valid graph is in topological order), found with a
        # scan in C.
        order = main.nodes
        pending = bytearray(len(order))
        cursor = len(order)             # no pending node before it
        # Value -> its type before this update, for the changed ones (a
        # caller that sees only part of a type, e.g. the checker's element
        # types, tells from it whether the change concerns it).
        previous = self.previous = {}

        def push(node):
            nonlocal cursor
            top = node if node.graph is main else top_level_node(node, main)
            if top is None:
                raise _FullRerun
            i = top.index
            if not pending[i]:
                pending[i] = 1
                if i < cursor:
                    cursor = i

        try:
            given_back = self._holders_giving_back()
            for v in values:
                if self.fresh.declares_new(v.type, v.is_graph_input):
                    raise _FullRerun    # a name of ours ("?N", an input dim's) the names must now avoid
                old_type = self.types.get(v, _MISSING)
                self.consts.pop(v, None)
                self.syms.pop(v, None)
                self._const_checked.discard(v)
                if v.producer is not None:
                    push(v.producer)
                elif v.graph is not main:
                    # A subgraph's input or initializer: typed when its holder runs.
                    holder = v.graph.parent_node if v.graph is not None else None
                    if holder is None:
                        raise _FullRerun
                    push(holder)
                elif v.is_graph_input:
                    if v.const is None:
                        self.contradictions.pop(v, None)
                    self.types[v] = self._input_type(v, self._source_type(v))
                else:
                    # An initializer (typed on first use, as in a full run), or
                    # a name nothing defines any more.
                    self.types.pop(v, None)
                    self.contradictions.pop(v, None)
                previous.setdefault(v, old_type)
                for user, _ in v.uses:
                    push(user)
                for holder in given_back.get(v, ()):
                    push(holder)
            for n in nodes:
                push(n)
            # In a valid (acyclic) graph every node runs at most once; a cyclic
            # one could feed changes around forever, so past that, start over.
            budget = len(order) + 1
            opsets = self.model.opset_imports
            self._functions = self.model.functions.snapshot()   # a dict: looked up per node
            self.calls.new_pass()
            moved: list = []            # (output, its type before) whose result changed
            while True:
                i = pending.find(1, cursor)
                if i < 0:
                    break
                budget -= 1
                if budget < 0:
                    raise _FullRerun
                pending[i] = 0
                cursor = i + 1
                moved.clear()
                if self._functions:
                    self._infer_main_node(order[i], opsets, moved)
                else:
                    self._infer_node(order[i], opsets, moved)
                for v, old_type in moved:
                    if v not in previous:
                        previous[v] = old_type
                    for user, _ in v.iter_uses():
                        # push(user), written out for the main graph: this
                        # loop runs once per use of every moved value
                        if user.graph is main:
                            j = user.index
                            if not pending[j]:
                                pending[j] = 1
                                if j < cursor:
                                    cursor = j
                        else:
                            push(user)
                    for holder in given_back.get(v, ()):
                        push(holder)
            for v, old_type in self.calls.settle(self.types):
                previous.setdefault(v, old_type)
        except _FullRerun:
            old = dict(self.types)
            self.run()
            self.previous = old
            return {v for v, t in self.types.items() if old.get(v, _MISSING) != t}
        return set(previous)            # every changed value has its entry

    def _holders_giving_back(self) -> dict:
        """{main-graph Value: main-graph nodes holding a body that lists it
        as one of the body's own outputs}. A body may give an outer value
        back as it is (an If branch whose output is `o` itself); that is no
        use of `o` (no node reads it), so use lists do not lead from `o`'s
        new type to the holder, whose outputs take their types from the
        body's. Built with one walk, kept until an edit touches a body or
        the graph's structure (apply)."""
        found = self._given_back
        if found is None:
            found = {}
            main = self.model.graph
            for g in main.walk():
                if g is main:
                    continue
                for v in g.outputs:
                    if v is not None and v.graph is main:
                        top = top_level_node(g.parent_node, main) if g.parent_node is not None else None
                        if top is not None:
                            found.setdefault(v, []).append(top)
            self._given_back = found
        return found

    def written_copy(self):
        """(a copy of the model with the inferred types stored, how many were
        stored). The copy is `Model.clone()` (weights shared); a value whose
        type moved gets it, in a new value_info entry unless it is declared
        already or is a graph output. The model inferred is left alone:
        every change to it goes through an Edit."""
        copies: dict = {}
        copy = self.model.clone(copies)
        n = 0
        for g in self.model.graph.walk():
            for node in g.nodes:
                for v in node.outputs:
                    if v is None or v in g.inputs:
                        continue
                    t = as_written(self.types.get(v))
                    if t is None or t == v.type:
                        continue
                    c = copies[id(v)]
                    c.type = t          # the copy is ours until returned
                    n += 1
                    home = c.graph
                    if c not in home.value_info and not c.is_graph_output:
                        home.insert_declaration("value_info", len(home.value_info), c)
        return copy, n

    # --- subgraphs and functions (called by rules) ------------------------------------
    def infer_subgraph(self, graph, input_types: list) -> list:
        opsets = self._opset_stack[-1] if self._opset_stack else self.model.opset_imports
        return self._infer_graph(graph, opsets, input_types)

    # --- the walk -------------------------------------------------------------------
    def _infer_graph(self, g, opsets, input_types=None) -> list:
        self._opset_stack.append(opsets)
        try:
            for i, v in enumerate(g.inputs):
                # An input with a default (initializer) takes the data's shape.
                t = v.type if v.const is None else self._source_type(v)
                if input_types is not None and i < len(input_types):
                    given = input_types[i]
                    t, conflict = merge_types(given, any_size(t))
                    self._contradiction(v, conflict, given)
                self.types[v] = self._input_type(v, t)
            # Other initializers are typed lazily (type_of).
            if g is self.model.graph and self._functions:
                for node in g.nodes:
                    self._infer_main_node(node, opsets)
            else:
                for node in g.nodes:
                    self._infer_node(node, opsets)
            return [self.type_of(v) for v in g.outputs]
        finally:
            self._opset_stack.pop()

    def _infer_main_node(self, node, opsets, moved=None) -> None:
        # A main-graph node of a model with functions: what the calls under
        # it give function bodies replaces what they gave before.
        self.calls.begin(node)
        try:
            self._infer_node(node, opsets, moved)
        finally:
            self.calls.end(node)

    def _input_type(self, v, t):
        # A graph input's "any size" dims get names, so what flows from the
        # same input dim stays visibly the same; the main graph's are named
        # after the input and axis (`x.2`) and written to files (fresh.py).
        t = any_size(t)
        if self._attr_scopes:
            return t
        return self.fresh.fill(v, t, v.name if v.graph is self.model.graph else None)

    def _source_type(self, v):
        c = v.const
        if c is None:
            return v.type
        shape = tuple(getattr(c, "shape", None) or getattr(c, "dims", ()) or ())
        dtype = getattr(c, "dtype", None)
        if dtype is None and getattr(c, "values", None) is not None:
            dtype = c.values.dtype
        t = TensorType(int(dtype or 0), shape)
        merged, conflict = merge_types(t, any_size(v.type))
        self._contradiction(v, conflict, t)
        return merged

    def _const(self, v) -> Optional[np.ndarray]:
        c = self.consts.get(v)
        if c is not None or v.const is None or v in self._const_checked:
            return c
        self._const_checked.add(v)
        t = v.const
        # From IR version 4 on, an initializer that is also a graph input is
        # only a default the caller may override: not a constant.
        if v.producer is not None or not hasattr(t, "numpy") or (
                self.model.ir_version >= 4 and v.is_graph_input):
            return None
        n = 1
        for d in t.shape:
            n *= d
        if n > MAX_FOLD_ELEMENTS:
            return None
        try:
            arr = np.asarray(t.numpy())
        except Exception:  # noqa: BLE001 - undecodable data: the checker reports it
            return None
        self.consts[v] = arr
        return arr

    def _attrs(self, node) -> dict:
        out = {}
        for name, a in node.attributes.items():
            if a.ref_attr_name:
                if self._attr_scopes:
                    scope = self._attr_scopes[-1]
                    if a.ref_attr_name in scope:
                        out[name] = scope[a.ref_attr_name]
                elif a.value is not None:
                    # A reference outside any function is the checker's
                    # error; onnx and onnxruntime read the value beside it,
                    # and so does inference (read as absent, the default
                    # would give shapes they do not).
                    out[name] = a.value
            else:
                out[name] = a.value
        return out

    def _rule(self, domain, op_type, opset):
        key = (domain, op_type, opset)
        fn = self._rule_cache.get(key, _MISSING)
        if fn is _MISSING:
            fn = self._rule_cache[key] = find_rule(domain, op_type, opset)
        return fn

    def _infer_node(self, node, opsets, moved=None) -> None:
        """Infer one node and store its outputs; with a list `moved`, append
        (output, type before) for each output whose type, constant value or
        symbolic value changed (update follows those)."""
        # Once per node of every run and update: locals over attribute reads,
        # and no call where a test does.
        self.nodes_inferred += 1
        domain = node.domain
        if domain == "ai.onnx":             # opsets.canonical_domain, inlined
            domain = ""
        opset = opsets.get(domain) or _LATEST
        op_type = node.op_type
        types, consts, syms = [], {}, {}
        all_const = True
        known_types, known_consts, known_syms = self.types, self.consts, self.syms
        inputs = node.inputs
        for i, v in enumerate(inputs):
            if v is None:
                types.append(None)
                continue
            t = known_types.get(v, _MISSING)
            types.append(self.type_of(v) if t is _MISSING else t)
            c = known_consts.get(v)
            if c is None and v.const is not None and v not in self._const_checked:
                c = self._const(v)
            if c is not None:
                consts[i] = c
            else:
                all_const = False
                sv = known_syms.get(v)
                if sv is not None:
                    syms[i] = sv
        try:
            attrs = self._attrs(node) if node.attributes else {}
        except Exception:  # noqa: BLE001 - an attribute that cannot be decoded: the checker reports it
            attrs = {}
        if self._diags:
            self._diags.pop(node, None)
        if self.errors:
            self.errors.pop(node, None)
        outs = None
        functions = self._functions
        if functions is None:
            functions = self.model.functions
        function = functions.get((node.domain, op_type, node.overload)) if functions else None
        outputs = node.outputs
        n_outputs = len(outputs)
        ctx = NodeContext(op_type, domain, opset, attrs, types, n_outputs,
                          consts, syms, node, self, inputs)
        try:
            if function is not None:
                outs = self._infer_call(function, types, attrs)
            else:
                fn = self._rule_cache.get((domain, op_type, opset), _MISSING)
                if fn is _MISSING:
                    fn = self._rule(domain, op_type, opset)
                if fn is None:
                    self._note(node, INFO, "infer.unknown-op",
                               f"no inference rule for {domain or 'ai.onnx'}::{op_type} "
                               f"(opset {opset if opset != _LATEST else 'not imported'}); outputs left unknown")
                else:
                    outs = fn(ctx)
        except Exception as exc:  # noqa: BLE001 - a bad model must never stop inference
            self._note(node, INFO, "infer.failed",
                       f"could not infer {op_type}: {type(exc).__name__}: {exc}")
            outs = None
        if ctx.errors is not None and not self._attr_scopes:
            # Function bodies are inferred once per call: a finding there
            # belongs to a call, not to the body's node.
            self.errors[node] = ctx.errors
        if function is None and (not outs or not all(outs)) and outputs:
            outs = self._with_schema_types(domain, op_type, opset, types, outs, n_outputs)
        folded = None
        if all_const and consts and function is None and _small_outputs(outs):
            try:
                folded = fold(op_type, domain, opset, [consts.get(i) for i in range(len(types))],
                              attrs, n_outputs)
            except Exception:  # noqa: BLE001 - constant folding is optional
                folded = None       # the kernel refuses: keep the rule's answer
        self._store_outputs(node, outputs, outs or (), ctx, folded, moved)

    def _store_outputs(self, node, outputs, outs, ctx, folded, moved=None) -> None:
        n_outs = len(outs)
        consts, syms, types = self.consts, self.syms, self.types
        out_consts, out_syms = ctx.out_consts, ctx.out_syms
        # Most nodes give neither folded values nor shape-tensor entries.
        plain = folded is None and not out_consts and not out_syms
        name_unknowns = not self._attr_scopes
        for i, v in enumerate(outputs):
            if v is None:
                continue
            t = outs[i] if i < n_outs else None
            old_t = types.get(v)
            old_c = consts.pop(v, None) if consts else None
            old_s = syms.pop(v, None) if syms else None
            c = s = None
            if not plain:
                arr = folded[i] if folded is not None and i < len(folded) else out_consts.get(i)
                if arr is not None:
                    try:
                        elem = getattr(t, "elem_type", 0) or int(from_numpy_dtype(arr.dtype))
                    except ValueError:
                        elem = getattr(t, "elem_type", 0)
                    t = TensorType(elem, tuple(arr.shape))
                    if arr.size <= MAX_FOLD_ELEMENTS:
                        c = consts[v] = arr
                elif i in out_syms:
                    s = out_syms[i]
                    if all(isinstance(d, int) for d in s):
                        # Fully known now: a constant of the output's element type.
                        scalar = isinstance(t, TensorType) and t.shape == ()
                        dtype = np.bool_ if getattr(t, "elem_type", 0) == DataType.BOOL else np.int64
                        c = consts[v] = np.array(s, dtype=dtype).reshape(() if scalar and len(s) == 1 else -1)
                        s = None
                    else:
                        syms[v] = s
            declared = v.type
            if declared is not None:
                merged, conflict = merge_types(t, any_size(declared))
                if conflict:
                    self._note(node, WARNING, "infer.conflict",
                               f"output {v.name!r}: stored type {declared} conflicts with inferred {t} ({conflict})")
                self._contradiction(v, conflict, t)
                t = merged
            elif self.contradictions:
                self.contradictions.pop(v, None)
            if name_unknowns and (type(t) is not TensorType or t.shape is not None and None in t.shape):
                t = self.fresh.fill(v, t)      # (a TensorType without a None dim comes back as is)
            types[v] = t
            # Same objects mostly; else compare as values (constants by their
            # bytes: a re-fold makes a new, equal array).
            if moved is not None and not ((t is old_t or t == old_t) and (s is old_s or s == old_s) and (
                    c is old_c or c is not None and old_c is not None and _key(c) == _key(old_c))):
                moved.append((v, old_t))

    @staticmethod
    def _with_schema_types(domain, op_type, opset, types, outs, n):
        fallback = schema_output_types(domain, op_type, opset, types, n)
        if not fallback:
            return outs
        outs = list(outs or ())
        outs += [None] * (n - len(outs))
        return [o if o is not None else f for o, f in zip(outs, fallback)]

    def _infer_call(self, function, types, attrs) -> list:
        if len(self._attr_scopes) >= _MAX_FUNCTION_DEPTH:
            raise RecursionError(f"function {function.name} nests deeper than {_MAX_FUNCTION_DEPTH}")
        scope = {name: a.value for name, a in function.attribute_defaults.items()}
        scope.update(attrs)
        opsets = dict(self.model.opset_imports)
        opsets.update(function.opset_imports)
        self._attr_scopes.append(scope)
        try:
            outs = self._infer_graph(function.graph, opsets, types)
        except Exception:
            # What this call gives its body is unknown: none of the types
            # it left behind holds for it.
            self.calls.note_body(function.graph, {})
            raise
        finally:
            self._attr_scopes.pop()
        self.calls.note_body(function.graph, self.types)
        return outs

    def _contradiction(self, v, conflict, derived) -> None:
        # Function bodies are typed per call: their declarations are judged
        # by the checker's function rules, not per call here.
        if conflict and not self._attr_scopes:
            self.contradictions[v] = (v.type, derived, conflict)
        elif self.contradictions:
            self.contradictions.pop(v, None)

    def _note(self, node, severity, code, message) -> None:
        self._diags.setdefault(node, []).append(Diagnostic(severity, code, node.path, message))


class _FullRerun(Exception):
    pass


def _small_outputs(outs) -> bool:
    """Fold only when every output is known to be small: folding is for shape
    arithmetic, never for materializing weights (ConstantOfShape, Expand...)."""
    if not outs:
        return False
    for t in outs:
        shape = getattr(t, "shape", None)
        if shape is None or any(not isinstance(d, int) for d in shape):
            return False
        n = 1
        for d in shape:
            n *= d
        if n > MAX_FOLD_ELEMENTS:
            return False
    return True


def _key(arr):
    return None if arr is None else (arr.dtype.str, arr.shape, arr.tobytes())


def infer(model) -> InferenceResult:
    """Infer every value's type (the model is not changed; for a copy with
    the types stored, see Inference.written_copy)."""
    return Inference(model).run()
