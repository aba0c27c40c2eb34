"""From ONNX graphs (our IR) to boxes: folding, groups, subgraphs, real models."""
from __future__ import annotations

import numpy as np
import pytest
from layout_checks import check_layout

from onnxstudio import core
from onnxstudio.core.layout import GROUP, INPUT, OP, OUTPUT, build_view, layout

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from shared_models import shared_model, shared_model_names  # noqa: E402


def measure(label):
    # Stand-in for the viewer's font metrics: proportional to the text.
    width = max([len(label.title) * 7.0] + [len(line) * 5.5 for line in label.lines]) + 12
    return width, 18 + 12 * len(label.lines)


def load(nodes, inputs, outputs, initializers=(), functions=(), opset=18):
    graph = helper.make_graph(nodes, "g", inputs, outputs, list(initializers))
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset),
                                                    helper.make_opsetid("local", 1)],
                              functions=list(functions))
    return core.load_bytes(model.SerializeToString())


def tensor_info(name, shape=(2, 2)):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def boxes_of(view, kind):
    return sorted(v.label.title for v in view.nodes.values() if v.kind == kind)


def test_constants_are_folded_into_consumers():
    w = numpy_helper.from_array(np.ones((2, 2), np.float32), "m.layer.weight")
    nodes = [
        helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(np.float32(3.0), "c")),
        helper.make_node("Identity", ["m.layer.weight"], ["w_copy"]),
        helper.make_node("MatMul", ["X", "m.layer.weight"], ["a"]),
        helper.make_node("Add", ["a", "c"], ["b"]),
        helper.make_node("Mul", ["b", "w_copy"], ["Y"]),
    ]
    m = load(nodes, [tensor_info("X")], [tensor_info("Y")], [w])
    view = build_view(m.graph, measure)
    assert boxes_of(view, OP) == ["Add", "MatMul", "Mul"]
    assert boxes_of(view, INPUT) == ["X"] and boxes_of(view, OUTPUT) == ["Y"]
    matmul = next(v for v in view.nodes.values() if v.label.title == "MatMul")
    assert any(line.startswith("B ⟨2×2⟩ float") for line in matmul.label.lines), matmul.label
    add = next(v for v in view.nodes.values() if v.label.title == "Add")
    assert "B = 3" in add.label.lines
    assert {e.value.name for e in view.edges.values()} == {"X", "a", "b", "Y"}
    # The hidden Constant/Identity map to the box that shows them.
    by_op = {n.op_type: n for n in m.graph.nodes}
    assert view.box_for(by_op["Constant"]) == add.id
    assert view.box_for(by_op["Identity"]) == view.box_for(by_op["Mul"])
    assert check_layout(view.request, layout(view.request, cache=False)) == []


def test_constant_that_is_an_output_keeps_its_box():
    nodes = [helper.make_node("Constant", [], ["Y"], value_float=1.0)]
    m = load(nodes, [], [tensor_info("Y", ())])
    view = build_view(m.graph, measure)
    assert boxes_of(view, OP) == ["Constant"]
    assert len(view.edges) == 1


def test_constants_nothing_reads_share_one_closed_group():
    """Quantizers leave dozens of unused Constants; each would sit on the
    first rank. They go into one group, closed unless asked for."""
    nodes = [helper.make_node("Constant", [], [f"dead{i}"], name=f"dead{i}", value_float=float(i)) for i in range(5)]
    nodes += [helper.make_node("Constant", [], ["c"], value_float=2.0),
              helper.make_node("Mul", ["X", "c"], ["Y"], name="scale")]
    m = load(nodes, [tensor_info("X")], [tensor_info("Y")])
    from onnxstudio.core.layout.from_graph import UNUSED_GROUP
    view = build_view(m.graph, measure)
    groups = [v for v in view.nodes.values() if v.kind == GROUP]
    assert [g.group for g in groups] == [UNUSED_GROUP] and groups[0].label.lines[0] == "5 nodes"
    assert boxes_of(view, OP) == ["Mul"]           # the used Constant is still folded into Mul
    assert not view.groups[UNUSED_GROUP].expanded
    assert check_layout(view.request, layout(view.request, cache=False)) == []
    opened = build_view(m.graph, measure, expanded={UNUSED_GROUP})
    assert boxes_of(opened, OP) == ["Constant"] * 5 + ["Mul"]
    # A single unused Constant keeps its own box.
    lone = load(nodes[4:], [tensor_info("X")], [tensor_info("Y")])
    assert boxes_of(build_view(lone.graph, measure), OP) == ["Constant", "Mul"]


def scoped_model(layers=3):
    nodes, prev = [], "X"
    for i in range(layers):
        s = f"/m/enc/layer.{i}"
        nodes += [helper.make_node("Relu", [prev], [f"r{i}"], name=f"{s}/act/Relu"),
                  helper.make_node("Neg", [f"r{i}"], [f"n{i}"], name=f"{s}/act/Neg"),
                  helper.make_node("Add", [f"n{i}", "X"], [f"a{i}"], name=f"{s}/Add")]
        prev = f"a{i}"
    nodes.append(helper.make_node("Identity", [prev], ["Y"], name="/m/head/Identity"))
    return load(nodes, [tensor_info("X")], [tensor_info("Y")])


def test_groups_by_scope_open_and_closed():
    m = scoped_model()
    opened = build_view(m.graph, measure)
    # "/m" holds every node, so it is dropped; "/head" has one node, dissolved.
    assert set(opened.groups) == {("enc",)} | {("enc", f"layer.{i}") for i in range(3)} \
        | {("enc", f"layer.{i}", "act") for i in range(3)}
    assert all(g.expanded for g in opened.groups.values())
    out = layout(opened.request, cache=False)
    assert check_layout(opened.request, out) == []
    assert set(out.groups) == set(opened.groups)

    closed = build_view(m.graph, measure, expanded={("enc",)})
    layer_boxes = [v for v in closed.nodes.values() if v.kind == GROUP]
    assert sorted(v.group for v in layer_boxes) == [("enc", f"layer.{i}") for i in range(3)]
    assert layer_boxes[0].label.lines[0] == "3 nodes"
    relu = next(n for n in m.graph.nodes if n.name == "/m/enc/layer.1/act/Relu")
    assert closed.box_for(relu) == "group:enc/layer.1"
    # X feeds Relu and Add of layer.0: one arrow into the closed box, not two.
    x_edges = [e for e in closed.edges.values() if e.value.name == "X"]
    assert len(x_edges) == 3 and len({e.target for e in x_edges}) == 3
    out = layout(closed.request, cache=False)
    assert check_layout(closed.request, out) == []


def test_default_expansion_keeps_within_budget():
    m = scoped_model(layers=30)
    view = build_view(m.graph, measure, budget=40)
    assert len(view.request.nodes) <= 40
    assert build_view(m.graph, measure, budget=10_000).request.nodes.__len__() == 30 * 3 + 3


def test_subgraph_bodies_and_captured_values():
    then_body = helper.make_graph([helper.make_node("Add", ["X", "X"], ["t"])], "then", [],
                                  [tensor_info("t")])
    else_body = helper.make_graph([helper.make_node("Neg", ["X"], ["e"])], "else", [],
                                  [tensor_info("e")])
    nodes = [helper.make_node("ReduceSum", ["X"], ["s"], keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["cond"]),
             helper.make_node("If", ["cond"], ["Y"], then_branch=then_body, else_branch=else_body)]
    zero = numpy_helper.from_array(np.float32(0.0), "zero")
    m = load(nodes, [tensor_info("X")], [tensor_info("Y")], [zero])
    view = build_view(m.graph, measure)
    if_box = next(v for v in view.nodes.values() if v.label.title == "If")
    # The If node reads X inside its bodies: that dependency is drawn.
    assert any(e.value.name == "X" and e.target == if_box.id for e in view.edges.values())
    body = dict(if_box.node.subgraphs())["then_branch"]
    inner = build_view(body, measure)
    outer = [v for v in inner.nodes.values() if v.id.startswith("outer:")]
    assert [v.label.title for v in outer] == ["X"]
    assert "from enclosing graph" in outer[0].label.lines
    assert check_layout(inner.request, layout(inner.request, cache=False)) == []


def test_function_calls_are_marked():
    fn = helper.make_function("local", "Twice", ["a"], ["b"],
                              [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 18)])
    m = load([helper.make_node("Twice", ["X"], ["Y"], domain="local")],
             [tensor_info("X")], [tensor_info("Y")], functions=[fn])
    view = build_view(m.graph, measure)
    call = next(v for v in view.nodes.values() if v.kind == OP)
    assert call.function_key == ("local", "Twice", "")
    assert "local" in call.label.lines


@pytest.mark.parametrize("name", shared_model_names())
def test_shared_models_every_graph(name):
    m = core.load(shared_model(name) / "model.onnx")
    for graph in m.graph.walk():
        view = build_view(graph, measure)
        out = layout(view.request, cache=False)
        assert check_layout(view.request, out) == [], (name, graph.name)
        for n in graph.nodes:
            assert view.box_for(n) in out.nodes, (name, n)


def test_broken_graph_still_opens():
    # Two undefined values with the same empty name, read by one node: the
    # view still has distinct boxes and arrows, and lays out.
    from onnxstudio.core.ir import Graph, Node, Value
    g = Graph("broken")
    a, b = Value(""), Value("")
    out = Value("y")
    g.append(Node("Add", [a, b], [out]))
    g.insert_declaration("output", 0, out)
    view = build_view(g, measure)
    assert len([v for v in view.nodes.values() if v.id.startswith("outer:")]) == 2
    assert all("not defined" in v.label.lines for v in view.nodes.values() if v.id.startswith("outer:"))
    result = layout(view.request, cache=False)
    assert check_layout(view.request, result) == []
