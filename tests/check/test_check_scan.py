"""The lean pass (core/check/scan.py) never hides a finding: a node that
repeats a clean node except for one thing a rule reads is still reported,
and checks with the pass equal checks where the rules see every node."""
from __future__ import annotations

import pathlib
import random

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core.check import CheckSession, check
from onnxstudio.core.check import graph_rules, scan
from onnxstudio.core.proto import onnx_pb2 as pb

from shared_models import shared_model, shared_model_dirs, shared_model_names


def _ours(onnx_model) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(onnx_model.SerializeToString())
    return m


def _model(nodes, inputs, outputs, opset=17, **kw):
    g = helper.make_graph(nodes, "g", inputs, outputs, **kw)
    return _ours(helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)]))


def _vi(name, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, [2])


def _rules_only(model, monkeypatch):
    # Every node a suspect: the rules judge them all (types still derived).
    with monkeypatch.context() as m:
        m.setattr(scan, "node_fields_clean", lambda *args: False)
        return check(model)


def _found(diags):
    return {(d.code, d.path) for d in diags}


def test_repeated_signature_keeps_later_errors():
    # Five LeakyRelu nodes share one clean signature; two of them carry an
    # attribute the operator does not have.
    nodes, prev = [], "x"
    for k in range(5):
        extra = {"beta": 1.0} if k in (2, 4) else {}
        nodes.append(helper.make_node("LeakyRelu", [prev], [f"r{k}"], name=f"n{k}", alpha=0.1, **extra))
        prev = f"r{k}"
    found = _found(check(_model(nodes, [_vi("x")], [_vi(prev)])))
    assert found == {("attr.unknown", 'graph/node[2] LeakyRelu "n2"/attribute "beta"'),
                     ("attr.unknown", 'graph/node[4] LeakyRelu "n4"/attribute "beta"')}


def test_same_op_and_attributes_with_other_input_types():
    nodes = [helper.make_node("Add", ["a", "b"], ["s0"], name="ok"),
             helper.make_node("Add", ["a", "i"], ["s1"], name="mixed"),
             helper.make_node("Add", ["a", "b"], ["s2"], name="ok_again")]
    model = _model(nodes, [_vi("a"), _vi("b"), _vi("i", TensorProto.INT64)],
                   [_vi("s0"), _vi("s1"), _vi("s2")])
    found = _found(check(model))
    assert found == {("node.type-mismatch", 'graph/node[1] Add "mixed"/input[1] "i"')}


def test_constants_with_equal_dims_are_checked_each():
    good = numpy_helper.from_array(np.ones(4, np.float32), "c0")
    renamed = numpy_helper.from_array(np.zeros(4, np.float32), "c2")
    short = numpy_helper.from_array(np.ones(4, np.float32), "c1")
    short.raw_data = short.raw_data[:12]          # 3 floats for dims [4]
    nodes = [helper.make_node("Constant", [], [f"k{j}"], name=f"c{j}", value=t)
             for j, t in enumerate((good, short, renamed))]
    outs = [helper.make_tensor_value_info(f"k{j}", TensorProto.FLOAT, [4]) for j in range(3)]
    found = _found(check(_model(nodes, [], outs)))
    assert found == {("tensor.data-length", 'graph/node[1] Constant "c1"/attribute "value"')}


def test_subgraph_holders_see_their_position():
    # Two If nodes with byte-identical branches; only the second sits where
    # the outer name the branches read is not yet defined.
    def branch():
        return helper.make_graph([helper.make_node("Identity", ["late"], ["o"])], "b", [], [_vi("o")])
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    nodes = [helper.make_node("Identity", ["x"], ["late"], name="def"),
             helper.make_node("If", ["c"], ["y0"], name="if0", then_branch=branch(), else_branch=branch()),
             helper.make_node("If", ["c"], ["y1"], name="if1", then_branch=branch(), else_branch=branch())]
    nodes = [nodes[1], nodes[0], nodes[2]]    # if0 now comes before "late" is defined
    found = _found(check(_model(nodes, [cond, _vi("x")], [_vi("y0"), _vi("y1")])))
    assert {c for c, _ in found} == {"graph.undefined-input"}
    assert all(p.startswith('graph/node[0] If "if0"') for _, p in found)
    assert len(found) == 2                      # one per branch


@pytest.mark.parametrize("name", shared_model_names())
def test_shared_models_equal_rules_only(name, monkeypatch):
    path = shared_model(name) / "model.onnx"
    model = pb.ModelProto()
    model.ParseFromString(path.read_bytes())
    assert check(model) == _rules_only(model, monkeypatch)


def test_random_edits_of_repeated_nodes_equal_rules_only(monkeypatch):
    # A chain of near-identical blocks; each round breaks or repairs one
    # thing in one block and compares checks with the pass and rules-only checks.
    nodes, prev = [], "x"
    for k in range(8):
        nodes += [helper.make_node("Conv", [prev, "w"], [f"c{k}"], name=f"conv{k}", pads=[1, 1], kernel_shape=[3]),
                  helper.make_node("LeakyRelu", [f"c{k}"], [f"r{k}"], name=f"act{k}", alpha=0.1),
                  helper.make_node("Cast", [f"r{k}"], [f"t{k}"], name=f"cast{k}", to=TensorProto.FLOAT),
                  helper.make_node("Add", [f"t{k}", prev], [f"a{k}"], name=f"add{k}")]
        prev = f"a{k}"
    w = numpy_helper.from_array(np.ones((2, 2, 3), np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5])
    model = _model(nodes, [x], [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [1, 2, 5])],
                   initializer=[w])
    rng = random.Random(3)
    A = pb.AttributeProto
    for _ in range(40):
        node = model.graph.node[rng.randrange(len(model.graph.node))]
        what = rng.randrange(4)
        if what == 0 and len(node.attribute):
            a = node.attribute[0]
            a.type = rng.choice([A.INT, A.FLOAT, A.INTS, A.FLOATS])
        elif what == 1:
            node.attribute.add(name=rng.choice(["alpha", "to", "group", "extra"]), type=A.INT, i=rng.randrange(3))
        elif what == 2 and node.op_type == "Cast":
            for a in node.attribute:
                if a.name == "to":
                    a.i = rng.choice([TensorProto.FLOAT, TensorProto.INT64, TensorProto.DOUBLE])
        else:
            node.op_type = rng.choice(["Relu", "Add", "Identity", "Cast"])
        session = CheckSession(model)
        assert session.diagnostics == _rules_only(model, monkeypatch)


def _backend_and_shared_models():
    from backend_data import all_cases
    paths = [c.model_path for c in all_cases()][::7] + [d / "model.onnx" for d in shared_model_dirs()]
    return paths


def test_one_pass_derivation_equals_node_by_node():
    # scan_graph (the full check's loop) must leave exactly the derived
    # types infer_elem_types does, node by node, as a re-check sees them.
    from onnxstudio.core.check.context import Context, Scope
    from onnxstudio.core.check.model_rules import imported_opsets
    compared = 0
    for path in _backend_and_shared_models():
        model = pb.ModelProto()
        model.ParseFromString(pathlib.Path(path).read_bytes())
        opsets = imported_opsets(model)
        ctx = Context(ir_version=model.ir_version, opsets=opsets, model_opsets=opsets)
        defs = {vi.name: graph_rules.INPUT_POS for vi in model.graph.input}
        defs.update({t.name: graph_rules.INIT_POS for t in model.graph.initializer})
        types = graph_rules.declared_types(model.graph)
        fast = Scope(dict(defs), 1 << 62, None, types, "graph")
        if scan.scan_graph(model.graph.node, fast, ctx, []) is None:
            continue
        slow = Scope(fast.defs, 1 << 62, None, types, "graph")
        graph_rules.infer_elem_types(model.graph, slow, ctx)
        assert fast.inferred == slow.inferred, path
        compared += 1
    assert compared > 20


def test_large_attributes_are_judged_each_time():
    big = helper.make_attribute("weights", [0.5] * scan.MAX_REMEMBERED_BYTES)
    nodes = [helper.make_node("LeakyRelu", ["x"], ["r0"], name="a"),
             helper.make_node("LeakyRelu", ["r0"], ["r1"], name="b")]
    for n in nodes:
        n.attribute.append(big)
    found = _found(check(_model(nodes, [_vi("x")], [_vi("r1")])))
    assert found == {("attr.unknown", 'graph/node[0] LeakyRelu "a"/attribute "weights"'),
                     ("attr.unknown", 'graph/node[1] LeakyRelu "b"/attribute "weights"')}


def test_fields_after_op_type_are_judged_per_node():
    # Identical nodes but for fields the node's key holds after its op_type
    # (here metadata_props, which IR 9 does not have, and the domain
    # spelling); the name holds the bytes that open the op_type field.
    nodes = [helper.make_node("LeakyRelu", ["x"], ["r0"], name='"\tLeakyRelu', alpha=0.1),
             helper.make_node("LeakyRelu", ["r0"], ["r1"], name="b", alpha=0.1),
             helper.make_node("LeakyRelu", ["r1"], ["r2"], name="c", alpha=0.1),
             helper.make_node("LeakyRelu", ["r2"], ["r3"], name="d", alpha=0.1, domain="ai.onnx")]
    model = _model(nodes, [_vi("x")], [_vi("r3")])
    model.ir_version = 9
    model.graph.node[2].metadata_props.add(key="k", value="v")
    found = _found(check(model))
    assert found == {("model.feature-too-new", 'graph/node[2] LeakyRelu "c"')}
    assert check(model) == _rules_only(model, pytest.MonkeyPatch())


def test_node_bytes_keep_their_field_order():
    # The node key relies on protobuf writing fields in number order.
    assert scan._fields_in_order()


@pytest.mark.parametrize("name", shared_model_names()[:4])
def test_ir_models_with_inferred_types_equal_rules_only(name, monkeypatch):
    path = shared_model(name) / "model.onnx"
    # check(ir_model) adds core.infer's types through type_lookup: they are
    # part of every verdict's key, so the pass still agrees with the rules.
    from onnxstudio import core
    ir_model = core.load_bytes(path.read_bytes())
    assert check(ir_model) == _rules_only(ir_model, monkeypatch)


def _constant(name, values, dtype=np.float32):
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(np.asarray(values, dtype), ""))


def test_repeated_constants_after_many_distinct_ones(monkeypatch):
    # Enough distinct Constants to use up the signature's keying credit,
    # then byte-identical repeats of a broken one and of a clean one: each
    # repeat is reported (or cleared) like the first.
    nodes = [_constant(f"k{j}", [float(j)] * 3) for j in range(3 * scan._KEY_CREDIT)]
    broken = _constant("bad", [1.0, 2.0, 3.0])
    broken.attribute[0].t.raw_data = broken.attribute[0].t.raw_data[:8]
    for j in range(3 * scan._SAMPLE_EVERY):
        repeat = pb_copy(broken if j % 3 == 0 else nodes[0])
        repeat.output[0] = repeat.name = f"r{j}"
        nodes.append(repeat)
    outs = [helper.make_tensor_value_info(n.output[0], TensorProto.FLOAT, [3]) for n in nodes]
    model = _model(nodes, [], outs)
    found = _found(check(model))
    assert {c for c, _ in found} == {"tensor.data-length"}
    assert len(found) == len(range(0, 3 * scan._SAMPLE_EVERY, 3))      # every broken repeat
    assert check(model) == _rules_only(model, monkeypatch)


def pb_copy(node):
    copy = type(node)()      # an onnx NodeProto, copied
    copy.CopyFrom(node)
    return copy


def test_same_node_bytes_with_other_declared_output_types():
    # Byte-identical Relu nodes (after op_type) whose outputs are declared
    # with different element types: only the int64 one breaks the constraint.
    nodes = [helper.make_node("Relu", ["x"], ["y0"], name="a"),
             helper.make_node("Relu", ["x"], ["y1"], name="b"),
             helper.make_node("Relu", ["x"], ["y2"], name="c")]
    model = _model(nodes, [_vi("x")], [_vi("y0"), _vi("y1", TensorProto.INT64), _vi("y2")])
    found = _found(check(model))
    assert {c for c, _ in found} == {"node.type-mismatch"}
    assert all('graph/node[1] Relu "b"' in p for _, p in found)


def test_no_verdict_outlives_its_check():
    # The same signature and types in two models: what the first check
    # learnt about its (clean) node must not clear the second's bad one.
    good = [helper.make_node("LeakyRelu", ["x"], ["y"], name="n", alpha=0.1)]
    bad = [helper.make_node("LeakyRelu", ["x"], ["y"], name="n", alpha=0.1, beta=1.0)]
    assert check(_model(good, [_vi("x")], [_vi("y")])) == []
    found = _found(check(_model(bad, [_vi("x")], [_vi("y")])))
    assert found == {("attr.unknown", 'graph/node[0] LeakyRelu "n"/attribute "beta"')}


def test_nested_subgraph_redefining_names_of_each_enclosing_graph(monkeypatch):
    # The innermost branch redefines a main-graph node output and a name of
    # the branch around it; a sibling branch defines a name nobody else has.
    cond = helper.make_tensor_value_info("c", TensorProto.BOOL, [])

    def leaf(out, src):
        return helper.make_graph([helper.make_node("Identity", [src], [out])], "leaf", [], [_vi(out)])
    inner_if = helper.make_node("If", ["c"], ["m_out"], then_branch=leaf("main_y", "x"), else_branch=leaf("mid", "x"))
    middle = helper.make_graph([helper.make_node("Identity", ["x"], ["mid"]), inner_if,
                                helper.make_node("Identity", ["m_out"], ["b_out"])], "middle", [], [_vi("b_out")])
    nodes = [helper.make_node("Identity", ["x"], ["main_y"], name="def"),
             helper.make_node("If", ["c"], ["z"], name="outer", then_branch=middle, else_branch=leaf("fresh", "x"))]
    model = _model(nodes, [cond, _vi("x")], [_vi("z")])
    found = _found(check(model))
    redefined = {p.rsplit("/", 1)[-1] for c, p in found if c == "graph.redefinition"}
    assert redefined == {'output[0] "main_y"', 'output[0] "mid"'}
    assert {c for c, _ in found} == {"graph.redefinition", "graph.output-undefined"}
    assert check(model) == _rules_only(model, monkeypatch)
