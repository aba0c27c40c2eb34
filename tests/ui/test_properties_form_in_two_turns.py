"""While stepping, a node form no kept form fits is built on one turn of
the event loop and put into the dock on the next (issue 22,
responsiveness: each half is ~10 ms idle, several times that on a loaded
machine, right after a step's stop); a form built for a node stepped past
meanwhile is kept and reused, not built again. pytest-qt, offscreen."""
from test_properties_follow import write_leaky_chain
from viewer_helpers import open_model


def test_a_new_form_is_built_on_one_turn_and_shown_on_the_next(qtbot, window, tmp_path):
    open_model(qtbot, window, write_leaky_chain(tmp_path / "leaky.onnx"))
    props = window.properties
    nodes = {n.name: n for n in window.model.graph.nodes}
    built = []
    new_form = props._new_node_form
    props._new_node_form = lambda node: built.append(node.name) or new_form(node)
    # The turns are driven by hand: nothing else (the analysis ending ...) runs in between.
    with props.forms_later():
        props.show_node(nodes["sig"])
    assert props.editor is None and props._form_timer.isActive()
    props._form_timer.stop()
    props._form_due()                      # the first turn: built, not shown
    assert built == ["sig"] and props.editor is None and props._form_timer.isActive()
    props._form_timer.stop()
    props._form_due()                      # the second: shown
    assert built == ["sig"] and props.editor.node is nodes["sig"]

    # A form built for a node stepped past before it was shown is kept, and shown when its kind comes.
    with props.forms_later():
        props.show_node(nodes["leak1"])
    props._form_timer.stop()
    props._form_due()                      # the first turn: leak1's form built, not shown
    assert built == ["sig", "leak1"] and props.editor is None
    props.show_node(nodes["leak2"])        # the next node, of the same kind, before the second turn
    assert built == ["sig", "leak1"] and props.editor.node is nodes["leak2"]
