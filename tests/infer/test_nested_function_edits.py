"""An edit inside a function that another function calls re-infers the calls.

Main calls Outer, Outer's body calls Inner. An edit of Inner's body must
re-infer the main-graph node above it (the call of Outer), or the types
shown for main's values, for both bodies' values, and the findings read
from inference stay those of the old body. Each case compares the live
Analysis with a fresh one of the same model after the edit, after undo
and after redo.
"""
from __future__ import annotations

import re

import pytest

from onnxstudio.core import edits
from onnxstudio.core.analysis import Analysis
from onnxstudio.core.document import Document
from onnxstudio.core.ir.types import TensorType

from .helpers import B, F, I64, helper, make_model, node, out

INNER = (("function", "local", "Inner", ""),)
OUTER = (("function", "local", "Outer", ""),)
OPSETS = [helper.make_opsetid("", 18), helper.make_opsetid("local", 1)]


def _inner(calls=()):
    """Inner(x) = Relu(Transpose(x, perm=[1, 0])), plus `calls` (nodes)."""
    return helper.make_function(
        "local", "Inner", ["x"], ["y"],
        [node("Transpose", ["x"], ["t"], perm=[1, 0], name="inner_t"),
         node("Relu", ["t"], ["y"], name="inner_relu"), *calls], OPSETS)


def _outer_calling_inner():
    return helper.make_function("local", "Outer", ["u"], ["w"],
                                [node("Inner", ["u"], ["w"], domain="local", name="outer_call")], OPSETS)


def _outer_calling_inner_in_a_branch():
    then_g = helper.make_graph([node("Inner", ["u"], ["t1"], domain="local", name="branch_call")], "then", [],
                               [helper.make_tensor_value_info("t1", F, None)])
    else_g = helper.make_graph([node("Identity", ["u"], ["e1"])], "else", [],
                               [helper.make_tensor_value_info("e1", F, None)])
    return helper.make_function(
        "local", "Outer", ["u", "k"], ["w"],
        [node("If", ["k"], ["w"], then_branch=then_g, else_branch=else_g, name="outer_if")], OPSETS)


def _model(outer, *, inner=None, main_in_branch=False):
    """Main: c = Outer(a) (with the If's condition when Outer takes one),
    directly or inside the then branch of a main-graph If."""
    ins = ["a", "k"] if len(outer.input) == 2 else ["a"]
    call = node("Outer", ins, ["c"], domain="local", name="main_call")
    if main_in_branch:
        then_g = helper.make_graph([call], "then", [], [helper.make_tensor_value_info("c", F, None)])
        else_g = helper.make_graph([node("Identity", ["a"], ["e"])], "else", [],
                                   [helper.make_tensor_value_info("e", F, None)])
        nodes = [node("If", ["k"], ["r"], then_branch=then_g, else_branch=else_g, name="main_if")]
        outputs = [out("r")]
    else:
        nodes = [call, node("Shape", ["c"], ["c_shape"], name="reader")]
        outputs = [out("c"), out("c_shape", I64)]
    return make_model(nodes, [("a", F, [2, 3]), ("k", B, [])], outputs, opset=18,
                      functions=[inner or _inner(), outer], extra_opsets={"local": 1})


_FRESH = re.compile(r"\?\d+")


def _types(analysis) -> list:
    """Every type inference gives, main graph, subgraphs and function bodies,
    fresh dim names (arbitrary per run) numbered by first appearance."""
    model = analysis.model
    names: dict = {}

    def canon(m):
        return names.setdefault(m.group(0), f"?{len(names) + 1}")
    graphs = list(model.graph.walk())
    for fn in model.functions.values():
        graphs.extend(fn.graph.walk())
    found = []
    for g in graphs:
        for name, t in analysis.types_in(g).items():
            found.append((g.path, name, _FRESH.sub(canon, str(t))))
    return found


def _assert_like_fresh(doc, what):
    live = doc.analysis
    got_diags = live.diagnostics()
    fresh = Analysis(doc.model)
    assert _types(live) == _types(fresh), f"{what}: live types differ from a fresh analysis"
    assert got_diags == fresh.diagnostics(), f"{what}: live findings differ from a fresh analysis"


def _roundtrip(doc, edit, what):
    """Apply, compare, undo, compare, redo, compare."""
    _assert_like_fresh(doc, "before")
    before = _types(doc.analysis)
    doc.apply(edit, merge=False)
    _assert_like_fresh(doc, what)
    assert _types(doc.analysis) != before, f"{what}: the edit moved no type (the case shows nothing)"
    doc.undo()
    _assert_like_fresh(doc, f"{what}, undone")
    assert _types(doc.analysis) == before, f"{what}: undo did not give the old types back"
    doc.redo()
    _assert_like_fresh(doc, f"{what}, redone")


INNER_EDITS = [
    pytest.param(lambda: edits.SetAttribute("inner_t", "perm", 7, [0, 1], graph=INNER), id="attribute"),
    pytest.param(lambda: edits.SetNodeField("inner_relu", "op_type", "Shape", graph=INNER), id="op_type"),
    pytest.param(lambda: edits.SetNodeInput("inner_relu", 0, "x", graph=INNER), id="rewire"),
]


@pytest.mark.parametrize("make_edit", INNER_EDITS)
@pytest.mark.parametrize("shape", ["direct", "outer_branch", "main_branch"])
def test_an_edit_of_the_inner_body_reinfers_the_outer_call(make_edit, shape):
    outer = _outer_calling_inner_in_a_branch() if shape == "outer_branch" else _outer_calling_inner()
    m = _model(outer, main_in_branch=shape == "main_branch")
    doc = Document(m)
    _roundtrip(doc, make_edit(), f"{shape}: {make_edit().describe()}")


def test_the_main_value_shows_the_inner_body_as_edited():
    m = _model(_outer_calling_inner())
    doc = Document(m)
    c = m.graph.get_value("c")
    assert doc.analysis.type_of(c) == TensorType(F, (3, 2))
    doc.apply(edits.SetAttribute("inner_t", "perm", 7, [0, 1], graph=INNER))
    assert doc.analysis.type_of(c) == TensorType(F, (2, 3))
    # The Shape reading c is folded from it: a constant of the new shape.
    shape = m.graph.get_value("c_shape")
    assert doc.analysis.type_of(shape) == TensorType(I64, (2,))
    assert list(doc.analysis.inference.consts[shape]) == [2, 3]
    doc.undo()
    assert doc.analysis.type_of(c) == TensorType(F, (3, 2))
    assert list(doc.analysis.inference.consts[shape]) == [3, 2]


def test_three_levels_of_calls():
    top = helper.make_function("local", "Top", ["p"], ["q"],
                               [node("Outer", ["p"], ["q"], domain="local", name="top_call")], OPSETS)
    m = make_model([node("Top", ["a"], ["c"], domain="local", name="main_call")], [("a", F, [2, 3])],
                   [out("c")], opset=18, functions=[_inner(), _outer_calling_inner(), top],
                   extra_opsets={"local": 1})
    doc = Document(m)
    _roundtrip(doc, edits.SetAttribute("inner_t", "perm", 7, [0, 1], graph=INNER), "three levels")


def test_an_edit_of_the_outer_body_still_reinfers_its_calls():
    m = _model(_outer_calling_inner())
    doc = Document(m)
    _roundtrip(doc, edits.insert_on_edge(m, "u", "Shape", graph=OUTER), "insert in Outer")


def test_recursive_functions_are_survived():
    """Inner calls Outer, which calls Inner: invalid (the checker says so),
    and an edit in either body must neither hang nor leave stale types."""
    recursive = _inner(calls=[node("Outer", ["y"], ["again"], domain="local", name="inner_calls_outer")])
    m = _model(_outer_calling_inner(), inner=recursive)
    doc = Document(m)
    _roundtrip(doc, edits.SetAttribute("inner_t", "perm", 7, [0, 1], graph=INNER), "recursive")


def test_outer_no_longer_calling_inner_drops_the_inner_types():
    m = _model(_outer_calling_inner())
    doc = Document(m)
    y = m.functions.snapshot()[("local", "Inner", "")].graph.get_value("y")
    assert doc.analysis.type_of(y) == TensorType(F, (3, 2))
    # "Inner" in the default domain is no function: nothing calls the body now.
    _roundtrip(doc, edits.SetNodeField("outer_call", "domain", "", graph=OUTER), "Outer stops calling Inner")
    doc.undo()
    assert doc.analysis.type_of(y) == TensorType(F, (3, 2))
