"""Canvas edits: delete, delete-and-bypass, add a node, insert a node on an
edge, copy/paste nodes, extract the selection, cleanup.

Each command builds Edits (primitive or compound from core.edits) for the
graph shown on the canvas and pushes them through the window's QtDocument
as one undo step; a refusal (e.g. deleting a node whose output is still
read) comes back as a message naming the place.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from onnxstudio.core import edits as E

from .canvas.items import EdgeItem, NodeItem

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")

# Copied nodes, shared by every window of the process (paste into another model).
CLIPBOARD: list[dict] = []


def scoped_name(neighbour, op: str) -> str:
    """A new node is named in its neighbour's name scope ("/enc/layer.3/Relu"),
    so it joins the neighbour's group (and layout piece) on the canvas."""
    name = getattr(neighbour, "name", "") or ""
    scope = name.rsplit("/", 1)[0] if "/" in name else ""
    return f"{scope}/{op}" if scope else op


class CanvasEdits:
    def __init__(self, window, prompter):
        self.window = window
        self.prompter = prompter
        # Replaceable (tests): how an op is chosen, where an extracted model goes.
        from .panels.op_picker import pick_op
        self.choose_op = lambda title: pick_op(self.window.model, self.window, title)
        self.choose_extract_path = self._choose_extract_path

    # -- what is selected ----------------------------------------------------------------

    @property
    def graph(self):
        return self.window.graph.level.graph

    @property
    def gpath(self):
        return E.graph_path(self.graph)

    def selected_nodes(self) -> list:
        nodes = []
        for item in self.window.graph.scene.selectedItems():
            if isinstance(item, NodeItem) and item.ref is not None and item.ref.node is not None:
                nodes.append(item.ref.node)
        return sorted(nodes, key=lambda n: n.index)

    def _push(self, edit) -> bool:
        qdoc = self.window.qdoc
        return qdoc is not None and qdoc.apply(edit)

    def _build(self, name: str, build) -> bool:
        """Compound edits read the model as it is: build them, refusals included."""
        try:
            edit = build()
        except E.EditError as exc:
            self.window.qdoc.refused.emit(str(exc))
            return False
        except Exception as exc:  # noqa: BLE001 - a bug: reported with details, model untouched
            self.prompter.report_unexpected(name, exc)
            return False
        return self._push(edit)

    # -- commands ---------------------------------------------------------------------------

    def delete(self) -> bool:
        nodes = self.selected_nodes()
        if not nodes:
            return False
        gpath = self.gpath
        # Readers first, so a chain of selected nodes can go in one step.
        edits = [E.RemoveNode(E.node_ref(n), gpath) for n in reversed(nodes)]
        name = (translate("CanvasEdits", "Delete {name}").format(name=nodes[0].display_name)
                if len(nodes) == 1 else
                translate("CanvasEdits", "Delete {n} nodes").format(n=len(nodes)))
        return self._push(E.Macro(edits, name))

    def delete_and_bypass(self) -> bool:
        nodes = self.selected_nodes()
        if len(nodes) != 1:
            self.window.statusBar().showMessage(
                translate("CanvasEdits", "Select one node to delete and reconnect"), 8000)
            return False
        node = nodes[0]
        return self._build(translate("CanvasEdits", "Delete and reconnect"),
                           lambda: E.bypass_node(self.window.model, E.node_ref(node), self.gpath))

    def add_node(self, choice=None) -> bool:
        """A new node of the chosen op; it reads the selected node's first
        output when one is selected (and sits right after it)."""
        choice = choice or self.choose_op(translate("CanvasEdits", "Add a node"))
        if choice is None:
            return False
        domain, op = choice
        g = self.graph
        nodes = self.selected_nodes()
        source = nodes[-1] if nodes else None
        inputs = [source.outputs[0].name] if source is not None and source.outputs and source.outputs[0] else []
        name = g.unique_name(scoped_name(source, op))
        index = source.index + 1 if source is not None else None
        return self._push(E.AddNode(op, inputs, [g.unique_name(f"{name}_out")], {}, name, domain, index,
                                    self.gpath))

    def insert_on_edge(self, edge_item: EdgeItem, choice=None) -> bool:
        vedge = edge_item.ref
        value = getattr(vedge, "value", None)
        if value is None:
            return False
        choice = choice or self.choose_op(
            translate("CanvasEdits", "Insert a node after {name}").format(name=value.name))
        if choice is None:
            return False
        domain, op = choice
        target = self.window.graph.scene.view_model.nodes.get(vedge.target)
        consumers = None
        if target is not None and target.node is not None and any(u is target.node for u, _ in value.uses):
            consumers = [E.node_ref(target.node)]
        near = value.producer or (target.node if target is not None else None)
        name = self.graph.unique_name(scoped_name(near, op))
        return self._build(translate("CanvasEdits", "Insert {op}").format(op=op), lambda: E.insert_on_edge(
            self.window.model, value.name, op, consumers=consumers, graph=self.gpath, domain=domain,
            name=name))

    def copy(self) -> int:
        nodes = self.selected_nodes()
        if not nodes:
            return 0
        CLIPBOARD[:] = [{
            "op_type": n.op_type, "domain": n.domain, "name": n.name,
            "inputs": [v.name if v is not None else "" for v in n.inputs],
            "outputs": [v.name if v is not None else "" for v in n.outputs],
            "attributes": {k: (int(a.type), a.value) for k, a in n.attributes.items() if not a.ref_attr_name},
        } for n in nodes]
        self.window.statusBar().showMessage(
            translate("CanvasEdits", "Copied {n} node(s)").format(n=len(nodes)), 5000)
        return len(nodes)

    def paste(self) -> bool:
        """Copies get fresh names; inputs produced by copied nodes follow the
        copies, others keep their name when it exists here (else stay empty)."""
        if not CLIPBOARD:
            return False
        g = self.graph
        taken: set = set()

        def fresh(base: str) -> str:
            name = g.unique_name(base or "node")
            while name in taken:
                name = g.unique_name(name + "_")
            taken.add(name)
            return name

        renamed = {}
        for entry in CLIPBOARD:
            for out in entry["outputs"]:
                if out:
                    renamed[out] = fresh(out)
        edits = []
        for entry in CLIPBOARD:
            inputs = [renamed.get(i, i if i and g.lookup(i) is not None else "") for i in entry["inputs"]]
            while inputs and inputs[-1] == "":
                inputs.pop()
            outputs = [renamed.get(o, "") for o in entry["outputs"]]
            edits.append(E.AddNode(entry["op_type"], inputs, outputs, dict(entry["attributes"]),
                                   fresh(entry["name"] or entry["op_type"]), entry["domain"], None, self.gpath))
        return self._push(E.Macro(edits, translate("CanvasEdits", "Paste {n} node(s)").format(n=len(edits))))

    def boundary(self, nodes) -> tuple[list, list]:
        """Values the selection reads from outside, values it hands outside."""
        inside = {id(n) for n in nodes}
        made = {id(v) for n in nodes for v in n.outputs if v is not None}
        inputs, outputs = [], []
        for n in nodes:
            for v in n.inputs:
                if v is not None and id(v) not in made and v.name not in inputs and v.const is None:
                    inputs.append(v.name)
            for v in n.outputs:
                if v is None:
                    continue
                if v.is_graph_output or any(id(u) not in inside for u, _ in v.uses) or not v.uses:
                    outputs.append(v.name)
        return inputs, outputs

    def extract(self) -> bool:
        nodes = self.selected_nodes()
        if not nodes or self.graph is not self.window.model.graph:
            self.window.statusBar().showMessage(
                translate("CanvasEdits", "Select nodes of the main graph to extract"), 8000)
            return False
        inputs, outputs = self.boundary(nodes)
        path = self.choose_extract_path()
        if not path:
            return False
        from onnxstudio.core.serde.io import save
        try:
            model = E.extract_model(self.window.model, inputs, outputs)
            save(model, path)
        except E.EditError as exc:
            self.window.qdoc.refused.emit(str(exc))
            return False
        except Exception as exc:  # noqa: BLE001
            self.prompter.report_unexpected(
                translate("CanvasEdits", "Extracting the selection"), exc)
            return False
        self.window.statusBar().showMessage(translate(
            "CanvasEdits", "Extracted {n} node(s) to {path}").format(n=len(nodes), path=path), 8000)
        return True

    def cleanup(self) -> bool:
        return self._build(translate("CanvasEdits", "Clean up"), lambda: E.cleanup(self.window.model))

    def _choose_extract_path(self) -> str:
        from PySide6.QtWidgets import QFileDialog
        path, _ = QFileDialog.getSaveFileName(
            self.window, translate("CanvasEdits", "Extract selection to a new model"),
            "extracted.onnx", translate("CanvasEdits", "ONNX model (*.onnx)"))
        return path
