"""Models written by our own save with their weights in an external data
file, for the tests of saving, recovering and opening such models."""
from __future__ import annotations

from onnx import helper

from onnxstudio import core
from onnxstudio.core.serde.io import SaveOptions


def saved_with_weights_outside(graph, path):
    """`graph` as a model (opset 18, IR 10) at `path`, every weight in
    `<file name>.data` beside it (core.save, size_threshold 0)."""
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10).SerializeToString()
    core.save(core.load_bytes(data), path, SaveOptions(external_data=path.name + ".data", size_threshold=0))
    return path
