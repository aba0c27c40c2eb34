"""An edit script from a diff: the edits that turn A into B, where the
differences are expressible as edits, and a list of those that are not.

The script names things, never positions (core/edits/base.py), so it
replays on A (or on a re-export of it) with `onnxstudio edit` or
core.edits.script. It is derived from the matching, not from the report,
so a recognised rewrite (a fold, a fusion) becomes the removals, additions
and rewirings that make it. Steps, in an order in which each applies:

0. the model's opset imports and IR version, where they differ;
1. renames of paired values and nodes (so every later step can use B's
   names); a name still held by a value that is going away is moved aside;
2. ops, domains and attributes of paired nodes;
3. weights: changed values or dtypes replaced, new ones added;
4. graph inputs added, or given B's type (a main-graph input re-shaped
   through set_input_shape, which carries the declarations it reaches);
5. nodes only B has, added in B's order;
6. paired nodes rewired to read what their partners read (an insertion on
   an edge, a bypass);
7. graph outputs set to B's; then A's leftovers removed (nodes, readers
   first; weights; inputs).

Each step is written out as JSON and read back, then applied to a clone of
A as it is derived: a step that does not apply is listed as not expressed,
and so is every difference the clone still has from B at the end, so
nothing is dropped silently.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..changes import Changes
from ..edits import (AddGraphInput, AddGraphOutput, AddInitializer, AddNode, EditError, Macro,
                     MoveProducersBefore, RemoveGraphInput, RemoveGraphOutput, RemoveInitializer, RemoveNode,
                     RenameValue, SetAttribute, SetInitializer, SetModelField, SetNodeField, SetNodeInputs,
                     SetOpsetImport, SetValueType,
                     graph_path, node_ref, set_input_shape)
from ..edits.refs import node_names_indexed
from ..errors import ExternalDataError
from ..edits.script import from_script, to_script
from ..ir import AttrType, Model, type_name
from ..ir.types import TensorType
from ..serde.codec import TensorDataError
from ..whole_file import whole_file
from .changes import node_change, weight_change
from .match import first_declarations
from .model_diff import ModelDiff, declared_type, diff_models
from .signature import unreadable_reason
from .report import node_label, summary_lines

_GRAPH_ATTRS = (AttrType.GRAPH, AttrType.GRAPHS)


@dataclass
class DerivedScript:
    script: list = field(default_factory=list)            # JSON-able edits (core.edits.script)
    not_expressed: list = field(default_factory=list)     # one line per difference left out

    @property
    def complete(self) -> bool:
        return not self.not_expressed


def derive_script(diff: ModelDiff, *, verify: bool = True,
                  check: Callable[[], None] = lambda: None) -> DerivedScript:
    """The edits turning `diff`'s A into its B (A and B are only read).
    With `verify`, the clone the steps were applied to is compared with B
    once more and what still differs is listed as not expressed."""
    return _Deriver(diff, check).run(verify)


class _Deriver:
    def __init__(self, diff: ModelDiff, check):
        self.d, self.m, self.check = diff, diff.matching, check
        self.a, self.b = self.m.a, self.m.b
        ids: dict = {}
        self.work: Model = self.a.clone(ids)
        self.values = ids                                  # id(value of A) -> value of the clone
        self.graphs, self.nodes = {}, {}                   # A's graph/node -> the clone's
        for ga, gw in zip(self.a.graph.walk(), self.work.graph.walk()):
            self.graphs[ga] = gw
            self.nodes.update(zip(ga.nodes, gw.nodes))
        self.out = DerivedScript()
        self.names = None                                  # the clone's node names, while run() derives

    # -- applying ------------------------------------------------------------------------

    def apply(self, edit, what: str) -> bool:
        """Write `edit` as JSON, read it back, apply it to the clone; False
        (and listed) when it does not apply."""
        try:
            spec = to_script([edit])
            replayed = from_script(spec)[0]
            changes = Changes()
            if self.names is not None:
                self.names.follow(changes)
            try:
                replayed.apply(self.work, changes)
            except BaseException:
                # A compound step rolled back records nothing of it.
                if self.names is not None:
                    self.names.forget()
                raise
        except EditError as e:
            self.out.not_expressed.append(f"{what}: {e}")
            return False
        except (ExternalDataError, TensorDataError) as e:
            # A tensor of B's (a node's attribute, an added node's) whose data
            # cannot be read: the script cannot carry its values.
            self.out.not_expressed.append(f"{what}: values not set: B's data cannot be read: {e}")
            return False
        except (ValueError, TypeError, KeyError) as e:
            # A value the script format cannot carry (an attribute or tensor of a kind it does not write).
            self.out.not_expressed.append(f"{what}: cannot be written as an edit ({type(e).__name__}: {e})")
            return False
        self.out.script += spec
        return True

    def free(self, gw, name: str, keep=None) -> None:
        """Move a value of the clone out of the way of `name` (it is going away)."""
        v = gw.get_value(name)
        if v is not None and v is not keep and v.graph is gw:
            self.apply(RenameValue(name, gw.unique_name(f"{name}__old"), graph_path(gw)),
                       f"moving {name!r} aside")

    # -- the steps -----------------------------------------------------------------------

    def run(self, verify: bool) -> DerivedScript:
        # Thousands of steps each name a node of the clone: by index, not a pass over its graph.
        with node_names_indexed(self.work) as names:
            self.names = names
            try:
                return self._run(verify)
            finally:
                self.names = None

    def _run(self, verify: bool) -> DerivedScript:
        pairs = [(ga, gb, self.graphs.get(ga)) for ga, gb in self.m.graphs]
        for ga, gb, gw in pairs:
            if gw is None:
                self.out.not_expressed.append(f"{ga.path}: edits cannot reach this graph (a function body)")
        pairs = [p for p in pairs if p[2] is not None]
        self.model_fields()
        for step in (self.renames, self.node_fields, self.weights, self.inputs, self.added_nodes,
                     self.rewiring, self.outputs, self.removals):
            for ga, gb, gw in pairs:
                step(ga, gb, gw)
            self.check()
        if verify:
            self.out.not_expressed += _still_different(self.work, self.b, self.check)
        return self.out

    def model_fields(self) -> None:
        for c in self.d.model_fields:
            if c.field == "opset_import":
                self.apply(SetOpsetImport(c.domain, c.b), f"opset import {c.domain or 'ai.onnx'}")
            else:
                self.apply(SetModelField("ir_version", c.b), "IR version")

    def renames(self, ga, gb, gw) -> None:
        for va, vb in list(self.m.values.items()):
            if va.graph is not ga or va.name == vb.name or not self._kept(va, vb):
                continue
            self._rename_value(gw, va, vb.name)
        for na, nb in self.m.nodes.items():
            if na.graph is ga:
                self._rename_slots_given_away(na, nb, gw)
        for na, nb in self.m.nodes.items():
            if na.graph is ga and na.name != nb.name:
                nw = self.nodes[na]
                self.apply(SetNodeField(node_ref(nw), "name", nb.name, graph_path(gw)),
                           f"renaming node {node_label(na)} to {nb.name}")

    def _rename_slots_given_away(self, na, nb, gw) -> None:
        """An output of a paired node whose value pair does not follow the
        node pair takes the name of its partner's output at that slot: A's
        value stays this node's output. Two cases: a node appended at a graph
        output (a QuantizeLinear/DequantizeLinear pair, a post-processing
        step) takes the output's name in B and the paired node's output gets
        a new one, which pairs with nothing; and a value paired as the input
        of a node paired by name before its own producer was, when B swapped
        the names of nodes (the producers then paired otherwise: no rename
        of the value pairs would give B's name to anyone)."""
        for oa, ob in zip(na.outputs, nb.outputs):
            if oa is None or ob is None or oa.name == ob.name:
                continue
            taker = self.m.values_back.get(ob)
            if taker is not None and self._kept(taker, ob):
                continue
            partner = self.m.values.get(oa)
            if partner is not None and self._kept(oa, partner):
                continue
            self._rename_value(gw, oa, ob.name)

    def _rename_value(self, gw, va, name: str) -> None:
        """Give the working copy of A's value `va` the name `name`, freeing
        that name first if another value holds it."""
        wv = self.values.get(id(va))
        if wv is None:
            return
        self.free(gw, name, keep=wv)
        self.apply(RenameValue(wv.name, name, graph_path(gw)), f"renaming {va.name} to {name}")

    def _kept(self, va, vb) -> bool:
        """True when A's value stays (its producer is paired with B's) and so takes B's name."""
        pa, pb = va.producer, vb.producer
        if pa is None or pb is None:
            return pa is None and pb is None and (va.const is None) == (vb.const is None)
        return self.m.nodes.get(pa) is pb

    def node_fields(self, ga, gb, gw) -> None:
        for na, nb in self.m.nodes.items():
            if na.graph is not ga:
                continue
            c = node_change(self.m, na, nb)
            nw = self.nodes[na]
            path = graph_path(gw)
            if c.op or (na.overload != nb.overload):
                self.apply(SetNodeField(node_ref(nw), "op_type", nb.op_type, path),
                           f"op of {node_label(na)} ({na.op_type} -> {nb.op_type})")
                if na.overload != nb.overload:
                    self.apply(SetNodeField(node_ref(nw), "overload", nb.overload, path),
                               f"overload of {node_label(na)}")
            if c.domain:
                self.apply(SetNodeField(node_ref(nw), "domain", nb.domain, path), f"domain of {node_label(na)}")
            for name, _ in c.not_compared:
                self._unreadable_attribute(nw, name, nb.attributes[name], f"attribute {name} of {node_label(na)}",
                                           path)
            for name in c.attributes:
                x, y = na.attributes.get(name), nb.attributes.get(name)
                if x is not None and y is not None and x.type in _GRAPH_ATTRS and y.type in _GRAPH_ATTRS:
                    continue          # the bodies are paired: their own differences are edited inside
                what = f"attribute {name} of {node_label(na)}"
                if y is None:
                    self.apply(SetAttribute(node_ref(nw), name, None, graph=path), what)
                else:
                    self.apply(SetAttribute(node_ref(nw), name, int(y.type), y.value, y.ref_attr_name, path), what)
            if len(na.outputs) != len(nb.outputs):
                self.out.not_expressed.append(f"{node_label(na)}: {len(na.outputs)} outputs in A, "
                                              f"{len(nb.outputs)} in B (no edit changes a node's outputs here)")

    def weights(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        for name, vb in gb.initializers.items():
            va = self.m.values_back.get(vb)
            paired = va is not None and va.const is not None and va.graph is ga
            if paired and _same_weight(va, vb):
                continue
            if self._b_weight_unreadable(va if paired else None, vb):
                continue
            if paired:
                self.apply(SetInitializer(vb.name, _array(vb), int(vb.const.dtype), graph=path),
                           f"weight {va.name}")
            else:
                self.free(gw, vb.name)
                self.apply(AddInitializer(vb.name, _array(vb), dtype=int(vb.const.dtype), graph=path),
                           f"weight {vb.name} added")
        for name in gb.sparse_initializers:
            self.out.not_expressed.append(f"{gb.path}: sparse initializer {name!r} (not compared as an edit)")

    def _unreadable_attribute(self, nw, name: str, y, what: str, path) -> None:
        """A tensor attribute whose values were not compared: B's is set when
        it can be read (A's, unknown, is replaced), else said not expressed."""
        tensors = [y.value] if y.type == AttrType.TENSOR else list(y.value or ())
        reasons = [r for r in (unreadable_reason(t) for t in tensors) if r is not None]
        if reasons:
            self.out.not_expressed.append(f"{what}: values not compared and not set: B's data cannot be read: "
                                          f"{reasons[0]}")
        else:
            self.apply(SetAttribute(node_ref(nw), name, int(y.type), y.value, y.ref_attr_name, path), what)

    def _b_weight_unreadable(self, va, vb) -> bool:
        """Whether B's weight cannot be read, so no edit can set its values:
        said as not expressed (a script never drops a needed change silently).
        A's unreadable values are simply replaced by B's."""
        reason = unreadable_reason(vb.const)
        if reason is None:
            return False
        if va is None:
            what = f"weight {vb.name} added in B"
        else:
            c = weight_change(va, vb)
            known = [f"dtype {type_name(c.dtype[0])} -> {type_name(c.dtype[1])}"] if c.dtype else []
            known += [f"shape {list(c.shape[0])} -> {list(c.shape[1])}"] if c.shape else []
            what = f"weight {vb.name}" + (f" ({', '.join(known)})" if known else "")
        self.out.not_expressed.append(f"{what}: values not compared and not set: B's data cannot be read: "
                                      f"{reason}")
        return True

    def inputs(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        firsts = first_declarations(gb.inputs)
        for i, vb in enumerate(gb.inputs):
            if vb not in firsts:
                self._repeat_not_expressed("input", vb.name, i)
                continue
            va = self.m.values_back.get(vb)
            if va is None or va not in ga.inputs:
                self.free(gw, vb.name)
                t = vb.type if isinstance(vb.type, TensorType) else None
                self.apply(AddGraphInput(vb.name, t.elem_type if t else None, _dims(t), i, path),
                           f"graph input {vb.name} added")
            elif str(va.type) != str(vb.type) and isinstance(vb.type, TensorType):
                self._retype_input(ga, gw, vb)

    def _retype_input(self, ga, gw, vb) -> None:
        what = f"graph input {vb.name}: {vb.type}"
        wv = gw.get_value(vb.name)
        same_elem = isinstance(wv.type, TensorType) and wv.type.elem_type == vb.type.elem_type
        if ga.parent_graph is None and same_elem and vb.type.shape is not None:
            try:
                edit = set_input_shape(self.work, vb.name, list(vb.type.shape), allow_rank_change=True)
            except EditError as e:
                self.out.not_expressed.append(f"{what}: {e}")
                return
            self.apply(edit, what)
        else:
            self.apply(SetValueType(vb.name, vb.type.elem_type, _dims(vb.type), graph_path(gw)), what)

    def added_nodes(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        for nb in gb.nodes:
            if nb in self.m.nodes_back:
                continue
            for o in nb.outputs:
                if o is not None and o.name:
                    self.free(gw, o.name)
            attrs = {k: (int(a.type), a.value) + ((a.ref_attr_name,) if a.ref_attr_name else ())
                     for k, a in nb.attributes.items()}
            self.apply(AddNode(nb.op_type, _names(nb.inputs), _names(nb.outputs), attrs, nb.name, nb.domain,
                               None, path), f"node {node_label(nb)} ({nb.op_type}) added")

    def rewiring(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        # In B's order: what a node comes to read is then made by nodes that
        # already read what they read in B, so no step closes a cycle. In A's
        # order, nodes paired crosswise (B swapped the names of two nodes of
        # one op) would each read, for a step, what the other still makes.
        for nb in gb.nodes:
            na = self.m.nodes_back.get(nb)
            if na is None or na.graph is not ga:
                continue
            nw = self.nodes[na]
            want = _names(nb.inputs)
            if _names(nw.inputs) == want:
                continue
            what = f"inputs of {node_label(na)}"
            edit = SetNodeInputs(node_ref(nw), want, path)
            if _reads_later(gw, nw, want):
                # An inserted node lands right after its input's producer, which may be after this reader.
                edit = Macro([MoveProducersBefore(node_ref(nw), [n for n in want if n], path), edit], what)
            self.apply(edit, what)

    def outputs(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        self.drop_repeats(gw, gb, "output", RemoveGraphOutput)
        want = []
        for i, v in enumerate(gb.outputs):
            if v.name in want:
                self._repeat_not_expressed("output", v.name, i)
            else:
                want.append(v.name)
        for v in list(gw.outputs):
            if v.name not in want:
                self.apply(RemoveGraphOutput(v.name, path), f"graph output {v.name} removed")
        for i, name in enumerate(want):
            now = [v.name for v in gw.outputs]
            if i < len(now) and now[i] == name:
                continue
            if name in now:
                self.apply(RemoveGraphOutput(name, path), f"graph output {name} moved")
            self.apply(AddGraphOutput(name, i, path), f"graph output {name}")
        for vb in gb.outputs:
            wv = gw.get_value(vb.name)
            if wv is not None and isinstance(vb.type, TensorType) and str(wv.type) != str(vb.type) \
                    and not wv.is_graph_input:
                self.apply(SetValueType(vb.name, vb.type.elem_type, _dims(vb.type), path),
                           f"graph output {vb.name}: {vb.type}")

    def removals(self, ga, gb, gw) -> None:
        path = graph_path(gw)
        for na in reversed(list(ga.nodes)):
            if na not in self.m.nodes:
                nw = self.nodes[na]
                self.apply(RemoveNode(node_ref(nw), path), f"node {node_label(na)} ({na.op_type}) removed")
        for name, va in list(ga.initializers.items()):
            if va not in self.m.values or self.m.values[va].const is None:
                wv = self.values.get(id(va))
                if wv is not None and wv.const is not None and wv.name in gw.initializers:
                    self.apply(RemoveInitializer(wv.name, path), f"weight {va.name} removed")
        self.drop_repeats(gw, gb, "input", RemoveGraphInput)
        keep = {v.name for v in gb.inputs}
        for v in list(gw.inputs):
            if v.name not in keep:
                self.apply(RemoveGraphInput(v.name, path), f"graph input {v.name} removed")

    def drop_repeats(self, gw, gb, decl: str, remove) -> None:
        """Take out the clone's further declarations of a name (a damaged
        file's) that B has not at that occurrence with that type, the last
        first: each removal names its occurrence, since the first
        declaration is the one the name stands for."""
        mine, theirs = gw.declarations(decl), gb.declarations(decl)
        types_b: dict = {}
        for j, v in enumerate(theirs):
            types_b.setdefault(v.name, []).append(declared_type(theirs, j))
        for name in dict.fromkeys(v.name for v in mine):
            at = [i for i, v in enumerate(mine) if v.name == name]
            wanted = types_b.get(name, [])
            keep = 1
            while keep < min(len(at), len(wanted)) and declared_type(mine, at[keep]) == wanted[keep]:
                keep += 1
            for k in range(len(at) - 1, keep - 1, -1):
                self.apply(remove(name, graph_path(gw), occurrence=k),
                           f"graph {decl} {name} declared again ({decl} {at[k]}) removed")

    def _repeat_not_expressed(self, decl: str, name: str, position: int) -> None:
        self.out.not_expressed.append(f"graph {decl} {name} declared again in B ({decl} {position}): "
                                      f"no edit declares a name twice")


def _reads_later(gw, node, names) -> bool:
    at = node.index
    for name in names:
        v = gw.get_value(name) if name else None
        if v is not None and v.producer is not None and v.producer.graph is gw and v.producer.index > at:
            return True
    return False


def _names(values) -> list:
    return [v.name if v is not None else "" for v in values]


def _dims(t) -> Optional[list]:
    return None if t is None or t.shape is None else list(t.shape)


def _array(v) -> np.ndarray:
    return np.array(v.const.numpy())


def _same_weight(va, vb) -> bool:
    return weight_change(va, vb) is None


def _still_different(work: Model, b: Model, check) -> list:
    """What the edited clone still differs from B in, one line each."""
    left = diff_models(work, b, check=check)
    if left.equal:
        return []
    lines, heading = [], ""
    for line in summary_lines(left, limit=10**9)[3:]:
        if heading == "values not compared" and line.startswith("  "):
            continue        # each was said where the script met it (weights, node_fields)
        if line.startswith("  "):
            lines.append(f"left after the script: {heading} {line.strip()}")
        else:
            heading = line.split(" (")[0]
    return lines


def write_script(derived: DerivedScript, path) -> None:
    """Write the script as JSON, all or nothing (core/whole_file.py: an
    error leaves `path` as it was)."""
    import json
    with whole_file(path, "w") as f:
        f.write(json.dumps(derived.script, indent=1))
