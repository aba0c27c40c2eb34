"""Groups of a model exported by torch's dynamo exporter: its node names carry
no scope ("node_MatMul_12"), the module path is in each node's metadata_props
("pkg.torch.onnx.name_scopes"). A dynamo-exported vit_base showed 487
ungrouped boxes (1.8 s cold layout, 0.1 s for the legacy export's groups)."""
from __future__ import annotations

import pytest

from onnxstudio import core
from onnxstudio.core.layout import GROUP, build_view, layout
from onnxstudio.core.layout.scopes import TORCH_NAME_SCOPES, torch_scope

from layout_checks import check_layout

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def measure(label):
    width = max([len(label.title) * 7.0] + [len(line) * 5.5 for line in label.lines]) + 12
    return width, 18 + 12 * len(label.lines)


def scoped(node, *modules, torch_name="op"):
    """Record the module call stack as torch's dynamo exporter does."""
    stack = ["", *modules, torch_name]
    node.metadata_props.add(key=TORCH_NAME_SCOPES, value=repr(stack))
    return node


def dynamo_like_model(layers=3):
    """net.layers.i each with an mlp of two nodes and an Add, then net.norm:
    names as the dynamo exporter gives them, scopes only in the metadata."""
    nodes, prev = [], "X"
    for i in range(layers):
        layer = f"net.layers.{i}"
        nodes += [scoped(helper.make_node("Relu", [prev], [f"r{i}"], name=f"node_relu_{i}"),
                         "net", layer, f"{layer}.mlp", torch_name=f"relu_{i}"),
                  scoped(helper.make_node("Neg", [f"r{i}"], [f"n{i}"], name=f"node_neg_{i}"),
                         "net", layer, f"{layer}.mlp", torch_name=f"neg_{i}"),
                  scoped(helper.make_node("Add", [f"n{i}", "X"], [f"a{i}"], name=f"node_add_{i}"),
                         "net", layer, torch_name=f"add_{i}")]
        prev = f"a{i}"
    nodes.append(scoped(helper.make_node("Identity", [prev], ["Y"], name="node_norm"), "net", "net.norm"))
    # torch's record of nodes of no module (a dynamic axis' size read once)
    for i in range(2):
        size = helper.make_node("Shape", ["X"], [f"size{i}"], name=f"node_sym_size_{i}")
        size.metadata_props.add(key=TORCH_NAME_SCOPES,
                                value=f"['_empty_nn_module_stack_from_metadata_hook', 'sym_size_{i}']")
        nodes.append(size)
    graph = helper.make_graph(nodes, "main_graph", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [2])]
                              + [helper.make_tensor_value_info(f"size{i}", TensorProto.INT64, [1]) for i in range(2)])
    return core.load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())


def test_torch_module_paths_become_groups_as_the_legacy_names_would():
    m = dynamo_like_model()
    opened = build_view(m.graph, measure)
    # "net" holds every scoped node (dropped, as "/m" of legacy names); "norm" has one node
    # (dissolved); the node of no module is in none.
    assert set(opened.groups) == {(f"layers.{i}",) for i in range(3)} | {(f"layers.{i}", "mlp") for i in range(3)}
    out = layout(opened.request, cache=False)
    assert check_layout(opened.request, out) == []

    closed = build_view(m.graph, measure, expanded=set())
    assert sorted(v.group for v in closed.nodes.values() if v.kind == GROUP) == [(f"layers.{i}",) for i in range(3)]
    relu = next(n for n in m.graph.nodes if n.name == "node_relu_1")
    assert closed.box_for(relu) == "group:layers.1"
    assert check_layout(closed.request, layout(closed.request, cache=False)) == []


def test_a_scoped_name_wins_over_the_metadata():
    m = dynamo_like_model(layers=2)
    node = next(n for n in m.graph.nodes if n.name == "node_relu_0")
    node.name = "/mine/Relu"        # a name the user gave (in an edit, or another exporter's)
    view = build_view(m.graph, measure)
    assert view.path_of_node[id(node)] == ()            # "mine" holds one node: dissolved
    assert ("layers.0", "mlp") not in view.groups       # its mlp partner alone now
    assert ("layers.1", "mlp") in view.groups


@pytest.mark.parametrize("recorded, path", [
    ("['', 'net', 'net.layers.0', 'net.layers.0.mlp', 'gelu']", ("net", "layers.0", "mlp")),
    ("['', 'layer4', 'layer4.0', 'layer4.0.relu', 'relu_14']", ("layer4", "layer4.0", "relu")),
    ("['', 'view']", ()),
    ("['_empty_nn_module_stack_from_metadata_hook', 'sym_size_int_45']", ()),
    ("['', \"it's\", \"it's.inner\", 'op']", ("it's", "inner")),    # quotes: parsed, not split
    ("['', 'a', 'b', 'op']", ("a", "b")),                        # not a child's path: the entry as it is
    ("not a list", ()),
    ("[1, 2]", ()),
    ("", ()),
])
def test_torch_scope_reads_the_recorded_call_stack(recorded, path):
    assert torch_scope(recorded) == path
