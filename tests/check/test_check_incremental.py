"""Incremental re-check equals a full re-check after each edit."""
from __future__ import annotations

import random

import pytest

from check_bases import load_base
from onnxstudio.core.check import CheckSession
from onnxstudio.core.proto import onnx_pb2 as pb
from shared_models import shared_model

A = pb.AttributeProto


def _our_proto(onnx_model) -> pb.ModelProto:
    m = pb.ModelProto()
    m.ParseFromString(onnx_model.SerializeToString())
    return m


def _edit_attribute(m, rng):
    nodes = [(i, n) for i, n in enumerate(m.graph.node) if len(n.attribute)]
    if not nodes:
        return None
    i, n = rng.choice(nodes)
    a = rng.choice(list(n.attribute))
    choice = rng.randrange(4)
    if choice == 0 and a.type == A.INT:
        a.i = rng.choice([0, 1, 2, 7, 11, -1])           # Cast "to" among others
    elif choice == 1:
        a.type = rng.choice([A.INT, A.FLOAT, A.INTS, A.STRING])
    elif choice == 2:
        n.attribute.add(name=f"extra{rng.randrange(3)}", type=A.INT, i=1)
    else:
        a.ClearField("ints") if len(a.ints) else a.ints.extend([1, 1])
    return dict(nodes=[i])


def _edit_op(m, rng):
    i = rng.randrange(len(m.graph.node))
    m.graph.node[i].op_type = rng.choice(["Relu", "Add", "Cast", "Unknown", "Identity", "Shape"])
    return dict(nodes=[i])


def _rewire_input(m, rng):
    g = m.graph
    i = rng.randrange(len(g.node))
    n = g.node[i]
    if not len(n.input):
        return None
    names = [o for node in g.node for o in node.output if o] + [v.name for v in g.input] + ["undefined_x"]
    n.input[rng.randrange(len(n.input))] = rng.choice(names)
    return dict(nodes=[i], names_changed=True)


def _rename_output(m, rng):
    g = m.graph
    i = rng.randrange(len(g.node))
    n = g.node[i]
    if not len(n.output):
        return None
    n.output[0] = rng.choice([n.output[0] + "_renamed", g.input[0].name if len(g.input) else "x"])
    return dict(nodes=[i], names_changed=True)


def _retype_value(m, rng):
    g = m.graph
    candidates = [v for v in list(g.value_info) + list(g.input) if v.type.HasField("tensor_type")]
    if not candidates:
        return None
    v = rng.choice(candidates)
    v.type.tensor_type.elem_type = rng.choice([1, 6, 7, 8, 10, 11])
    return dict(value_types_changed=[v.name])


EDITS = [_edit_attribute, _edit_op, _rewire_input, _rename_output, _retype_value]


def _bases():
    names = ["convnet", "branchy", "with_function", "sparse_training", "test_lstm_defaults",
             "test_softmax_axis_0_expanded", "test_range_float_type_positive_delta_expanded"]
    return [pytest.param(n, id=n) for n in names]


@pytest.mark.parametrize("base", _bases())
def test_incremental_equals_full(base):
    rng = random.Random(base)
    m = _our_proto(load_base(base))
    session = CheckSession(m)
    checked = 0
    for _ in range(60):
        edit = rng.choice(EDITS)
        spec = edit(m, rng)
        if spec is None:
            continue
        got = session.recheck(**spec)
        want = CheckSession(m).diagnostics
        assert got == want, f"after {edit.__name__} {spec}"
        checked += 1
    assert checked >= 30


def test_incremental_on_a_real_model():
    m = pb.ModelProto()
    m.ParseFromString((shared_model("bert_small") / "model.onnx").read_bytes())
    rng = random.Random(3)
    session = CheckSession(m)
    for _ in range(8):
        edit = rng.choice(EDITS)
        spec = edit(m, rng)
        if spec is None:
            continue
        assert session.recheck(**spec) == CheckSession(m).diagnostics, edit.__name__


def test_recheck_of_a_node_reading_a_later_value_sees_what_the_full_check_saw():
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Neg", ["late"], ["n"], name="neg"),          # reads a later value
             helper.make_node("Cast", ["x"], ["late"], name="cast", to=TensorProto.STRING),
             helper.make_node("Abs", ["n"], ["y"], name="abs")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = _our_proto(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    session = CheckSession(m)
    m.graph.node[0].attribute.add(name="extra", type=A.INT, i=1)
    assert session.node_changed(0) == CheckSession(m).diagnostics


def _insert_node(m, rng):
    g = m.graph
    k = rng.randrange(len(g.node) + 1)
    defined = [v.name for v in g.input] + [o for n in list(g.node)[:k] for o in n.output if o]
    if not defined:
        return None
    new = pb.NodeProto(op_type=rng.choice(["Relu", "Shape", "Unknown"]), name=f"ins{k}",
                       input=[rng.choice(defined)], output=[f"inserted_{k}_{rng.randrange(10**6)}"])
    g.node.insert(k, new)
    return dict(region=(k, k, k + 1))


def _remove_node(m, rng):
    g = m.graph
    if len(g.node) < 2:
        return None
    k = rng.randrange(len(g.node))
    del g.node[k]       # its readers may now read an undefined name: the full path then
    return dict(region=(k, k + 1, k))


@pytest.mark.parametrize("base", _bases())
def test_insert_and_remove_equal_a_full_check(base):
    rng = random.Random(base + "structure")
    m = _our_proto(load_base(base))
    session = CheckSession(m)
    for _ in range(30):
        edit = rng.choice([_insert_node, _insert_node, _remove_node, _rewire_input, _rename_output])
        spec = edit(m, rng)
        if spec is None:
            continue
        if "names_changed" in spec:
            got = session.recheck(**spec)
        else:
            got = session.update(**spec)
        assert got == CheckSession(m).diagnostics, f"after {edit.__name__} {spec}"


def test_two_initializers_of_one_name_are_judged_each():
    # The structure unit keeps initializer verdicts by name between runs;
    # a second initializer of the same name must not take the first's.
    from onnx import helper, numpy_helper
    import numpy as np
    good = numpy_helper.from_array(np.zeros(3, np.float32), "w")
    bad = numpy_helper.from_array(np.zeros(3, np.float32), "w")
    bad.dims[:] = [5]
    g = helper.make_graph([helper.make_node("Relu", ["w"], ["y"])], "g", [],
                          [helper.make_tensor_value_info("y", 1, [3])], [good, bad])
    m = _our_proto(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]))
    session = CheckSession(m)
    codes = [d.code for d in session.diagnostics]
    assert "tensor.data-length" in codes and "graph.initializer-duplicate" in codes
    assert session.update(header=True) == CheckSession(m).diagnostics


def test_removing_nodes_without_names_remembered_leaves_no_stale_findings():
    # Without the IR graph the session checks every node again; findings
    # of nodes past the new end must not come back when nodes are added later.
    m = _our_proto(load_base("branchy"))
    session = CheckSession(m)
    for n in m.graph.node:
        n.attribute.add(name="bogus", type=A.INT, i=1)      # a finding on every node
    session.full()
    count = len(m.graph.node)
    del m.graph.node[count - 2:]
    assert session.update(region=(count - 2, count, count - 2)) == CheckSession(m).diagnostics
    m.graph.node.add(op_type="Relu", input=[m.graph.input[0].name], output=["late_a"])
    m.graph.node.add(op_type="Relu", input=[m.graph.input[0].name], output=["late_b"])
    assert session.update(region=(count - 2, count - 2, count)) == CheckSession(m).diagnostics


def _weights_model(ir_version=10, inputs_too=False):
    # y = Cos(x + w): w an initializer (also a graph input with `inputs_too`).
    from onnx import TensorProto, helper, numpy_helper
    import numpy as np
    w = numpy_helper.from_array(np.ones(3, np.float32), "w")
    inputs = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])]
    if inputs_too:
        inputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [3]))
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Cos", ["s"], ["y"])],
                          "g", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])], [w])
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = ir_version
    return _our_proto(model)


def test_kept_initializers_see_a_renamed_one():
    # The structure unit replays its initializer loop while the initializers
    # stay as they were; a rename nobody reported must still be seen.
    m = _weights_model()
    session = CheckSession(m)
    assert session.diagnostics == []
    session.update(header=True)                 # replayed: nothing changed
    m.graph.initializer[0].name = "w2"
    got = session.update(header=True)
    assert got == CheckSession(m).diagnostics
    assert any(d.code == "graph.undefined-input" for d in got)


def test_kept_initializers_see_changed_graph_inputs():
    # IR 3: every initializer must also be a graph input. Removing the input
    # changes what the initializer loop finds though no initializer changed.
    m = _weights_model(ir_version=3, inputs_too=True)
    session = CheckSession(m)
    assert not any(d.code == "graph.initializer-not-input" for d in session.diagnostics)
    del m.graph.input[1]
    got = session.update(header=True)
    assert got == CheckSession(m).diagnostics
    assert any(d.code == "graph.initializer-not-input" for d in got)


def test_kept_initializers_give_way_to_a_replaced_one():
    # A replaced initializer (reported in `initializers`) is judged again, and
    # its new element type reaches the declared types (Add then mixes types).
    from onnx import numpy_helper
    import numpy as np
    m = _weights_model()
    session = CheckSession(m)
    session.update(header=True)
    m.graph.initializer[0].ParseFromString(numpy_helper.from_array(np.ones(3, np.int64), "w").SerializeToString())
    got = session.update(header=True, initializers={"w"})
    assert got == CheckSession(m).diagnostics
    assert got, "an int64 w added to a float x must be reported"
    bad = numpy_helper.from_array(np.ones(3, np.float32), "w")
    bad.dims[:] = [5]                           # 3 values for 5 elements
    m.graph.initializer[0].ParseFromString(bad.SerializeToString())
    got = session.update(header=True, initializers={"w"})
    assert got == CheckSession(m).diagnostics
    assert any(d.code == "tensor.data-length" for d in got)
    assert session.update(header=True) == CheckSession(m).diagnostics   # the bad one is not replayed away
