"""A node inserted next to a node of torch's dynamo exporter (named
"node_Relu_3", its module path in metadata_props) joins that node's group:
it was named without a scope and landed outside the group."""
from __future__ import annotations

from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.edits import insert_on_edge
from onnxstudio.core.layout import build_view
from onnxstudio.core.layout.scopes import TORCH_NAME_SCOPES
from onnxstudio.ui.canvas_edits import scoped_name


def _measure(label):
    return 60.0, 30.0


def _model():
    """Two blocks of two nodes each, as the dynamo exporter names and scopes them."""
    nodes, prev = [], "X"
    for b in range(2):
        for i, op in enumerate(("Relu", "Neg")):
            out = f"v{b}{i}"
            n = helper.make_node(op, [prev], [out], name=f"node_{op}_{b}")
            n.metadata_props.add(key=TORCH_NAME_SCOPES,
                                 value=repr(["", "net", f"net.block{b}", op.lower()]))
            nodes.append(n)
            prev = out
    nodes.append(helper.make_node("Identity", [prev], ["Y"], name="node_out"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])])
    return core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


def test_an_inserted_node_joins_the_dynamo_group():
    m = _model()
    relu = m.graph.nodes[0]
    name = scoped_name(relu, "Sigmoid")
    assert name == "/net/block0/Sigmoid"
    insert_on_edge(m, relu.outputs[0].name, "Sigmoid", name=name).apply(m)
    inserted = m.graph.find_node(name)
    closed = build_view(m.graph, _measure, expanded=set())
    assert closed.box_for(relu) == "group:block0"
    assert closed.box_for(inserted) == "group:block0"


def test_a_named_scope_and_no_scope_are_as_before():
    m = _model()
    legacy = core.ir.Node("Relu", name="/enc/layer.3/Relu")
    assert scoped_name(legacy, "Neg") == "/enc/layer.3/Neg"
    assert scoped_name(core.ir.Node("Relu", name="plain"), "Neg") == "Neg"
    assert scoped_name(None, "Neg") == "Neg"
    assert m is not None
