"""An add_node step whose attributes are not written as [type, value] is
refused with a message naming the step and the attribute and showing the
form; it was an internal error ("TypeError: 'float' object is not
iterable") from `onnxstudio edit` and the app's Apply Edit Script. A list
of names written as one string ("inputs": "xW") was read letter by letter."""
import pytest

from onnxstudio import core
from onnxstudio.core.edits import AddNode, EditError, ScriptError, from_script

from .models import chain


def _script(attributes):
    return [{"kind": "add_node", "op_type": "LeakyRelu", "inputs": ["x"], "outputs": ["lr"],
             "attributes": attributes}]


@pytest.mark.parametrize("spec", [0.1, [0.1], "0.1", [1, 0.1, "", "extra"]])
def test_a_bare_attribute_value_in_a_script_is_refused_by_name(spec):
    with pytest.raises(ScriptError, match=r'step 1 \(add_node\): attribute "alpha": write it as \[type, value\]'):
        from_script(_script({"alpha": spec}))


def test_the_written_form_still_reads_and_applies():
    doc = core.Document(chain())
    doc.replay(_script({"alpha": [1, 0.25]}))
    node = next(n for n in doc.model.graph.nodes if n.op_type == "LeakyRelu")
    assert node.attributes["alpha"].value == pytest.approx(0.25)


@pytest.mark.parametrize("attributes", [{"alpha": 0.1}, [("alpha", 0.1)]])
def test_add_node_made_in_code_refuses_a_malformed_attribute(attributes):
    m = chain()
    before = core.to_bytes(m)
    with pytest.raises(EditError, match="alpha|attributes"):
        AddNode("LeakyRelu", ["x"], ["lr"], attributes).apply(m)
    assert core.to_bytes(m) == before


@pytest.mark.parametrize("step", [
    {"kind": "add_node", "op_type": "Add", "inputs": "xW", "outputs": ["q"]},
    {"kind": "add_node", "op_type": "Relu", "inputs": ["x"], "outputs": "q"},
    {"kind": "set_node_inputs", "node": "b", "names": "a_outW"},
    {"kind": "set_node_outputs", "node": "b", "names": "b_out"},
    {"kind": "move_producers_before", "node": "a", "values": "b_out"},
])
def test_a_name_list_written_as_one_string_is_refused(step):
    # "xW" was read letter by letter: an Add of x and W.
    m = chain()
    before = core.to_bytes(m)
    with pytest.raises(EditError, match="a list of value names"):
        core.Document(m).replay([step])
    assert core.to_bytes(m) == before
