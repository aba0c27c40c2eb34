"""A model with external data saved as OUT where both the data file its
tensors name and the fallback `OUT.data` already belong to another model:
the fallback must not be that model's file either. Found driving `onnxstudio
convert` over the real exports (QA h37): a folder holding other.onnx, which
reads model.onnx.data, and a copy of an export saved there as model.onnx
(its tensors also name model.onnx.data): the fallback `model.onnx` + `.data`
is the same name, so the save rewrote other.onnx's weights and left it
reading past the end of the file."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core


def _saved(path, data_name: str, scale: float, size: int = 1024):
    """y = x + w with w in path.parent/data_name, as onnx writes it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    w = np.arange(size, dtype=np.float32) * scale
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [size])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [size])],
                          initializer=[numpy_helper.from_array(w, "w")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.save_model(m, path, save_as_external_data=True, all_tensors_to_one_file=True,
                    location=data_name, size_threshold=0)
    return w


def _weights(path) -> np.ndarray:
    return np.asarray(core.load(path).graph.initializers["w"].const.numpy())


def test_a_new_model_named_like_the_data_file_of_another_leaves_it_alone(tmp_path):
    w_source = _saved(tmp_path / "a" / "model.onnx", "model.onnx.data", 1.0)
    w_other = _saved(tmp_path / "b" / "other.onnx", "model.onnx.data", 2.0, size=512)
    before = (tmp_path / "b" / "model.onnx.data").read_bytes()
    copy = tmp_path / "b" / "model.onnx"
    core.save(core.load(tmp_path / "a" / "model.onnx"), copy)
    assert (tmp_path / "b" / "model.onnx.data").read_bytes() == before
    np.testing.assert_array_equal(_weights(tmp_path / "b" / "other.onnx"), w_other)
    np.testing.assert_array_equal(_weights(copy), w_source)
    onnx.checker.check_model(str(copy), full_check=True)
    # Saved again over the copy: it reads its own data file now, which is rewritten in place.
    names = sorted(p.name for p in (tmp_path / "b").iterdir())
    core.save(core.load(tmp_path / "a" / "model.onnx"), copy)
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == names
    assert (tmp_path / "b" / "model.onnx.data").read_bytes() == before
    np.testing.assert_array_equal(_weights(copy), w_source)


def test_a_copy_beside_its_source_leaves_another_models_copy_data_alone(tmp_path):
    w_source = _saved(tmp_path / "model.onnx", "model.onnx.data", 1.0)
    w_other = _saved(tmp_path / "other.onnx", "copy.onnx.data", 2.0, size=512)
    before = (tmp_path / "copy.onnx.data").read_bytes()
    copy = tmp_path / "copy.onnx"
    core.save(core.load(tmp_path / "model.onnx"), copy)
    assert (tmp_path / "copy.onnx.data").read_bytes() == before
    np.testing.assert_array_equal(_weights(tmp_path / "other.onnx"), w_other)
    np.testing.assert_array_equal(_weights(copy), w_source)
    np.testing.assert_array_equal(_weights(tmp_path / "model.onnx"), w_source)
