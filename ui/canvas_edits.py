"""Canvas edits: delete, delete-and-bypass, add a node, insert a node on an
edge, copy/paste nodes, extract the selection, cleanup.

Each command builds Edits (primitive or compound from core.edits) for the
graph shown on the canvas and pushes them through the window's QtDocument
as one undo step; a refusal (e.g. deleting a node whose output is still
read) comes back as a message naming the place.
"""
from __future__ import annotations

from PySide6.QtCore import QCoreApplication, Qt, QTimer

from onnxstudio.core import edits as E
from onnxstudio.core.ir import Node
from onnxstudio.core.layout.scopes import node_scope

from .canvas.items import EdgeItem, NodeItem

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")

# Copied nodes, shared by every window of the process (paste into another model).
CLIPBOARD: list[dict] = []


def scoped_name(neighbour, op: str) -> str:
    """A new node is named in its neighbour's name scope ("/enc/layer.3/Relu"),
    so it joins the neighbour's group (and layout piece) on the canvas. A
    neighbour from torch's dynamo exporter ("node_MatMul_12") keeps its scope
    in its metadata; the new node's name spells it out."""
    name = getattr(neighbour, "name", "") or ""
    if "/" in name:
        return f"{name.rsplit('/', 1)[0]}/{op}"
    scope = node_scope(neighbour) if isinstance(neighbour, Node) else ()
    return "/" + "/".join(scope) + f"/{op}" if scope else op


def read_outside(nodes):
    """(node, value, readers) for the first output of `nodes` read by a node
    outside them or by the graph outputs (the readers' display names), or None
    when deleting them all leaves no reader without its input."""
    chosen = {id(n) for n in nodes}

    def deleted_with_them(reader) -> bool:
        # A reader in a body of a chosen node (an If's branch) goes with it.
        while reader is not None:
            if id(reader) in chosen:
                return True
            reader = reader.graph.parent_node if reader.graph is not None else None
        return False

    for node in nodes:
        for value in node.outputs:
            if value is None:
                continue
            readers = [u.display_name for u in value.consumers if not deleted_with_them(u)]
            if value.is_graph_output:
                readers.append(translate("CanvasEdits", "the graph outputs"))
            if readers:
                return node, value, readers
    return None


def left_after_delete(nodes, graph, handed_on=None):
    """What the user goes on from once `nodes` are deleted from `graph` (the
    level shown): a node that reads what they read (first the readers of
    `handed_on`, the output a Delete and Reconnect hands on: they read its
    input from then on), else the producer of what they read, else the graph
    input they read; None when nothing is left on the level."""
    gone = {id(n) for n in nodes}

    def shown(node) -> bool:
        return node is not None and id(node) not in gone and node.graph is graph

    def first(found):
        found = [n for n in found if shown(n)]
        return min(found, key=lambda n: n.index) if found else None

    read = [v for n in nodes for v in n.inputs
            if v is not None and (v.producer is None or id(v.producer) not in gone)]
    readers = first(u for u, _slot in handed_on.uses) if handed_on is not None else None
    return (readers or first(u for v in read for u, _slot in v.uses)
            or next((v.producer for v in read if shown(v.producer)), None)
            or next((v for v in read if v.is_graph_input and v.graph is graph), None))


class CanvasEdits:
    def __init__(self, window, prompter):
        self.window = window
        self.prompter = prompter
        # Replaceable (tests): how an op is chosen, where an extracted model goes.
        self.choose_op = self._pick_op
        self.choose_extract_path = self._choose_extract_path
        from .canvas.ports import PortDragger
        self.ports = PortDragger(window.graph, self, self._hint)
        # The operator palette: a drag source for ops (drop on an edge or the canvas).
        self.palette = None
        window.graph.view.op_dropped.connect(self.drop_op)
        window.graph.menu_extenders.append(self._palette_menu)
        from PySide6.QtGui import QKeySequence, QShortcut
        shortcut = QShortcut(QKeySequence("Shift+A"), window.graph.view)
        shortcut.setContext(Qt.WidgetWithChildrenShortcut)
        shortcut.activated.connect(self.show_palette)
        self._hinting = False

    def _pick_op(self, title: str):
        from .panels.op_picker import pick_op       # its modules load when first asked for
        return pick_op(self.window.model, self.window, title)

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

    def _node_named(self, name: str):
        return next((n for n in self.graph.nodes if n.name == name), None)

    def _select_new(self, name: str) -> None:
        """The node just made is selected and shown (groups hiding it opened)."""
        self.window.graph.select_new_node(self._node_named(name))

    def _delete_then_select(self, name: str, build, nodes, handed_on=None) -> bool:
        """Delete `nodes` (the edit `build` makes), then select what the user
        goes on from (left_after_delete), kept where it was on screen: after a
        delete nothing was selected, and the user had to find their place again."""
        after = left_after_delete(nodes, self.graph, handed_on)
        spot = self._screen_spot(after) if isinstance(after, Node) else None
        done = self._build(name, build)
        if done and after is not None:
            self.window.graph.select_new_node(after)
            self._hold_on_screen(after, spot, after)
        return done

    # -- commands ---------------------------------------------------------------------------

    def delete(self) -> bool:
        nodes = self.selected_nodes()
        if not nodes:
            return False
        still_read = read_outside(nodes)
        if still_read is not None:
            # Core's refusal names the readers but not the way out; a user
            # deleting a node in the middle of a chain needs to know both.
            self.window.qdoc.refused.emit(self._still_read_text(nodes, *still_read))
            return False
        gpath = self.gpath
        name = (translate("CanvasEdits", "Delete {name}").format(name=nodes[0].display_name)
                if len(nodes) == 1 else
                translate("CanvasEdits", "Delete {n} nodes").format(n=len(nodes)))
        return self._delete_then_select(name, lambda: E.remove_nodes(
            self.window.model, [E.node_ref(n) for n in nodes], gpath, name), nodes)

    @staticmethod
    def _still_read_text(nodes, node, value, readers) -> str:
        text = translate("CanvasEdits", '{node} was not deleted: its output "{value}" is read by {readers}.').format(
            node=node.display_name, value=value.name, readers=", ".join(readers))
        if len(nodes) == 1:
            return text + " " + translate(
                "CanvasEdits", "Delete and Reconnect (Shift+Del) deletes it and connects its readers to its "
                "input; or select the readers too to delete them with it.")
        return text + " " + translate("CanvasEdits", "Select the readers too to delete them with it.")

    def delete_and_bypass(self) -> bool:
        nodes = self.selected_nodes()
        if len(nodes) != 1:
            self.window.statusBar().showMessage(
                translate("CanvasEdits", "Select one node to delete and reconnect"), 8000)
            return False
        node = nodes[0]
        return self._delete_then_select(translate("CanvasEdits", "Delete and reconnect"),
                                        lambda: E.bypass_node(self.window.model, E.node_ref(node), self.gpath),
                                        nodes, node.outputs[0] if node.outputs else None)

    def add_node(self, choice=None) -> bool:
        """A new node of the chosen op; it reads the selected node's first
        output when one is selected (and sits right after it)."""
        if self.window.model is None:     # the Edit menu works before a model is open
            return False
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
        done = self._push(E.AddNode(op, inputs, [g.unique_name(f"{name}_out")], {}, name, domain, index,
                                    self.gpath))
        if done:
            self._select_new(name)
        return done

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
        held = self._screen_spot(near)
        done = self._build(translate("CanvasEdits", "Insert {op}").format(op=op), lambda: E.insert_on_edge(
            self.window.model, value.name, op, consumers=consumers, graph=self.gpath, domain=domain,
            name=name))
        if done:
            self._select_new(name)
            self._hold_on_screen(near, held, self._node_named(name))
        return done

    # -- the edited card stays where it was on screen ---------------------------------------

    def _screen_spot(self, node):
        item = self.window.graph.scene.item_for_node(node) if node is not None else None
        return self.window.graph.view.screen_spot(item) if item is not None else None

    def _hold_on_screen(self, node, spot, selected) -> None:
        """After the edit is laid out (and `selected` selected, which centred
        the view on it), scroll back so `node`'s card is where the user saw
        it; `selected` is then scrolled into view only if it is not visible
        already."""
        if spot is None:
            return
        panel = self.window.graph

        def restore():
            item = panel.scene.item_for_node(node)
            if item is None:
                return
            panel.view.hold_on_screen(spot, item)
            selected_item = panel.scene.item_for_node(selected) if selected is not None else None
            if selected_item is not None:
                panel.view.ensureVisible(selected_item, 20, 20)

        if not panel.layouts.running:        # relabelled in place: already selected
            restore()
            return

        def laid_out():
            panel.laid_out.disconnect(laid_out)
            # The new node is selected (and centred) right after laid_out.
            QTimer.singleShot(0, restore)
        panel.laid_out.connect(laid_out)

    # -- the operator palette (drag an op onto the canvas) -------------------------------------

    def show_palette(self):
        """Open (or raise) the palette beside the canvas; it stays open."""
        from .panels.op_picker import OpPalette
        if self.palette is None:
            self.palette = OpPalette(self.window)
            self.palette.chosen.connect(self.add_node)
            self.palette.dismissed.connect(self._canvas_focus)
        self.palette.set_model(self.window.model)
        if not self.palette.isVisible():
            self.palette.move(self._palette_place())
        self.palette.show()
        self.palette.raise_()
        # A tool window is not active by itself: without this, typing went to the canvas.
        self.palette.activateWindow()
        self.palette.search.setFocus(Qt.ActiveWindowFocusReason)
        self.palette.search.selectAll()
        return self.palette

    def _canvas_focus(self):
        """After Esc closed the palette, typing goes to the canvas again."""
        self.window.activateWindow()
        self.window.graph.view.setFocus(Qt.ActiveWindowFocusReason)

    def _palette_place(self):
        """Where the palette opens (global position): beside the selected
        nodes (the ones being edited), never over them. Inside the canvas on
        the side with room; when neither side has room, the canvas scrolls
        to make it; when it cannot, the palette goes just outside the
        selection's side, over the docks rather than over the nodes."""
        from PySide6.QtCore import QPoint
        view = self.window.graph.view
        vp = view.viewport()
        size, margin = self.palette.frameGeometry().size(), 12
        need = size.width() + 2 * margin
        items = [i for i in self.window.graph.scene.selectedItems() if isinstance(i, NodeItem)]
        if not items:
            return vp.mapToGlobal(QPoint(max(margin, vp.width() - size.width() - margin), margin))

        def selection():
            rect = view.mapFromScene(items[0].sceneBoundingRect()).boundingRect()
            for item in items[1:]:
                rect = rect.united(view.mapFromScene(item.sceneBoundingRect()).boundingRect())
            return rect, rect.left(), vp.width() - rect.right()

        rect, room_left, room_right = selection()
        if max(room_left, room_right) < need:
            # Scroll the selection towards the side with more room.
            towards_left = room_left >= room_right
            shift = need - (room_right if not towards_left else room_left)
            centre = view.mapToScene(vp.rect().center())
            scale = max(view.current_scale(), 1e-3)
            view.centerOn(centre.x() + (shift if not towards_left else -shift) / scale, centre.y())
            rect, room_left, room_right = selection()
        top = margin
        if room_right >= need:
            return vp.mapToGlobal(QPoint(vp.width() - size.width() - margin, top))
        if room_left >= need:
            return vp.mapToGlobal(QPoint(margin, top))
        right = vp.mapToGlobal(QPoint(rect.right() + margin, top))
        screen = vp.screen().availableGeometry() if vp.screen() is not None else None
        if screen is None or right.x() + size.width() <= screen.right():
            return right
        return vp.mapToGlobal(QPoint(rect.left() - margin - size.width(), top))

    def _palette_menu(self, item, menu) -> None:
        if self.window.model is not None:
            menu.addAction(translate("CanvasEdits", "Operator Palette (drag onto the canvas)…  Shift+A"),
                           self.show_palette)

    def drop_op(self, choice, edge_item, scene_pos) -> bool:
        """An op dropped from the palette: on an edge it is inserted there; on
        a node it is added after it; on empty canvas it is added, reading
        nothing yet, where it was dropped."""
        if self.window.model is None or self.window.qdoc is None:
            return False
        if edge_item is not None:
            return self.insert_on_edge(edge_item, tuple(choice))
        scene = self.window.graph.scene
        card = next((i for i in scene.items(scene_pos) if isinstance(i, NodeItem) and i.kind == "op"
                     and i.ref is not None and i.ref.node is not None), None)
        if card is not None:          # on a node: added after it, reading its output (as Tab does)
            scene.clearSelection()
            card.setSelected(True)
            return self.add_node(tuple(choice))
        return self.add_loose(tuple(choice), scene_pos)

    def add_loose(self, choice, scene_pos=None) -> bool:
        domain, op = choice
        g = self.graph
        name = g.unique_name(op)
        done = self._push(E.AddNode(op, [], [g.unique_name(f"{name}_out")], {}, name, domain, None, self.gpath))
        if done:
            node = self._node_named(name)
            if scene_pos is not None:
                self.window.graph.place_loose(node, scene_pos)
            self._select_new(name)
        return done

    # -- wiring by hand (ports on the canvas, the edge menu) ---------------------------------

    def connect_problem(self, value, node, index: int) -> str:
        """Why `value` cannot go to input `index` of `node` ("" when it can)."""
        if value is None or node is None:
            return translate("CanvasEdits", "Nothing to connect")
        if node.graph is not self.graph:
            return translate("CanvasEdits", "{node} is not in the graph shown").format(node=node.display_name)
        if value.producer is node:
            return translate("CanvasEdits", "{node} cannot read its own output {value}").format(
                node=node.display_name, value=value.name)
        if index < len(node.inputs) and node.inputs[index] is value:
            return translate("CanvasEdits", "{value} already goes to input {i} of {node}").format(
                value=value.name, i=index, node=node.display_name)
        producer = value.producer
        if producer is not None and producer.graph is node.graph and _reaches(node, producer):
            return translate("CanvasEdits", "{value} → {node}: a cycle ({producer} already reads what "
                             "{node} makes)").format(value=value.name, node=node.display_name,
                                                    producer=producer.display_name)
        return ""

    def connect(self, value, node, index: int) -> bool:
        """Make input `index` of `node` read `value` (one undo step). When the
        producer comes later in the node list, it and what it needs move
        before `node` first (MoveProducersBefore), so the list stays topological."""
        self._hint("")          # "Release to connect…" is done with, whatever happens now
        problem = self.connect_problem(value, node, index)
        if problem:
            self.window.qdoc.refused.emit(problem)
            return False
        gpath, ref = self.gpath, E.node_ref(node)
        # By name, not by position, so the step replays on a re-export (edit scripts).
        edits = [E.MoveProducersBefore(ref, [value.name], gpath)]
        if index < len(node.inputs):
            edits.append(E.SetNodeInput(ref, index, value.name, gpath))
        else:
            names = [v.name if v is not None else "" for v in node.inputs]
            names += [""] * (index - len(names)) + [value.name]
            edits.append(E.SetNodeInputs(ref, names, gpath))
        return self._push(E.Macro(edits, translate("CanvasEdits", "Connect {value} to {node}").format(
            value=value.name, node=node.display_name)))

    def connect_hint(self, value, node, index: int) -> str:
        return translate("CanvasEdits", "Release to connect {value} to input {i} of {node}").format(
            value=value.name, i=index, node=node.display_name)

    def drop_hint(self, node, edge_item) -> str:
        value = getattr(edge_item.ref, "value", None)
        return translate("CanvasEdits", "Release to insert {node} on {value}").format(
            node=node.display_name, value=getattr(value, "name", "?"))

    def _hint(self, message: str) -> None:
        bar = self.window.statusBar()
        if message:
            bar.showMessage(message, 15000)
            self._hinting = True
        elif self._hinting:
            bar.clearMessage()
            self._hinting = False

    def disconnect(self, edge_item: EdgeItem) -> bool:
        """Clear the consumer's inputs that read the edge's value; refused for
        an input the op requires."""
        vedge = edge_item.ref
        value = getattr(vedge, "value", None)
        target = self.window.graph.scene.view_model.nodes.get(vedge.target) if value is not None else None
        node = getattr(target, "node", None)
        if node is None:
            self.window.qdoc.refused.emit(translate(
                "CanvasEdits", "Only an edge into a node's input can be disconnected"))
            return False
        slots = [i for i, v in enumerate(node.inputs) if v is value]
        if not slots:
            return False
        from onnxstudio.core import schemas
        schema = schemas.bind(node.domain, node.op_type, dict(self.window.model.opset_imports))
        names = [v.name if v is not None else "" for v in node.inputs]
        for i in slots:
            if not _optional_slot(schema, i, len(names)):
                what = schema.input_formal(i).name if schema is not None and schema.input_formal(i) else str(i)
                self.window.qdoc.refused.emit(translate(
                    "CanvasEdits", "{node}: input {i} ({what}) is required; connect another value "
                    "to it instead").format(node=node.display_name, i=i, what=what))
                return False
            names[i] = ""
        while names and names[-1] == "":
            names.pop()            # trailing optional inputs are left out, not empty
        return self._push(E.Macro([E.SetNodeInputs(E.node_ref(node), names, self.gpath)],
                                  translate("CanvasEdits", "Disconnect {value} from {node}").format(
                                      value=value.name, node=node.display_name)))

    @staticmethod
    def is_loose(node) -> bool:
        """A node that reads and feeds nothing yet (e.g. just added with Tab):
        it can be dropped onto an edge."""
        return (node is not None and all(v is None for v in node.inputs)
                and all(v is None or (not v.uses and not v.is_graph_output) for v in node.outputs)
                and any(v is not None for v in node.outputs))

    def drop_on_edge(self, node, edge_item: EdgeItem) -> bool:
        """Insert a loose node on an edge: it reads the edge's value, and the
        edge's reader reads the node's first output instead (one undo step)."""
        self._hint("")          # "Release to insert…" is done with
        vedge = edge_item.ref
        value = getattr(vedge, "value", None)
        if value is None or not self.is_loose(node):
            return False
        target = self.window.graph.scene.view_model.nodes.get(vedge.target)
        consumers = None
        if target is not None and target.node is not None and any(u is target.node for u, _ in value.uses):
            consumers = [E.node_ref(target.node)]
        outputs = [v.name if v is not None else "" for v in node.outputs]
        attributes = {k: (int(a.type), a.value) for k, a in node.attributes.items() if not a.ref_attr_name}
        op, domain, name, ref = node.op_type, node.domain, node.name, E.node_ref(node)

        def build():
            insert = E.insert_on_edge(self.window.model, value.name, op, consumers=consumers,
                                      attributes=attributes, graph=self.gpath, domain=domain,
                                      name=name or "", output=outputs[0])
            import dataclasses
            add = dataclasses.replace(insert.edits[0], outputs=outputs)
            return E.Macro([E.RemoveNode(ref, self.gpath), add, *insert.edits[1:]],
                           translate("CanvasEdits", "Insert {op} on {value}").format(op=op, value=value.name))
        near = value.producer or (target.node if target is not None else None)
        held = self._screen_spot(near)
        done = self._build(translate("CanvasEdits", "Insert {op}").format(op=op), build)
        if done:
            self._hold_on_screen(near, held, name)
        return done

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
            (translate("CanvasEdits", "Copied {n} node") if len(nodes) == 1
             else translate("CanvasEdits", "Copied {n} nodes")).format(n=len(nodes)), 5000)
        return len(nodes)

    def paste(self) -> bool:
        """Copies get fresh names; inputs produced by copied nodes follow the
        copies, others keep their name when it exists here (else stay empty)."""
        if not CLIPBOARD or self.window.model is None:
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
        name = (translate("CanvasEdits", "Paste {n} node") if len(edits) == 1
                else translate("CanvasEdits", "Paste {n} nodes")).format(n=len(edits))
        done = self._push(E.Macro(edits, name))
        if done:
            self._select_new(edits[0].name)
        return done

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
        self.window.statusBar().showMessage(
            (translate("CanvasEdits", "Extracted {n} node to {path}") if len(nodes) == 1
             else translate("CanvasEdits", "Extracted {n} nodes to {path}")).format(n=len(nodes), path=path), 8000)
        return True

    def cleanup(self) -> bool:
        if self.window.model is None:
            return False
        return self._build(translate("CanvasEdits", "Clean up"), lambda: E.cleanup(self.window.model))

    def _choose_extract_path(self) -> str:
        from PySide6.QtWidgets import QFileDialog
        path, _ = QFileDialog.getSaveFileName(
            self.window, translate("CanvasEdits", "Extract selection to a new model"),
            "extracted.onnx", translate("CanvasEdits", "ONNX model (*.onnx)"))
        return path


def _reaches(start, goal) -> bool:
    """True when `goal` reads (at any distance) something `start` makes."""
    seen, stack = {id(start)}, [start]
    while stack:
        n = stack.pop()
        for v in n.outputs:
            if v is None:
                continue
            for user, _ in v.uses:
                if user is goal:
                    return True
                if id(user) not in seen and user.graph is start.graph:
                    seen.add(id(user))
                    stack.append(user)
    return False


def _optional_slot(schema, index: int, count: int) -> bool:
    """May input `index` (of `count`) be left empty? Without a schema: no."""
    if schema is None:
        return False
    formal = schema.input_formal(index)
    if formal is None:
        return False
    if formal.is_optional:
        return True
    if formal.is_variadic:        # the last of a variadic list, above its minimum
        first = len(schema.inputs) - 1
        return index == count - 1 and count - first > max(formal.min_arity, 1)
    return False
