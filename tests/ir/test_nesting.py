"""core.ir.nesting: the one answer to "which top-level node holds this node"
and "which values does this subgraph read from outside", pinned where the
copies it replaced disagreed."""
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.ir.nesting import (holder_in, node_reads, outer_uses, outer_values, subgraph_reads,
                                        top_level_node)


def _f(name):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, None)


def _model():
    """x -> Relu "pre" -> t; If "outer" whose then-branch reads t twice and
    holds If "inner" whose branch defines its own value named t (a shadow:
    the copy that scoped by name took the outer read for a local one)."""
    shadow = helper.make_graph([helper.make_node("Neg", ["x"], ["t"], name="shadow_t"),
                                helper.make_node("Identity", ["t"], ["s_out"], name="reads_inner_t")],
                               "shadow", [], [_f("s_out")])
    plain = helper.make_graph([helper.make_node("Identity", ["x"], ["p_out"], name="plain_copy")],
                              "plain", [], [_f("p_out")])
    then = helper.make_graph([helper.make_node("Add", ["t", "t"], ["tt"], name="reads_outer_t"),
                              helper.make_node("If", ["cond"], ["i_out"], name="inner",
                                               then_branch=shadow, else_branch=plain),
                              helper.make_node("Add", ["tt", "i_out"], ["o_then"], name="sum")],
                             "then", [], [_f("o_then")])
    other = helper.make_graph([helper.make_node("Identity", ["t"], ["o_else"], name="else_copy")],
                              "else", [], [_f("o_else")])
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"], name="pre"),
                           helper.make_node("If", ["cond"], ["y"], name="outer", then_branch=then,
                                            else_branch=other)],
                          "m", [_f("x"), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])], [_f("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    return core.load_bytes(m.SerializeToString())


def _node(graph, name):
    for g in graph.walk():
        for n in g.nodes:
            if n.name == name:
                return n
    raise KeyError(name)


def _names(values):
    return [(v.name, v.graph.name if v.graph is not None else None) for v in values]


def test_top_level_node_at_any_depth_and_none_outside():
    main = _model().graph
    outer = _node(main, "outer")
    assert top_level_node(outer, main) is outer
    assert top_level_node(_node(main, "reads_inner_t"), main) is outer
    then = dict(outer.subgraphs())["then_branch"]
    inner = _node(main, "inner")
    assert top_level_node(_node(main, "reads_inner_t"), then) is inner
    # Not inside the graph asked about: None, never the outermost node reached.
    assert top_level_node(_node(main, "pre"), then) is None
    assert holder_in(dict(inner.subgraphs())["then_branch"], main) is outer
    assert holder_in(main, main) is None


def test_outer_reads_are_scoped_by_graph_not_by_name():
    main = _model().graph
    then = dict(_node(main, "outer").subgraphs())["then_branch"]
    # t is read from the main graph even though a nested body defines its own t.
    assert _names(outer_values(then)) == [("t", "m"), ("cond", "m"), ("x", "m")]
    # ...and the inner shadow's own t is not an outer read of that body.
    shadow = dict(_node(main, "inner").subgraphs())["then_branch"]
    assert _names(outer_values(shadow)) == [("x", "m")]


def test_outer_uses_keep_repeats_outer_values_do_not():
    main = _model().graph
    then = dict(_node(main, "outer").subgraphs())["then_branch"]
    assert [(n.name, i, v.name) for n, i, v in outer_uses(then)][:2] == [
        ("reads_outer_t", 0, "t"), ("reads_outer_t", 1, "t")]
    # Both branches read t: the node's subgraph reads list it once.
    outer = _node(main, "outer")
    assert _names(subgraph_reads(outer)) == [("t", "m"), ("cond", "m"), ("x", "m")]
    assert [v.name for v in node_reads(outer)] == ["cond", "t", "cond", "x"]


def test_a_value_attached_to_no_graph_counts_as_outside():
    main = _model().graph
    then = dict(_node(main, "outer").subgraphs())["then_branch"]
    t = _node(main, "pre").outputs[0]
    t.graph = None          # a value detached from every graph is defined nowhere in the body
    try:
        assert any(v is t for v in outer_values(then))
    finally:
        t.graph = main
