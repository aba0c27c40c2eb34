"""What an edit's `Changes` mean for the live checker: which main-graph
nodes to check again, whether the main graph's header, the functions or
the model's fields changed, and the stretch of the node list an edit
replaced (`CheckSession.update` arguments).

The node list is compared with the one of the last check by identity, in
C (stretch.py), so an insertion or removal anywhere is one stretch; the
nodes before and after it are the very same objects. The planner keeps
those lists of references (nodes, initializers), the graph's name and
doc_string and the set of function keys: nothing of the file form.
"""
from __future__ import annotations

from ..ir.nesting import holder_in
from .stretch import differing_stretch


def _initializer_values(g) -> list:
    return list(g.initializers.values()) + list(g.duplicate_initializers)


class EditPlanner:
    def __init__(self, model):
        self.model = model
        g = model.graph
        self._order = g.nodes           # a tuple the IR makes anew when the node list changes
        self._inits = _initializer_values(g)
        self._label = (g.name, g.doc_string)
        self._function_keys = set(model.functions)

    def plan(self, changes):
        """Keyword arguments for CheckSession.update, or None where a full
        check is the honest answer (a function added or removed changes
        what every call binds to)."""
        m = self.model
        g = m.graph
        if set(m.functions) != self._function_keys:
            return None
        plan = {}
        # -- which main-graph nodes changed in place (also through their subgraphs)
        touched = set()
        for node in changes.nodes_changed:
            if node.graph is g:
                touched.add(node)
        graphs = set(changes.graphs)
        for node in changes.nodes_added:
            if node.graph is not None and node.graph is not g:
                graphs.add(node.graph)
        for graph in graphs:
            if graph is g:
                continue
            top = holder_in(graph, g)
            if top is not None:
                touched.add(top)
        if changes.values_retyped:
            touched.update(self._holders_declaring(changes.values_retyped))
        if changes.functions:
            plan["functions"] = True
            # Calls of a model-local function are judged against it.
            keys = set(m.functions)
            for sub in g.walk():
                for n in sub.nodes:
                    if (n.domain, n.op_type, n.overload) in keys:
                        top = n if sub is g else holder_in(sub, g)
                        if top is not None:
                            touched.add(top)
        # -- the node list: the stretch that differs
        new = g.nodes
        old = self._order
        # The same tuple: the node list did not change (no copy, no comparison).
        start, old_stop, new_stop = (len(new),) * 3 if new is old else differing_stretch(old, new)
        if old_stop > start or new_stop > start:
            plan["region"] = (start, old_stop, new_stop)
            plan["replaced"] = old[start:old_stop]
            self._order = new
        plan["rewritten"] = {i for i in (node.index for node in touched)
                             if 0 <= i < len(new) and not start <= i < new_stop}
        # -- the main graph's own fields
        header = bool(changes.graph_io & {g} or changes.value_info & {g})
        declared = set()
        for v in changes.values_retyped:
            if v.graph is g:
                header = True
                declared.add(v.name)
        for graph, old_name, new_name in changes.values_renamed:
            # A renamed value declared in the header comes with graph_io,
            # value_info or initializers; its producer and readers come as
            # nodes changed.
            if graph is g:
                declared.update((old_name, new_name))
        if changes.initializers or changes.graph_io:
            # Edits that add, remove or replace an initializer say so (a
            # promotion from a graph input as graph_io too); the list is
            # compared then, not after every node edit.
            inits = [v for v in changes.initializers if v.graph is g]
            now = _initializer_values(g)
            if inits or self._inits != now:
                header = True
                plan["initializers"] = self._replaced_initializers(inits, now)
        label = (g.name, g.doc_string)
        if label != self._label:      # SetGraphField
            header = True
            self._label = label
        if header:
            plan["header"] = True
        if header or declared:
            plan["declared"] = declared
        if changes.model_fields:
            plan["model"] = True
        return plan

    def _holders_declaring(self, values) -> set:
        """Main-graph nodes whose subgraphs list one of `values` among their
        inputs, outputs or value_info: a subgraph output may be a value of an
        enclosing graph, and its file form carries that value's type."""
        g = self.model.graph
        ids = {id(v) for v in values}
        out = set()
        for sub in g.walk():
            if sub is g:
                continue
            if any(id(v) in ids for part in (sub.outputs, sub.inputs, sub.value_info) for v in part):
                top = holder_in(sub, g)
                if top is not None:
                    out.add(top)
        return out

    def _replaced_initializers(self, replaced, now) -> set:
        """Names of the dense initializers an edit replaced, added or removed:
        the stretch of the list that differs, and each one reported."""
        old = self._inits
        names = {v.name for v in replaced}
        start, old_stop, new_stop = differing_stretch(old, now)
        names.update(v.name for v in old[start:old_stop])
        names.update(v.name for v in now[start:new_stop])
        self._inits = now
        return names
