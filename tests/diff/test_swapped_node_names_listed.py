"""The list of differences for a B whose exporter exchanged the names of two
nodes of one op. Names pair first, so the two paired crosswise: each was
listed with its inputs rewired, its neighbours too, and two Constants as
changed values (bert_small with adjacent nodes' names exchanged: 112
changed nodes, 98 of them 'inputs rewired'). A name pair whose wiring
disagrees is now tried by structure, and kept by structure where each pair
agrees: the list says the names changed. A real rewiring agrees no better
by structure and is still listed as rewired.

B is A loaded with core, names exchanged in the IR (of the nodes, and of
their outputs too, as exporters do), saved and loaded again."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import Document, load, load_bytes, save
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import summary_lines, to_json
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import replay
from shared_models import SHARED_MODELS

from .models import exchange_adjacent_names, exchange_names

BERT = SHARED_MODELS / "bert_small" / "model.onnx"


def _model():
    """x -> Relu r1 -> Tanh t1 -> y1, and on from r1: Add add1 (w1) -> Add
    add2 (w2) -> Reshape rs1 (Constant c1) -> Reshape rs2 (Constant c2) -> y3;
    z -> Relu r2 -> Tanh t2 -> y2."""
    def info(name, elem=TensorProto.FLOAT):
        return helper.make_tensor_value_info(name, elem, None)

    def const(name, dims):
        value = numpy_helper.from_array(np.array(dims, np.int64))
        return helper.make_node("Constant", [], [f"{name}_out"], name=name, value=value)
    nodes = [helper.make_node("Relu", ["x"], ["o1"], name="r1"),
             helper.make_node("Relu", ["z"], ["o2"], name="r2"),
             helper.make_node("Tanh", ["o1"], ["y1"], name="t1"),
             helper.make_node("Tanh", ["o2"], ["y2"], name="t2"),
             helper.make_node("Add", ["o1", "w1"], ["h1"], name="add1"),
             helper.make_node("Add", ["h1", "w2"], ["h2"], name="add2"),
             const("c1", [3, 4]), const("c2", [2, 6]),
             helper.make_node("Reshape", ["h2", "c1_out"], ["s1"], name="rs1"),
             helper.make_node("Reshape", ["s1", "c2_out"], ["y3"], name="rs2")]
    inits = [numpy_helper.from_array(np.full(6, k, np.float32), f"w{k}") for k in (1, 2)]
    graph = helper.make_graph(nodes, "g", [info("x"), info("z")], [info("y1"), info("y2"), info("y3")], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


def _node(model, name):
    return next(n for n in model.graph.nodes if n.name == name)


def _read_inputs(model, reader: str, inputs: list) -> None:
    g = model.graph
    _node(model, reader).set_inputs([g.get_value(name) for name in inputs])


def _pair(tmp_path, change):
    """A, and B: A loaded with core, changed by `change`, saved and loaded again."""
    a = load_bytes(_model())
    b = load_bytes(_model())
    change(b)
    save(b, tmp_path / "b.onnx")
    return a, load(tmp_path / "b.onnx")


def _renamed(d) -> set:
    return {(x.name, y.name) for x, y in d.renamed_nodes}


def _rewired(d) -> set:
    return {(c.a.name, c.b.name) for c in d.changed if c.inputs}


@pytest.mark.parametrize("outputs", [False, True], ids=["node names", "node and output names"])
@pytest.mark.parametrize("x,y", [("add1", "add2"), ("c1", "c2"), ("rs1", "rs2"), ("r1", "r2")])
def test_exchanged_names_are_listed_as_names_changed(tmp_path, x, y, outputs):
    a, b = _pair(tmp_path, lambda m: exchange_names(m, x, y, outputs=outputs))
    d = diff_models(a, b)
    assert d.changed == [] and d.added == [] and d.removed == []
    assert _renamed(d) == {(x, y), (y, x)}
    # Each node pairs with the node that stands where it stands in B.
    assert all(na.index == nb.index for na, nb in d.matching.nodes.items())
    vx, vy = _node(a, x).outputs[0].name, _node(a, y).outputs[0].name
    renamed_values = {(va.name, vb.name) for va, vb in d.renamed_values}
    assert renamed_values == ({(vx, vy), (vy, vx)} if outputs else set())
    j = to_json(d)
    assert j["nodes"]["changed"] == []
    assert not [line for line in summary_lines(d) if "rewired" in line or line.startswith("changed nodes")]


def test_a_real_rewiring_of_two_nodes_is_listed_as_rewired(tmp_path):
    """r1 comes to read z and r2 x: B computes something else. Taken by
    structure, each Relu would pair with the other (it reads what the other
    read), but what reads their outputs disagrees: the names stay."""
    a, b = _pair(tmp_path, lambda m: (_read_inputs(m, "r1", ["z"]), _read_inputs(m, "r2", ["x"])))
    d = diff_models(a, b)
    assert _rewired(d) == {("r1", "r1"), ("r2", "r2")}
    assert _renamed(d) == set() and d.renamed_values == []


def test_exchanged_names_and_a_real_rewiring_are_each_listed_as_what_they_are(tmp_path):
    def change(m):
        exchange_names(m, "add1", "add2", outputs=True)
        _read_inputs(m, "r1", ["z"])
        _read_inputs(m, "r2", ["x"])
    a, b = _pair(tmp_path, change)
    d = diff_models(a, b)
    assert _rewired(d) == {("r1", "r1"), ("r2", "r2")}
    assert [c.a.name for c in d.changed] == ["r1", "r2"]
    # In A's order, one after the other (they pair at different times).
    assert [(x.name, y.name) for x, y in d.renamed_nodes] == [("add1", "add2"), ("add2", "add1")]


def test_exchanged_names_with_one_of_the_two_rewired(tmp_path):
    """add2 (named add1 in B) comes to read o1 instead of h1. add1 agrees
    with B's add2 by structure; add2 keeps no claim on its name's node,
    which add1 took: it is the node renamed add1, with its inputs rewired."""
    def change(m):
        exchange_names(m, "add1", "add2", outputs=False)
        _read_inputs(m, "add1", ["o1", "w2"])        # B's add1 is A's add2
    a, b = _pair(tmp_path, change)
    d = diff_models(a, b)
    assert _renamed(d) == {("add1", "add2"), ("add2", "add1")}
    assert _rewired(d) == {("add2", "add1")}
    assert len(d.changed) == 1


@pytest.mark.parametrize("outputs", [False, True], ids=["node names", "node and output names"])
def test_the_script_of_exchanged_names_replays_to_b(tmp_path, outputs):
    def change(m):
        for x, y in (("add1", "add2"), ("c1", "c2"), ("r1", "r2")):
            exchange_names(m, x, y, outputs=outputs)
    a, b = _pair(tmp_path, change)
    derived = derive_script(diff_models(a, b))
    assert derived.not_expressed == []
    assert {s["kind"] for s in derived.script} <= {"set_node_field", "rename_value"}
    doc = Document(a.clone())
    replay(doc, derived.script)
    assert diff_models(doc.model, b).equal


def test_bert_small_with_adjacent_names_exchanged_and_one_node_rewired(tmp_path):
    """44 pairs of bert_small's nodes exchange names (was: 112 changed
    nodes, 98 of them 'inputs rewired'), and one MatMul truly comes to read
    its other input twice: that MatMul is the one node listed."""
    a = load(BERT)
    b = load(BERT)
    pairs = exchange_adjacent_names(b)
    assert len(pairs) == 44
    lone = next(n for n in b.graph.nodes if n.op_type == "MatMul" and n.name not in {x for p in pairs for x in p})
    lone.set_inputs([lone.inputs[0], lone.inputs[0]])
    save(b, tmp_path / "b.onnx")
    d = diff_models(a, load(tmp_path / "b.onnx"))
    assert [(c.a.name, c.b.name, c.inputs, c.attributes) for c in d.changed] == [(lone.name, lone.name, True, [])]
    assert _renamed(d) == {(x, y) for p in pairs for x, y in (p, p[::-1])}
    assert d.added == [] and d.removed == []


def _rewire_relus(m):
    _read_inputs(m, "r1", ["z"])
    _read_inputs(m, "r2", ["x"])


def _exchange_adds_and_rewire_relus(m):
    exchange_names(m, "add1", "add2", outputs=True)
    _rewire_relus(m)


def _exchange_adds_and_rewire_one(m):
    exchange_names(m, "add1", "add2", outputs=True)
    _read_inputs(m, "add1", ["o1", "w2"])


@pytest.mark.parametrize("change", [_rewire_relus, _exchange_adds_and_rewire_relus, _exchange_adds_and_rewire_one])
def test_the_script_of_a_rewiring_among_exchanged_names_replays_to_b(tmp_path, change):
    a, b = _pair(tmp_path, change)
    derived = derive_script(diff_models(a, b))
    assert derived.not_expressed == [] and "set_node_inputs" in {s["kind"] for s in derived.script}
    doc = Document(a.clone())
    replay(doc, derived.script)
    assert diff_models(doc.model, b).equal
