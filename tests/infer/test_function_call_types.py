"""A model-local function's body shows what holds for every call.

A body is inferred once per call; its values used to keep the last call's
types (float[7] inside a body the first call passes float[2,3]). Now each
body value shows what the calls agree on (element type, rank, dims), and
stays so after edits that re-infer some calls and not others, and after
undo: always what a fresh Inference gives.
"""
from __future__ import annotations

from onnxstudio.core import edits
from onnxstudio.core.document import Document
from onnxstudio.core.infer import Inference
from onnxstudio.core.ir.types import TensorType

from .helpers import B, F, I64, helper, make_model, node, out


def _add_relu(name="AddRelu", domain="local"):
    return helper.make_function(domain, name, ["x"], ["y"],
                                [node("Add", ["x", "x"], ["s"]), node("Relu", ["s"], ["y"])],
                                [helper.make_opsetid("", 18)])


def _two_calls(shape_a, shape_b, elem_b=F, *, b_read=True):
    """Main graph: c = AddRelu(a), d = AddRelu(b) (d a graph output unless
    `b_read` is False, then nothing reads it)."""
    nodes = [node("AddRelu", ["a"], ["c"], domain="local", name="call_a"),
             node("AddRelu", ["b"], ["d"], domain="local", name="call_b")]
    outputs = [out("c")] + ([out("d", elem_b)] if b_read else [])
    return make_model(nodes, [("a", F, shape_a), ("b", elem_b, shape_b)], outputs,
                      opset=18, functions=[_add_relu()], extra_opsets={"local": 1})


def _body_types(inference, model) -> dict:
    """{(function, value name): type} over every function body."""
    found = {}
    for fn in model.functions.values():
        for g in fn.graph.walk():
            for v in list(g.inputs) + [o for n in g.nodes for o in n.outputs if o is not None]:
                found[(fn.name, v.name)] = inference.type_of(v)
    return found


def _body(model):
    body = model.functions.snapshot()[("local", "AddRelu", "")].graph
    return {v.name: v for v in list(body.inputs) + [o for n in body.nodes for o in n.outputs]}


def _fresh(model) -> dict:
    inf = Inference(model)
    inf.run()
    return _body_types(inf, model)


def test_calls_of_different_ranks_leave_the_rank_unknown():
    m = _two_calls([2, 3], [7])
    inf = Inference(m)
    types = inf.run()
    for name in ("x", "s", "y"):
        assert inf.type_of(_body(m)[name]) == TensorType(F, None), name
    # Each call's outputs are still its own.
    assert types["c"] == TensorType(F, (2, 3))
    assert types["d"] == TensorType(F, (7,))
    assert inf.calls.calls_disagree(_body(m)["y"])


def test_calls_of_one_rank_keep_the_dims_they_agree_on():
    m = _two_calls([2, 3], [5, 3])
    inf = Inference(m)
    inf.run()
    assert inf.type_of(_body(m)["y"]) == TensorType(F, (None, 3))


def test_calls_of_different_element_types_leave_it_unknown():
    m = _two_calls([2, 3], [2, 3], elem_b=I64)
    inf = Inference(m)
    inf.run()
    assert inf.type_of(_body(m)["s"]) == TensorType(0, (2, 3))


def test_calls_of_one_shape_show_that_shape():
    m = _two_calls([2, 3], [2, 3])
    inf = Inference(m)
    inf.run()
    for name in ("x", "s", "y"):
        assert inf.type_of(_body(m)[name]) == TensorType(F, (2, 3)), name
    assert not inf.calls.calls_disagree(_body(m)["y"])


def test_nested_function_body_merges_the_outer_calls():
    outer = helper.make_function("local", "Outer", ["u"], ["w"],
                                 [node("AddRelu", ["u"], ["w"], domain="local")],
                                 [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)])
    nodes = [node("Outer", ["a"], ["c"], domain="local"), node("Outer", ["b"], ["d"], domain="local")]
    m = make_model(nodes, [("a", F, [2, 3]), ("b", F, [4, 3])], [out("c"), out("d")], opset=18,
                   functions=[_add_relu(), outer], extra_opsets={"local": 1})
    inf = Inference(m)
    inf.run()
    assert inf.type_of(_body(m)["y"]) == TensorType(F, (None, 3))


def test_edit_one_call_then_undo_matches_a_fresh_run_each_time():
    m = _two_calls([2, 3], [7])
    doc = Document(m)
    body = _body(m)

    def shown():
        return _body_types(doc.analysis.inference, m)

    def check(want_y):
        doc.analysis.type_of(body["y"])            # brings the analysis up to date
        assert shown() == _fresh(m)
        assert doc.analysis.type_of(body["y"]) == want_y

    check(TensorType(F, None))
    # Only call_b is re-inferred: the body now agrees with call_a exactly.
    doc.apply(edits.SetValueType("b", shape=[2, 3]), merge=False)
    check(TensorType(F, (2, 3)))
    doc.apply(edits.SetValueType("b", shape=[9, 3]), merge=False)
    check(TensorType(F, (None, 3)))
    doc.undo()
    check(TensorType(F, (2, 3)))
    doc.undo()
    check(TensorType(F, None))
    doc.redo()
    check(TensorType(F, (2, 3)))


def test_removing_a_call_drops_its_types_and_undo_brings_them_back():
    m = _two_calls([2, 3], [7], b_read=False)
    doc = Document(m)
    body = _body(m)
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    doc.apply(edits.RemoveNode("call_b"))
    assert doc.analysis.type_of(body["y"]) == TensorType(F, (2, 3))
    assert _body_types(doc.analysis.inference, m) == _fresh(m)
    doc.undo()
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    assert _body_types(doc.analysis.inference, m) == _fresh(m)


def test_a_body_no_call_reaches_has_no_inferred_type():
    m = _two_calls([2, 3], [7], b_read=False)
    doc = Document(m)
    body = _body(m)
    doc.apply(edits.RemoveNode("call_b"))
    # The last call becomes a plain Relu: no call reaches the body.
    doc.apply(edits.SetNodeField("call_a", "domain", ""))
    doc.apply(edits.SetNodeField("call_a", "op_type", "Relu"))
    assert doc.analysis.type_of(m.graph.get_value("c")) == TensorType(F, (2, 3))
    # What the file declares (a function's values declare nothing), as a fresh run.
    assert doc.analysis.type_of(body["y"]) == body["y"].type
    assert _body_types(doc.analysis.inference, m) == _fresh(m)


def test_a_call_inside_an_if_branch_counts_and_moves_with_its_if():
    then_g = helper.make_graph([node("AddRelu", ["b"], ["t"], domain="local")], "then", [],
                               [helper.make_tensor_value_info("t", F, None)])
    else_g = helper.make_graph([node("Identity", ["b"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", F, None)])
    nodes = [node("AddRelu", ["a"], ["c"], domain="local"),
             node("If", ["cond"], ["d"], then_branch=then_g, else_branch=else_g, name="branch")]
    m = make_model(nodes, [("a", F, [2, 3]), ("b", F, [7]), ("cond", B, [])],
                   [out("c"), out("d")], opset=18, functions=[_add_relu()], extra_opsets={"local": 1})
    doc = Document(m)
    body = _body(m)
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    # The If's outer value b changes: only the If (and the call in its branch) runs again.
    doc.apply(edits.SetValueType("b", shape=[2, 3]), merge=False)
    assert doc.analysis.type_of(body["y"]) == TensorType(F, (2, 3))
    assert _body_types(doc.analysis.inference, m) == _fresh(m)
    doc.undo()
    assert doc.analysis.type_of(body["y"]) == TensorType(F, None)
    assert _body_types(doc.analysis.inference, m) == _fresh(m)
