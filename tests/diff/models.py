"""Model pairs for the diff tests (and benchmarks/diff.py): a model with
every node and value renamed, one whose same-op neighbours exchanged names,
a shared model after a known edit script,
a Conv+BatchNormalization fold, a MatMul+Add fused into a Gemm, and a
model with If bodies. Built with our edits where an edit exists, with
onnx.helper for the small hand-made models."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load, load_bytes
from onnxstudio.core.edits import (AddInitializer, SetAttribute, SetInitializer, SetNodeInputs, bypass_node,
                                   insert_on_edge, set_input_shape)
from onnxstudio.core.ir import AttrType


def rename_everything(model, prefix: str = "r"):
    """Every node and every value of every graph (bodies too) gets a new name."""
    k = 0
    for g in list(model.graph.walk()):
        for n in g.nodes:
            n.name = f"{prefix}_node_{k}"
            k += 1
        for v in list(g.values().values()):
            if v.graph is g:
                g.rename_value(v, f"{prefix}_value_{k}")
                k += 1
    return model


def exchange_names(model, x: str, y: str, *, outputs: bool) -> None:
    """Nodes `x` and `y` exchange their names (and, with `outputs`, their
    first outputs' names too), as an exporter that numbers nodes in another
    order does."""
    nx, ny = (next(n for n in model.graph.nodes if n.name == name) for name in (x, y))
    nx.name, ny.name = y, x
    if outputs:
        g = model.graph
        vx, vy = nx.outputs[0], ny.outputs[0]
        old_x, old_y = vx.name, vy.name
        g.rename_value(vx, "__being_exchanged")
        g.rename_value(vy, old_x)
        g.rename_value(vx, old_y)


def exchange_adjacent_names(model) -> list:
    """Each two nodes next to each other of one op exchange their names and
    their outputs' names (not graph outputs'); the pairs, by A's names."""
    g = model.graph
    nodes, pairs, k = list(g.nodes), [], 0
    while k + 1 < len(nodes):
        x, y = nodes[k], nodes[k + 1]
        if (x.op_type, x.domain) != (y.op_type, y.domain) or not x.name or not y.name:
            k += 1
            continue
        pairs.append((x.name, y.name))
        exchange_names(model, x.name, y.name, outputs=not (x.outputs[0].is_graph_output
                                                             or y.outputs[0].is_graph_output))
        k += 2
    return pairs


def edited_bert(path):
    """bert_small and its copy after five edits, with what each edit touched."""
    a, b = load(path), load(path)
    g = b.graph
    softmax = next(n for n in g.nodes if n.op_type == "Softmax")
    tanh = next(n for n in g.nodes if n.op_type == "Tanh")
    matmul = [n for n in g.nodes if n.op_type == "MatMul"][3]
    weight = next(iter(g.initializers.values()))
    SetAttribute(softmax.name, "axis", AttrType.INT, 1).apply(b)
    bypass_node(b, tanh.name).apply(b)
    insert_on_edge(b, matmul.outputs[0].name, "Relu", name="inserted_relu").apply(b)
    data = np.array(weight.const.numpy())
    data.flat[7] += 0.5
    SetInitializer(weight.name, data).apply(b)
    set_input_shape(b, "input_ids", [1, "seq"]).apply(b)
    return a, b, {"softmax": softmax.name, "tanh": tanh.name, "tanh_output": tanh.outputs[0].name,
                  "tanh_input": tanh.inputs[0].name, "weight": weight.name}


def _constant_value(model, name: str) -> np.ndarray:
    v = model.graph.get_value(name)
    if v.const is not None:
        return np.array(v.const.numpy())
    return np.array(v.producer.attr("value").numpy())


def folded_ppocr(path):
    """(A, B, conv name, bn name): B is A with its first Conv+BatchNormalization folded into the Conv."""
    a, b = load(path), load(path)
    g = b.graph
    bn = next(n for n in g.nodes if n.op_type == "BatchNormalization")
    conv = bn.inputs[0].producer
    scale, shift, mean, var = (_constant_value(b, v.name) for v in bn.inputs[1:5])
    eps = bn.attr("epsilon", 1e-5)
    factor = scale / np.sqrt(var + eps)
    w_value = conv.inputs[1]
    w = _constant_value(b, w_value.name)
    folded_w = (w * factor[:, None, None, None]).astype(np.float32)
    folded_b = (shift - mean * factor).astype(np.float32)
    if w_value.producer is not None:
        SetAttribute({"output": w_value.name}, "value", AttrType.TENSOR, folded_w).apply(b)
    else:
        SetInitializer(w_value.name, folded_w).apply(b)
    AddInitializer("folded_bias", folded_b).apply(b)
    SetNodeInputs(conv.name, [conv.inputs[0].name, w_value.name, "folded_bias"]).apply(b)
    bypass_node(b, bn.name).apply(b)
    return a, b, conv.name, bn.name


def _model(nodes, inputs, outputs, inits=(), opset=17):
    graph = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    return load_bytes(proto.SerializeToString())


def _f(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def fused_pair():
    """x -> MatMul(W) -> Add(bias) -> Relu -> y, and the same with a Gemm."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((4, 3)).astype(np.float32)
    bias = rng.standard_normal(3).astype(np.float32)
    a = _model([helper.make_node("MatMul", ["x", "W"], ["mm"], name="mm"),
                helper.make_node("Add", ["mm", "bias"], ["sum"], name="add"),
                helper.make_node("Relu", ["sum"], ["y"], name="relu")],
               [_f("x", [2, 4])], [_f("y", [2, 3])], [("W", w), ("bias", bias)])
    b = _model([helper.make_node("Gemm", ["x", "W", "bias"], ["gemm_out"], name="gemm"),
                helper.make_node("Relu", ["gemm_out"], ["y"], name="relu")],
               [_f("x", [2, 4])], [_f("y", [2, 3])], [("W", w), ("bias", bias)])
    return a, b


def with_bodies(alpha: float = 0.1):
    """x, cond -> If "choose" (then: LeakyRelu(alpha) -> Neg; else: Abs) -> y."""
    then = helper.make_graph([helper.make_node("LeakyRelu", ["x"], ["t1"], name="leaky", alpha=alpha),
                              helper.make_node("Neg", ["t1"], ["t_out"], name="neg")],
                             "then", [], [_f("t_out", [3])])
    other = helper.make_graph([helper.make_node("Abs", ["x"], ["e_out"], name="abs")], "else", [],
                              [_f("e_out", [3])])
    return _model([helper.make_node("Relu", ["x0"], ["x"], name="pre"),
                   helper.make_node("If", ["cond"], ["y"], name="choose", then_branch=then, else_branch=other)],
                  [_f("x0", [3]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])], [_f("y", [3])])
