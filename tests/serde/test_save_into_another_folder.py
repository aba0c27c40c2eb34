"""Saving a model with external data into another folder that already holds
a data file of the same name: that file belongs to the model there, so the
saved copy's weights go to `<copy>.data` instead of over it (before, `convert`,
`infer` or Save As into a folder holding model.onnx and model.onnx.data
rewrote the other model's weights, silently). Saving again over the copy,
or over the model that reads that file, writes where it did."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core


def _saved(folder, scale: float):
    """y = x + w with w (4 KB) in folder/model.onnx.data, as onnx writes it."""
    folder.mkdir(parents=True, exist_ok=True)
    w = np.arange(1024, dtype=np.float32) * scale
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
                          initializer=[numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    path = folder / "model.onnx"
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    return path, w


def _weights(path) -> np.ndarray:
    return np.asarray(core.load(path).graph.initializers["w"].const.numpy())


def test_a_copy_into_a_folder_with_another_models_data_leaves_it_alone(tmp_path):
    source, w_source = _saved(tmp_path / "a", 1.0)
    other, w_other = _saved(tmp_path / "b", 2.0)
    before = (tmp_path / "b" / "model.onnx.data").read_bytes()
    copy = tmp_path / "b" / "copy.onnx"
    core.save(core.load(source), copy)
    assert (tmp_path / "b" / "model.onnx.data").read_bytes() == before
    assert (tmp_path / "b" / "copy.onnx.data").is_file()
    np.testing.assert_array_equal(_weights(other), w_other)
    np.testing.assert_array_equal(_weights(copy), w_source)
    # Saved again over the copy: the copy's own data file, the other model's still untouched.
    core.save(core.load(source), copy)
    assert (tmp_path / "b" / "model.onnx.data").read_bytes() == before
    np.testing.assert_array_equal(_weights(copy), w_source)


def test_replacing_the_model_that_reads_the_data_file_writes_it_in_place(tmp_path):
    source, w_source = _saved(tmp_path / "a", 1.0)
    other, _ = _saved(tmp_path / "b", 2.0)
    core.save(core.load(source), other)
    assert not (tmp_path / "b" / "model.onnx.onnx.data").exists()
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["model.onnx", "model.onnx.data"]
    np.testing.assert_array_equal(_weights(other), w_source)


def test_a_folder_without_that_data_file_gets_the_same_name(tmp_path):
    source, w_source = _saved(tmp_path / "a", 1.0)
    (tmp_path / "c").mkdir()
    copy = tmp_path / "c" / "copy.onnx"
    core.save(core.load(source), copy)
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == ["copy.onnx", "model.onnx.data"]
    np.testing.assert_array_equal(_weights(copy), w_source)
