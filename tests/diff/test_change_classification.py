"""What counts as a change of a paired node, and how the summary counts
matched nodes (issue 24), on torch 2.13's legacy and dynamo exports of one
small model and on copies of the legacy export with known edits:

- an attribute written out at its signature default equals the attribute
  left out; left out with no default, or at another value, is a change;
- a commutative op's inputs are a multiset: Add(bias, x) is Add(x, bias);
- the matched share is over computing nodes, with Constant nodes and the
  nodes a recognised rewrite explains counted apart."""
import pathlib

import numpy as np
import pytest

from onnxstudio.core import load
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import summary_lines, to_json

DATA = pathlib.Path(__file__).resolve().parent.parent / "data" / "torch_exports"
LEGACY, DYNAMO = DATA / "tiny_legacy.onnx", DATA / "tiny_dynamo.onnx"


@pytest.fixture(scope="module")
def exports_diff():
    return diff_models(load(LEGACY), load(DYNAMO))


def _node(model, name):
    return next(n for n in model.graph.nodes if n.name == name)


def _changes(d):
    return {(c.a.name, c.b.name): (c.attributes, c.inputs) for c in d.changed}


def test_the_exports_differ_only_in_reshape_allowzero(exports_diff):
    # Legacy writes auto_pad="NOTSET", transA=0, stash_type=1 and
    # noop_with_empty_axes=0, dynamo leaves them out: the same values. Its bias
    # Adds read (bias, x), dynamo's (x, bias): the same sums. What is left is
    # real: every Reshape has allowzero=0 in legacy and allowzero=1 in dynamo.
    assert _changes(exports_diff) == {
        ("/Reshape", "node_view"): (["allowzero"], False),
        ("/Reshape_1", "node_view_1"): (["allowzero"], False),
        ("/Reshape_2", "node_view_2"): (["allowzero"], False),
        ("/Reshape_3", "node_view_3"): (["allowzero"], False),
        ("/Reshape_4", "node__unsafe_view"): (["allowzero"], False),
    }


def test_an_attribute_left_out_is_its_default():
    a, b = load(LEGACY), load(LEGACY)
    _node(b, "/stem/Conv").remove_attribute("group")     # written as 1, the default (int)
    _node(b, "/head/Gemm").remove_attribute("alpha")     # written as 1.0, the default (float)
    d = diff_models(a, b)
    assert d.changed == [] and d.equal


def test_an_attribute_left_out_without_default_or_at_another_value_is_a_change():
    a, b = load(LEGACY), load(LEGACY)
    _node(b, "/stem/Conv").remove_attribute("kernel_shape")   # no default: inferred from the weight
    _node(b, "/head/Gemm").remove_attribute("transB")         # written as 1; the default is 0
    assert _changes(diff_models(a, b)) == {("/stem/Conv", "/stem/Conv"): (["kernel_shape"], False),
                                           ("/head/Gemm", "/head/Gemm"): (["transB"], False)}
    # And the other way round: B writes out what A leaves out.
    assert _changes(diff_models(b, a)) == {("/stem/Conv", "/stem/Conv"): (["kernel_shape"], False),
                                           ("/head/Gemm", "/head/Gemm"): (["transB"], False)}


def test_swapped_inputs_of_a_commutative_op_are_not_rewired():
    a, b = load(LEGACY), load(LEGACY)
    add = _node(b, "/qkv/Add")
    add.set_inputs(list(reversed(add.inputs)))
    assert diff_models(a, b).changed == []


def test_swapped_inputs_of_a_non_commutative_op_are_rewired():
    a, b = load(LEGACY), load(LEGACY)
    div = _node(b, "/Div_1")
    div.set_inputs(list(reversed(div.inputs)))
    assert _changes(diff_models(a, b)) == {("/Div_1", "/Div_1"): ([], True)}


def test_a_commutative_op_reading_another_value_is_rewired():
    a, b = load(LEGACY), load(LEGACY)
    add = _node(b, "/Add_3")      # x + mlp(x) -> x + x
    add.set_inputs([add.inputs[0], add.inputs[0]])
    assert ("/Add_3", "/Add_3") in _changes(diff_models(a, b))
    assert _changes(diff_models(a, b))[("/Add_3", "/Add_3")] == ([], True)


def test_matched_share_counts_computing_nodes_and_the_rest_apart(exports_diff):
    j = to_json(exports_diff)
    # The "matched" (every paired node) and the node totals stay as they were.
    assert j["matched"] == 34 and j["nodes_a"] == 70 and j["nodes_b"] == 36
    assert j["node_counts"] == {
        "a": {"computing": 35, "computing_matched": 34, "constants": 3, "constants_matched": 0, "rewritten": 32},
        "b": {"computing": 35, "computing_matched": 34, "constants": 0, "constants_matched": 0, "rewritten": 1},
    }
    assert summary_lines(exports_diff)[0] == (
        "matched:  34 of 35 computing nodes in A, 34 of 35 in B (apart, A/B: constants 3/0, rewritten 32/1)")


def test_a_model_against_itself_matches_every_node_and_constant():
    d = diff_models(load(LEGACY), load(LEGACY))
    c = to_json(d)["node_counts"]
    constants = sum(n.op_type == "Constant" for n in load(LEGACY).graph.nodes)
    assert c["a"] == c["b"] == {"computing": 70 - constants, "computing_matched": 70 - constants,
                                "constants": constants, "constants_matched": constants, "rewritten": 0}
    assert summary_lines(d)[0].startswith(f"matched:  {70 - constants} of {70 - constants} computing nodes in A, "
                                          f"{70 - constants} of {70 - constants} in B (")


def test_the_side_by_side_view_marks_only_what_the_diff_calls_changed(qtbot):
    """The compare window's A and B table follows the diff's verdict: an
    attribute one side leaves out at its default reads "(default)" and is
    not marked; one left out at another value is marked (QA: ReduceMean's
    noop_with_empty_axes was marked beside an unchanged node)."""
    from onnxstudio.ui.diff.side_by_side import SideBySide
    a, b = load(LEGACY), load(LEGACY)
    _node(b, "/stem/Conv").remove_attribute("group")        # at its default
    _node(b, "/head/Gemm").remove_attribute("transB")       # 1 in A; the default is 0
    view = SideBySide(diff_models(a, b))
    qtbot.addWidget(view)
    marked = "#fde7c2"

    def row(html, name):
        """The table row (as Qt writes the HTML back) whose first cell is `name`."""
        return next(r for r in html.split("<tr")[1:] if f">{name}</span>" in r)
    view.show_pair(_node(a, "/stem/Conv"), _node(b, "/stem/Conv"))
    group = row(view.toHtml(), "group")
    assert "(default)" in group and marked not in group
    view.show_pair(_node(a, "/head/Gemm"), _node(b, "/head/Gemm"))
    assert marked in row(view.toHtml(), "transB")


def test_the_side_by_side_view_shows_float_attributes_as_properties_does(qtbot):
    """A float attribute is a float32: the A and B table shows 0.2 as the
    canvas and Properties do, not its float64 expansion 0.20000000298023224
    (seen in a screenshot of Relu -> LeakyRelu)."""
    from onnxstudio.core.ir import Attr, AttrType
    from onnxstudio.ui.diff.side_by_side import SideBySide
    a, b = load(LEGACY), load(LEGACY)
    gemm = _node(b, "/head/Gemm")
    gemm.set_attribute(Attr("alpha", AttrType.FLOAT, float(np.float32(0.2))))   # as read from a file
    view = SideBySide(diff_models(a, b))
    qtbot.addWidget(view)
    view.show_pair(_node(a, "/head/Gemm"), gemm)
    html = view.toHtml()
    assert ">0.2<" in html and "0.2000000" not in html
