"""An edited weight that lived in an external data file stays in one when
the save keeps tensors where they were ("Keep as they are", Ctrl+S). It
was written inside the model file while the others stayed external: a
250 MB embedding edited in a 2 GB export moved into the .onnx, towards
protobuf's 2 GB limit."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.edits import SetInitializer
from onnxstudio.core.serde import io as serde_io

from external_models import fail_the_model_rename
from external_saves import saved_with_weights_outside

NEW = np.linspace(-1, 1, 512, dtype=np.float32).reshape(2, 256)


def _model_with_external_data(folder):
    """folder/model.onnx written by core.save with its three weights in
    model.onnx.data: y = (x + a) * b + c."""
    folder.mkdir(parents=True, exist_ok=True)
    a = np.arange(512, dtype=np.float32).reshape(2, 256)
    b = np.full((2, 256), 3, np.float32)
    c = (np.arange(512, dtype=np.float32) % 7).reshape(2, 256)
    g = helper.make_graph([helper.make_node("Add", ["x", "a"], ["h"]), helper.make_node("Mul", ["h", "b"], ["k"]),
                           helper.make_node("Add", ["k", "c"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 256])],
                          initializer=[numpy_helper.from_array(w, n) for n, w in (("a", a), ("b", b), ("c", c))])
    return saved_with_weights_outside(g, folder / "model.onnx")


def _stored(path):
    """{name: (data_location, raw_data bytes in the model file, location)}."""
    out = {}
    for t in onnx.load(str(path), load_external_data=False).graph.initializer:
        keys = {e.key: e.value for e in t.external_data}
        out[t.name] = (t.data_location, len(t.raw_data), keys.get("location"))
    return out


def _weight_bytes(path):
    return {t.name: numpy_helper.to_array(t).tobytes() for t in onnx.load(str(path)).graph.initializer}


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def test_an_edited_external_weight_stays_in_the_data_file(tmp_path):
    path = _model_with_external_data(tmp_path / "m")
    assert {n: s[0] for n, s in _stored(path).items()} == {"a": 1, "b": 1, "c": 1}
    before = _weight_bytes(path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("a", NEW))
    doc.save()
    assert _stored(path)["a"] == (TensorProto.EXTERNAL, 0, "model.onnx.data")     # no raw_data in the .onnx
    assert sorted(os.listdir(path.parent)) == ["model.onnx", "model.onnx.data"]
    after = _weight_bytes(path)
    assert np.array_equal(np.frombuffer(after["a"], np.float32).reshape(2, 256), NEW)
    assert after["b"] == before["b"] and after["c"] == before["c"]
    onnx.checker.check_model(str(path))
    # and a second save (the edited tensor still in memory) keeps it there
    doc.apply(SetInitializer("c", NEW * 2))
    doc.save()
    assert {n: s[:2] for n, s in _stored(path).items()} == {n: (1, 0) for n in "abc"}
    again = _weight_bytes(path)
    assert again["a"] == after["a"] and again["b"] == before["b"]
    assert np.array_equal(np.frombuffer(again["c"], np.float32).reshape(2, 256), NEW * 2)


def test_a_copy_beside_the_source_puts_the_edited_weight_in_the_copys_data_file(tmp_path):
    path = _model_with_external_data(tmp_path / "m")
    source = _files(path.parent)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("b", NEW))
    copy = path.parent / "copy.onnx"
    doc.save(copy)
    assert {n: s[2] for n, s in _stored(copy).items()} == {n: "copy.onnx.data" for n in "abc"}
    assert _stored(copy)["b"][1] == 0
    assert all(_files(path.parent)[k] == v for k, v in source.items())      # the source and its data untouched
    assert np.array_equal(np.frombuffer(_weight_bytes(copy)["b"], np.float32).reshape(2, 256), NEW)


def test_the_save_as_question_is_asked_when_the_only_external_weights_were_edited(tmp_path):
    path = _model_with_external_data(tmp_path / "m")
    doc = core.Document.open(path)
    for name in "abc":
        doc.apply(SetInitializer(name, NEW))
    assert serde_io.has_external_data(doc.model)      # what decides whether Save As asks where weights go


def test_an_interrupted_save_of_an_edited_external_weight_leaves_model_and_data_whole(tmp_path, monkeypatch):
    path = _model_with_external_data(tmp_path / "m")
    doc = core.Document.open(path)
    doc.apply(SetInitializer("a", NEW))
    before, weights = _files(path.parent), _weight_bytes(path)
    fail_the_model_rename(monkeypatch, path)
    with pytest.raises(core.SaveError, match="nothing was changed"):
        doc.save()
    monkeypatch.undo()
    assert _files(path.parent) == before
    assert _weight_bytes(path) == weights
    doc.save()
    assert _stored(path)["a"][:2] == (TensorProto.EXTERNAL, 0)
