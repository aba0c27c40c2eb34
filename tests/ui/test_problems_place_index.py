"""The Problems dock finds a diagnostic's node from the index in its path
(no index of every node's path, rebuilt after each insert on a 10k-node
model): every node of real models, in subgraphs too, with the suffixes
findings carry, and graph-level places by name."""
from __future__ import annotations

import pytest

from onnxstudio import core
from onnxstudio.ui.problems import PlaceIndex

from shared_models import shared_model


@pytest.mark.parametrize("name", ["silero_vad", "bert_12layer_narrow"])
def test_every_node_path_resolves_to_its_node(name):
    model = core.load(str(shared_model(name) / "model.onnx"))
    index = PlaceIndex(model)
    graphs = list(model.graph.walk())
    assert name != "silero_vad" or len(graphs) > 1          # If bodies
    for graph in graphs:
        for node in graph.nodes:
            for suffix in ("", '/attribute "axis"', "/input[0]"):
                assert index.resolve(node.path + suffix) == (node, node.graph)
        for value in graph.inputs:
            assert index.resolve(f'{graph.path}/input[0] "{value.name}"') == (value, graph)
    # A stale index or a name that does not match is no node.
    node = model.graph.nodes[0]
    assert index.resolve(f"{model.graph.path}/node[0] Nope \"x\"")[0] is not node
    assert index.resolve(f"{model.graph.path}/node[999999] X")[0] is None
