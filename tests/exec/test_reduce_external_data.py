"""The failing subgraph of a model whose weights are in an external data
file, written into another folder: the reference's part kept its weights
under the source's data file name (model.onnx.data beside small.onnx, seen
extracting from a ViT export in the app), a file the message did not name
and a failure's clean-up would not remove. Each part is one file now."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load
from onnxstudio.core.exec.compare import compare_run_with_onnxruntime
from onnxstudio.core.exec.reduce import onnxruntime_runner, reduce_failing, write_reduced
from onnxstudio.core.exec.session import Session

pytest.importorskip("onnxruntime")


def _saved_with_external_data(folder, weight):
    folder.mkdir()
    nodes = [helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
             helper.make_node("Relu", ["h"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 64])],
                              [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, folder / "model.onnx", save_as_external_data=True, location="model.onnx.data",
              size_threshold=0)
    return folder / "model.onnx"


def test_each_part_is_written_whole_and_named(tmp_path):
    rng = np.random.default_rng(0)
    weight = rng.standard_normal((64, 64)).astype(np.float32)
    original = load(_saved_with_external_data(tmp_path / "original", weight))
    broken = weight.copy()
    broken[:, 3] *= -5
    edited = load(_saved_with_external_data(tmp_path / "edited", broken))
    feeds = {"x": rng.standard_normal((2, 64)).astype(np.float32)}
    s = Session(edited, keep=True)
    outputs = s.run(feeds)
    report, theirs = compare_run_with_onnxruntime(edited, {**s.values, **outputs}, feeds, reference_model=original)
    small = reduce_failing(edited, report, {**feeds, **theirs}, reference_model=original,
                           run_reference=onnxruntime_runner())
    out = tmp_path / "report"
    out.mkdir()
    paths = write_reduced(small, out / "small.onnx")
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in paths)
    assert {p.name for p in paths} == {"small.onnx", "small.inputs.npz", "small.expected.npz",
                                       "small.reference.onnx"}
    for name, w in (("small.onnx", broken), ("small.reference.onnx", weight)):
        part = onnx.load(out / name)           # every tensor inside
        assert not any(t.external_data for t in part.graph.initializer)
        np.testing.assert_array_equal(numpy_helper.to_array(part.graph.initializer[0]), w)
    assert (tmp_path / "original" / "model.onnx.data").stat().st_size == weight.nbytes
