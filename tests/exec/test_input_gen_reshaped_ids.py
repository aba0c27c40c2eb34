"""Token ids reshaped before the embedding's Gather (GPT-2's exports:
legacy, dynamo and dynamically quantized, input_ids -> Reshape -> Gather)
were made 0..1 by the Run dock and `run --random`: two tokens of the
vocabulary. They cover the table now, as ids read by the Gather directly do."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load_bytes
from onnxstudio.core.exec.input_gen import default_spec


def _model(path_to_gather: list):
    """input_ids [batch, seq] int64 -> the nodes of `path_to_gather`
    (op, extra inputs) -> Gather into a 300 x 4 table; a mask beside it."""
    nodes, inits, last = [], [numpy_helper.from_array(np.zeros((300, 4), np.float32), "table"),
                              numpy_helper.from_array(np.array([-1], np.int64), "flat")], "input_ids"
    for i, (op, extra, attrs) in enumerate(path_to_gather):
        nodes.append(helper.make_node(op, [last, *extra], [f"t{i}"], name=f"n{i}", **attrs))
        last = f"t{i}"
    nodes.append(helper.make_node("Gather", ["table", last], ["emb"], name="embed"))
    nodes.append(helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT, name="mask"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"]),
                                           helper.make_tensor_value_info("attention_mask", TensorProto.INT64,
                                                                         ["b", "s"])],
                              [helper.make_tensor_value_info("emb", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("mask", TensorProto.FLOAT, None)], inits)
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _range(model, name):
    spec = default_spec(model.graph.get_value(name))
    return spec.low, spec.high


def test_ids_reshaped_before_the_embedding_cover_its_table():
    model = _model([("Reshape", ["flat"], {})])
    assert _range(model, "input_ids") == (0, 299)
    assert _range(model, "attention_mask") == (0, 1)


def test_through_a_few_reshapes_and_identities():
    model = _model([("Identity", [], {}), ("Flatten", [], {"axis": 0}), ("Reshape", ["flat"], {})])
    assert _range(model, "input_ids") == (0, 299)


def test_an_operator_that_changes_the_ids_stops_the_search():
    # Ids made into other numbers (here doubled) index the table with those: no claim about the input.
    model = _model([("Add", ["input_ids"], {})])
    assert _range(model, "input_ids") == (0, 1)
