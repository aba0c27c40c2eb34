"""LiveChecker keeps an IR model's diagnostics current through node edits."""
from __future__ import annotations

from check_bases import load_base
from kept_objects import file_form_messages
from onnxstudio import core
from onnxstudio.core.check import CheckSession
from onnxstudio.core.check.live import LiveChecker
from onnxstudio.core.ir import Attr, AttrType
from onnxstudio.core.serde.convert import model_to_proto


def _ir(base):
    return core.load_bytes(load_base(base).SerializeToString())


def _full(model):
    return CheckSession(model_to_proto(model)).diagnostics


def test_attribute_edit_is_reported_at_the_node_and_matches_full_check():
    m = _ir("convnet")
    live = LiveChecker(m)
    assert not [d for d in live.diagnostics if d.severity >= 1]
    conv = m.graph.nodes[0]
    conv.attributes["group"] = Attr("group", AttrType.FLOAT, 2.0)
    diags = live.node_changed(conv)
    assert any(d.code == "attr.wrong-type" and d.path == 'graph/node[0] Conv "conv1"/attribute "group"'
               for d in diags)
    assert diags == _full(m)
    del conv.attributes["group"]
    assert live.node_changed(conv) == _full(m)
    assert not [d for d in live.diagnostics if d.severity >= 1]


def test_rewiring_and_subgraph_edits():
    m = _ir("branchy")
    live = LiveChecker(m)
    mul = m.graph.nodes[5]
    mul.replace_input(1, m.graph.get_value("k"))
    assert live.node_changed(mul) == _full(m)
    if_node = m.graph.nodes[3]
    then_g = if_node.attributes["then_branch"].value
    inner = then_g.nodes[0]
    inner.op_type = "NoSuchOp"
    diags = live.node_changed(inner)
    assert any(d.code == "node.unknown-op" and d.path.startswith('graph/node[3] If "choose"/attribute "then_branch"')
               for d in diags)
    assert diags == _full(m)


def test_structural_edit_falls_back_to_a_full_check():
    m = _ir("convnet")
    live = LiveChecker(m)
    relu = m.graph.nodes[1]
    extra = core.Node("Relu", [relu.outputs[0]], [], name="dangling")
    m.graph.append(extra)
    assert live.node_changed(extra) == _full(m)


def _fresh_with_inference(model):
    """A fresh check of the IR model with inference: the file form's
    findings with inferred types, plus what inference itself finds (its
    contradictions with declarations, and in nodes), as the live checker
    gives them."""
    from onnxstudio.core.check import check
    return check(model)


def test_with_inference_edits_match_a_fresh_inferred_check():
    from onnxstudio.core.infer import Inference
    from onnxstudio.core.changes import Changes
    m = _ir("branchy")
    inference = Inference(m)
    inference.run()
    live = LiveChecker(m, inference=inference)
    assert live.diagnostics == _fresh_with_inference(m)
    cast = m.graph.nodes[2]

    def edited(node):
        # The order Analysis keeps: inference first, then the checker with what moved.
        changes = Changes()
        changes.node(node)
        return live.apply(changes, inference.apply(changes))
    for to in (1, 7, 9, 8, 9):            # float, int64, bool, string, bool again
        cast.attributes["to"] = Attr("to", AttrType.INT, to)
        assert edited(cast) == _fresh_with_inference(m), to
    cast.attributes["to"] = Attr("to", AttrType.INT, 8)
    diags = edited(cast)
    assert any(d.code == "node.input-type" and d.path.startswith('graph/node[3] If "choose"') for d in diags)


def test_the_document_reports_ir_level_findings_as_core_check_does():
    """A value serde cannot write (set from Python) and a stale declaration
    reach the live checker too (the app's Problems dock), not only
    core.check: the same findings, in the same words."""
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute, SetValueType
    doc = Document(_ir("convnet"))
    doc.diagnostics
    conv = doc.model.graph.nodes[0]
    conv.attributes["group"] = Attr("group", AttrType.INT, "two")
    doc.apply(SetAttribute(conv.name, "pads", AttrType.INTS, [1, 1, 1, 1]))   # any edit of that node
    bad = [d for d in doc.diagnostics if d.code == "attr.value-not-of-type"]
    assert [d.path for d in bad] == ['graph/node[0] Conv "conv1"/attribute "group"']
    assert bad == [d for d in core.check(doc.model) if d.code == "attr.value-not-of-type"]
    doc.apply(SetAttribute(conv.name, "group", AttrType.INT, 1))
    assert not [d for d in doc.diagnostics if d.code == "attr.value-not-of-type"]

    out = doc.model.graph.outputs[0]
    shape = list(out.type.shape)
    shape[-1] = 12345
    doc.apply(SetValueType(out.name, out.type.elem_type, shape))
    stale = [d for d in doc.diagnostics if d.code == "graph.declared-type-contradicts"]
    assert stale and stale[0].path.startswith("graph/output[0]") and "12345" in stale[0].message
    assert stale == [d for d in core.check(doc.model) if d.code == "graph.declared-type-contradicts"]


def test_a_subgraph_output_naming_an_outer_value_follows_its_retyping():
    # A then-branch whose output is the outer value a_out: the branch's file
    # form carries a_out's type, so removing a_out's value_info in the main
    # graph re-writes the If (found by a long random-edit run).
    from onnx import TensorProto, helper
    from onnxstudio.core import edits
    from onnxstudio.core.analysis import Analysis
    from onnxstudio.core.document import Document
    then_g = helper.make_graph([helper.make_node("Identity", ["a_out"], ["t"], name="inner")], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="inner_neg")], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Relu", ["x"], ["a_out"], name="a"),
             helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g, else_branch=else_g)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
                                       helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4])],
                          value_info=[helper.make_tensor_value_info("a_out", TensorProto.FLOAT, ["N", 4])])
    model = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    doc = Document(model)
    doc.diagnostics
    then_branch = dict(model.graph.nodes[1].subgraphs())["then_branch"]
    doc.apply(edits.bypass_node(model, "inner", graph=edits.graph_path(then_branch)))
    doc.diagnostics
    doc.apply(edits.RemoveValueInfo("a_out"))
    got = doc.diagnostics
    assert not file_form_messages(doc.analysis.checker)
    assert got == Analysis(model).diagnostics()


class _PublicOnly:
    """An Inference seen through its public methods only: reading its
    dicts (types, consts, syms, contradictions, previous) or a private
    name fails the test."""
    _ALLOWED = frozenset({"run", "apply", "type_of", "types_in", "type_before_update",
                          "declarations_contradicted", "diagnostics",
                          "errors"})      # per-node contradictions, reported by ir_rules.inferred_errors

    def __init__(self, inference):
        object.__setattr__(self, "_inner", inference)

    def __getattr__(self, name):
        if name not in self._ALLOWED:
            raise AssertionError(f"the checker read Inference.{name}")
        return getattr(object.__getattribute__(self, "_inner"), name)


def test_the_live_checker_reads_inference_through_its_public_methods():
    from onnxstudio.core.changes import Changes
    from onnxstudio.core.edits import SetValueType
    from onnxstudio.core.infer import Inference
    m = _ir("branchy")
    inference = Inference(m)
    inference.run()
    live = LiveChecker(m, inference=_PublicOnly(inference))
    assert live.diagnostics == _fresh_with_inference(m)
    cast = m.graph.nodes[2]
    for to in (7, 9, 1):
        cast.attributes["to"] = Attr("to", AttrType.INT, to)
        changes = Changes()
        changes.node(cast)
        assert live.apply(changes, inference.apply(changes)) == _fresh_with_inference(m), to
    out = m.graph.outputs[0]
    changes = Changes()
    SetValueType(out.name, out.type.elem_type, [12345] * len(out.type.shape or [1])).apply(m, changes)
    found = live.apply(changes, inference.apply(changes))
    assert any(d.code == "graph.declared-type-contradicts" for d in found)
    assert found == core.check(m)


def test_the_name_summary_follows_structural_edits_as_a_full_check_words_it():
    """The live checker judges only the names an edit replaced for the
    "not a C identifier" summary (count and first three shown): after
    renames, inserts and deletions at the start, middle and end of the
    names, it says what a fresh check says."""
    from onnx import TensorProto, helper
    from onnxstudio.core import edits
    from onnxstudio.core.document import Document
    names = ["x", "a0", "b/1", "c2", "d/3", "e/4", "f5", "g/6", "h7"]
    nodes = [helper.make_node("Relu", [names[k]], [names[k + 1]], name=f"r{k}") for k in range(len(names) - 1)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info(names[-1], TensorProto.FLOAT, [2])])
    onnx_model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    doc = Document(core.load_bytes(onnx_model.SerializeToString()))

    def summary(diags):
        return [(d.path, d.message) for d in diags if d.code == "name.not-identifier"]
    assert summary(doc.diagnostics) == summary(core.check(doc.model))
    steps = [
        lambda: edits.rename_everywhere(doc.model, "a0", "a/0"),       # a new first odd name
        lambda: edits.rename_everywhere(doc.model, "b/1", "b1"),       # one of the first three no longer odd
        lambda: edits.insert_on_edge(doc.model, "x", "Identity"),      # an inserted node's output, at the start
        lambda: edits.rename_everywhere(doc.model, "g/6", "g6"),       # past the first three
        lambda: edits.bypass_node(doc.model, edits.node_ref(doc.model.graph.nodes[4])),
        lambda: edits.rename_everywhere(doc.model, "x", "in/x"),       # a graph input
    ]
    for k, make in enumerate(steps):
        doc.apply(make())
        assert summary(doc.diagnostics) == summary(core.check(doc.model)), k
    for k in range(len(steps)):
        doc.undo()
        assert summary(doc.diagnostics) == summary(core.check(doc.model)), f"undo {k}"
    assert "4 names are" in summary(doc.diagnostics)[0][1]


def test_the_name_summary_comes_and_goes_with_the_only_odd_name():
    from onnx import TensorProto, helper
    from onnxstudio.core import edits
    from onnxstudio.core.document import Document
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r0"), helper.make_node("Relu", ["a"], ["y"], name="r1")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    doc = Document(core.load_bytes(helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()))

    def summary():
        return [d.message for d in doc.diagnostics if d.code == "name.not-identifier"]
    assert summary() == []
    doc.apply(edits.rename_everywhere(doc.model, "a", "a/0"))
    assert summary() == ['1 name is not a C identifier (e.g. "a/0"); most tools accept them']
    doc.apply(edits.insert_on_edge(doc.model, "a/0", "Identity"))
    assert summary() == [d.message for d in core.check(doc.model) if d.code == "name.not-identifier"]
    doc.undo()
    doc.undo()
    assert summary() == []
