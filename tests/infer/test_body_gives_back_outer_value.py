"""A body that gives an outer value back as one of its outputs.

An If branch whose output is `o` itself (defined in the main graph) reads
`o` through no node, so `o`'s use list does not lead to the If. Setting
the Transpose that makes `o` to another perm re-inferred nothing: the If's
output kept its old type while a fresh analysis gives the new one
(found by the random-edit test at 150 steps)."""
from __future__ import annotations

from onnxstudio.core import edits
from onnxstudio.core.document import Document
from onnxstudio.core.ir.types import TensorType

from .helpers import B, F, helper, make_model, node, out
from .test_nested_function_edits import _assert_like_fresh, _roundtrip


def _model(*, nested: bool = False):
    """o = Transpose(x, perm=[1, 0]); z = If(k) with a then branch giving
    back o as it is (or, `nested`, through an If inside the branch whose
    own then branch gives o back) and an else branch giving Neg(x): no node
    anywhere reads o."""
    gives_o = helper.make_graph([], "then", [], [helper.make_tensor_value_info("o", F, None)])
    if nested:
        inner_else = helper.make_graph([node("Identity", ["x"], ["ie"])], "inner_else", [],
                                       [helper.make_tensor_value_info("ie", F, None)])
        gives_o = helper.make_graph(
            [node("If", ["k"], ["io"], then_branch=gives_o, else_branch=inner_else, name="inner_if")],
            "then", [], [helper.make_tensor_value_info("io", F, None)])
    else_g = helper.make_graph([node("Neg", ["x"], ["n"])], "else", [], [helper.make_tensor_value_info("n", F, None)])
    nodes = [node("Transpose", ["x"], ["o"], perm=[1, 0], name="t"),
             node("If", ["k"], ["z"], then_branch=gives_o, else_branch=else_g, name="if")]
    return make_model(nodes, [("x", F, [2, 3]), ("k", B, [])], [out("z")], opset=18)


def test_the_holder_follows_a_new_type_of_the_value_its_body_gives_back():
    m = _model()
    doc = Document(m)
    z = m.graph.get_value("z")
    assert doc.analysis.type_of(z) != TensorType(F, (2, 3))     # the branches disagree: [3,2] and [2,3]
    doc.apply(edits.SetAttribute("t", "perm", 7, [0, 1]))
    assert doc.analysis.type_of(z) == TensorType(F, (2, 3))
    _assert_like_fresh(doc, "after the perm edit")


def test_live_equals_fresh_through_edit_undo_redo_with_a_nested_body():
    doc = Document(_model(nested=True))
    _roundtrip(doc, edits.SetAttribute("t", "perm", 7, [0, 1]), "perm of the Transpose a nested body gives back")


def test_a_body_made_to_give_back_another_value_is_followed_too():
    """After an edit rewires the branch's output to another outer value, a
    type move of that value reaches the If (the kept map is built again)."""
    m = _model()
    doc = Document(m)
    doc.apply(edits.AddNode("Transpose", ["x"], ["p"], name="t2", attributes={"perm": [7, [1, 0]]}))
    then_path = (("node", "if", "then_branch"),)
    doc.apply(edits.RemoveGraphOutput("o", graph=then_path))
    doc.apply(edits.AddGraphOutput("p", graph=then_path))
    _assert_like_fresh(doc, "after the rewire")
    doc.apply(edits.SetAttribute("t2", "perm", 7, [0, 1]))
    _assert_like_fresh(doc, "after the second Transpose's perm edit")
