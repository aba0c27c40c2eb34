"""The live checker's main-graph unit (core/check/graph_unit.py): a
structural edit re-checks from the IR's def-use links, without replaying
the graph's definitions over every node, and still equals a full check."""
from __future__ import annotations

from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core import edits
from onnxstudio.core.analysis import Analysis
from onnxstudio.core.check import graph_unit
from onnxstudio.core.document import Document


def _chain(n: int, odd_every: int = 0):
    """x -> Relu -> ... -> y; every `odd_every`-th value named like an
    exporter would ("/layer.3/relu": not a C identifier)."""
    nodes, prev = [], "x"
    for i in range(n):
        out = f"/layer.{i}/relu" if odd_every and i % odd_every == 0 else f"v{i}"
        nodes.append(helper.make_node("Relu", [prev], [out], name=f"relu{i}"))
        prev = out
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [2])])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def test_structural_edits_use_the_ir_definitions(monkeypatch):
    model = _chain(40, odd_every=7)
    doc = Document(model)
    doc.diagnostics
    replays = []
    full_pass = graph_unit.check_nodes_structure

    def counted(*args, **kwargs):
        replays.append(args)
        return full_pass(*args, **kwargs)
    monkeypatch.setattr(graph_unit, "check_nodes_structure", counted)
    middle = model.graph.nodes[20].outputs[0].name
    doc.apply(edits.insert_on_edge(model, middle, "Identity"))
    doc.diagnostics
    doc.apply(edits.bypass_node(model, edits.node_ref(model.graph.nodes[30])))
    doc.diagnostics
    doc.undo()
    doc.diagnostics
    doc.undo()
    got = doc.diagnostics
    assert not replays, "a structural edit replayed the graph's definitions over every node"
    assert got == Analysis(model).diagnostics()


def test_the_summary_of_names_follows_insertions_before_its_examples():
    # "name.not-identifier" counts the odd names and shows the first three:
    # an odd name added before them becomes the first example.
    model = _chain(30, odd_every=10)
    doc = Document(model)
    before = [d for d in doc.diagnostics if d.code == "name.not-identifier"]
    assert before and "3 names" in before[0].message
    first = model.graph.nodes[1].outputs[0].name
    doc.apply(edits.rename_everywhere(model, first, "/early.name"))
    got = doc.diagnostics
    assert got == Analysis(model).diagnostics()
    summary = [d for d in got if d.code == "name.not-identifier"]
    assert "4 names" in summary[0].message and "/early.name" in summary[0].message
    doc.apply(edits.rename_everywhere(model, "/early.name", "plain"))
    assert doc.diagnostics == Analysis(model).diagnostics()
    doc.apply(edits.rename_everywhere(model, model.graph.nodes[0].outputs[0].name, "first_plain"))
    got = doc.diagnostics
    assert got == Analysis(model).diagnostics()
    assert "2 names" in [d for d in got if d.code == "name.not-identifier"][0].message


def test_a_file_with_a_name_defined_twice_is_checked_in_full_until_fixed():
    # The IR keeps both definitions; the unit does not trust its own
    # definitions then, and each edit re-runs the detailed passes.
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r1"), helper.make_node("Neg", ["x"], ["a"], name="r2"),
             helper.make_node("Abs", ["a"], ["y"], name="r3")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    model = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    doc = Document(model)
    assert any(d.code == "graph.redefinition" for d in doc.diagnostics)
    assert not doc.analysis.checker._session._unit.ok
    doc.apply(edits.SetNodeField(edits.node_ref(model.graph.nodes[2]), "name", "renamed"))
    assert doc.diagnostics == Analysis(model).diagnostics()
    doc.apply(edits.insert_on_edge(model, "y", "Identity"))
    assert doc.diagnostics == Analysis(model).diagnostics()


def test_what_the_unit_keeps_stays_the_size_of_the_graph():
    # Inserted and removed nodes come and go: the per-node state follows
    # the graph (no entry for a node that left it), and nothing kept is a
    # protobuf copy of the model.
    from kept_objects import file_form_messages
    model = _chain(30, odd_every=4)
    doc = Document(model)
    doc.diagnostics
    for k in range(12):
        value = model.graph.nodes[(7 * k) % 25].outputs[0].name
        doc.apply(edits.insert_on_edge(model, value, "Identity"))
        doc.diagnostics
        if k % 3 == 2:
            doc.undo()
            doc.undo()
            doc.diagnostics
    session = doc.analysis.checker._session
    unit = session._unit
    assert set(unit.names) == set(model.graph.nodes)
    assert all(node.graph is model.graph for node in session._nodes)
    assert not file_form_messages(doc.analysis.checker)
    assert doc.diagnostics == Analysis(model).diagnostics()


def _bypass_keeping_declarations(model, node):
    """bypass_node as a script may spell it, without removing the value_info
    of the node's output (the app's Delete and Reconnect removes it): a node
    edit that leaves a declared name undefined."""
    macro = edits.bypass_node(model, edits.node_ref(node))
    return edits.Macro([e for e in macro.edits if not isinstance(e, edits.RemoveValueInfo)], macro.name)


def test_a_declared_name_undefined_by_a_node_edit_needs_no_header(monkeypatch):
    # value_info for every value: removing a node but not its entry leaves
    # the entry describing nothing ("graph.value-info-unused"); the unit
    # picks that entry's other findings instead of writing the header again.
    from onnxstudio.core.check import on_demand
    nodes, prev, infos = [], "x", []
    for i in range(12):
        nodes.append(helper.make_node("Relu", [prev], [f"v{i}"], name=f"relu{i}"))
        infos.append(helper.make_tensor_value_info(f"v{i}", TensorProto.FLOAT, [2]))
        prev = f"v{i}"
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [2])], value_info=infos)
    model = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    doc = Document(model)
    assert doc.diagnostics == []
    headers = []
    written = on_demand.OnDemand.header

    def counted(self, clean=None):
        headers.append(1)
        return written(self, clean)
    monkeypatch.setattr(on_demand.OnDemand, "header", counted)
    doc.apply(_bypass_keeping_declarations(model, model.graph.nodes[5]))
    got = doc.diagnostics
    assert [d.code for d in got] == ["graph.value-info-unused"]
    doc.undo()
    assert doc.diagnostics == []
    assert not headers
    monkeypatch.undo()
    doc.apply(_bypass_keeping_declarations(model, model.graph.nodes[5]))
    assert doc.diagnostics == Analysis(model).diagnostics()
