"""The Properties dock follows the current node while stepping without
building its form again for a node of the same kind: the fields stay, their
values change (building the form was most of a step's pause on the UI
thread). pytest-qt, offscreen."""
from edit_helpers import type_into
from viewer_helpers import open_model, wait_idle


def write_leaky_chain(path):
    """x -> LeakyRelu(0.5) -> LeakyRelu(0.25) -> Sigmoid -> LeakyRelu(0.75) -> y."""
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("LeakyRelu", ["x"], ["a"], name="leak1", alpha=0.5),
             helper.make_node("LeakyRelu", ["a"], ["b"], name="leak2", alpha=0.25),
             helper.make_node("Sigmoid", ["b"], ["c"], name="sig"),
             helper.make_node("LeakyRelu", ["c"], ["y"], name="leak3", alpha=0.75)]
    typed = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "leaky", typed[:1], typed[1:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def step(qtbot, win):
    win.run_ui.step_action.trigger()
    assert win.run_ui.controller.wait(60_000)
    wait_idle(qtbot, win)
    # A form not kept is built on the next turn of the event loop (PropertiesPanel.forms_later).
    qtbot.waitUntil(lambda: win.properties.editor is not None)


def test_stepping_to_a_node_of_the_same_kind_keeps_the_form(qtbot, window, tmp_path):
    open_model(qtbot, window, write_leaky_chain(tmp_path / "leaky.onnx"))
    props = window.properties
    step(qtbot, window)                          # the first step runs leak1
    shown = []
    for _ in range(3):
        node = window.run_ui.controller.debug.current
        assert props.current is node and props.editor.node is node
        shown.append((node.name, props.editor, props.editor.attr_editors.get("alpha")))
        step(qtbot, window)
    names = [name for name, _, _ in shown]
    assert names == ["leak2", "sig", "leak3"]
    # leak2 -> sig: another op, another form; sig -> leak3: another form again (alpha is back)
    assert shown[0][1] is not shown[1][1] and shown[1][1] is not shown[2][1]
    # Back to the start: leak1 then leak2 share one form, its values the node's own.
    window.run_ui.controller.restart()
    assert window.run_ui.controller.wait(60_000)
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: props.editor is not None)
    assert props.editor.node.name == "leak1"
    form, alpha = props.editor, props.editor.attr_editors["alpha"]
    assert alpha.edit.text() == "0.5" and form.name_edit.text() == "leak1"
    step(qtbot, window)
    assert props.editor is form and form.node.name == "leak2"
    assert form.attr_editors["alpha"] is alpha and alpha.edit.text() == "0.25" and form.name_edit.text() == "leak2"
    # An edit in the kept form goes to the node it shows now.
    type_into(qtbot, alpha.edit, "0.125")
    nodes = {n.name: n for n in window.model.graph.nodes}
    assert nodes["leak2"].attributes["alpha"].value == 0.125
    assert nodes["leak1"].attributes["alpha"].value == 0.5


def test_a_field_being_typed_in_is_never_handed_to_another_node(qtbot, window, tmp_path):
    """With the focus in a field, showing another node builds a new form: the
    old field's text can never be committed to the node shown next."""
    open_model(qtbot, window, write_leaky_chain(tmp_path / "leaky.onnx"))
    props = window.properties
    nodes = {n.name: n for n in window.model.graph.nodes}
    props.show_node(nodes["leak1"])
    form = props.editor
    props.show_node(nodes["leak2"])
    assert props.editor is form                    # nobody typing: kept
    form.name_edit.setFocus()
    qtbot.waitUntil(form.name_edit.hasFocus)
    props.show_node(nodes["leak3"])
    assert props.editor is not form and props.editor.node is nodes["leak3"]
    assert nodes["leak2"].name == "leak2" and nodes["leak3"].name == "leak3"


def test_while_stepping_a_form_to_build_comes_a_moment_later(qtbot, window, tmp_path):
    """The summary at once, the form on the next turn of the event loop: a
    step's pause and the form's are two short pauses; two nodes shown in a
    row build only the last one's form."""
    open_model(qtbot, window, write_leaky_chain(tmp_path / "leaky.onnx"))
    props = window.properties
    nodes = {n.name: n for n in window.model.graph.nodes}
    props.show_node(nodes["leak1"])
    leaky = props.editor
    built = []
    new_form = props._new_node_form
    props._new_node_form = lambda node: built.append(node.name) or new_form(node)
    with props.forms_later():
        props.show_node(nodes["sig"])
        assert props.current is nodes["sig"] and props.editor is None
        assert props.editor_area.isVisible() and "Sigmoid" in props.browser.toPlainText()
        props.show_node(nodes["leak3"])                  # a kept form fits: shown at once
        assert props.editor is leaky and leaky.node is nodes["leak3"]
        props.show_node(nodes["sig"])
    qtbot.waitUntil(lambda: props.editor is not None)
    assert props.editor.node is nodes["sig"] and built == ["sig"]


def test_a_step_to_a_node_drawn_inside_another_box_goes_straight_to_it(qtbot, window, monkeypatch):
    """With constants as steps, bert_small's steps reach constants and their
    copies drawn inside the box that reads them: after a step that selected
    a box of its own, the box is unselected and Properties shows the node,
    without building the model's form in between (the emptied selection
    did, ~50 ms of the step's pause)."""
    from shared_models import shared_models_root
    from onnxstudio.ui.panels.properties import PropertiesPanel
    open_model(qtbot, window, shared_models_root() / "bert_small" / "model.onnx")
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    r = window.run_ui
    r.constants_action.trigger()                 # copies of constants are steps only when asked
    r.restart_action.trigger()
    assert r.controller.wait(60_000)
    wait_idle(qtbot, window)
    def drawn_inside(node):
        return window.graph.scene.item_for_node(node).ref.node is not node
    for _ in range(200):                       # to a node with a box of its own, selected by the step
        if not drawn_inside(r.controller.debug.current):
            break
        step(qtbot, window)
    for _ in range(200):                       # then to the next one drawn inside another box
        if drawn_inside(r.controller.debug.current):
            break
        assert window.graph.scene.selectedItems()
        shown_model = []
        show_model = PropertiesPanel.show_model
        monkeypatch.setattr(PropertiesPanel, "show_model", lambda self: shown_model.append(1) or show_model(self))
        step(qtbot, window)
        monkeypatch.undo()
    current = r.controller.debug.current
    assert drawn_inside(current)
    assert window.properties.current is current and window.properties.editor.node is current
    assert not window.graph.scene.selectedItems() and not shown_model
