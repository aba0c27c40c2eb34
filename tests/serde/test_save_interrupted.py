"""A save that fails half-way leaves the old model whole, with the data file
it reads. The data files are put in place before the model file; when the
model's own rename failed (disk full, simulated), the data file already
held the new layout and the old model read wrong bytes past its end (QA
h42 on llama_extdata_dynamo_op23, after an edited weight). An exception
other than OSError while tensors were written left temporary data files
behind."""
import os

import numpy as np
import onnx
import pytest
from onnx import numpy_helper

from onnxstudio import core
from onnxstudio.core.edits import SetInitializer
from onnxstudio.core.serde import io as serde_io

from external_models import fail_the_model_rename, refuse_appends, saved_with_external_data


def _files(folder):
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _weights(path):
    return {t.name: numpy_helper.to_array(t).copy() for t in onnx.load(str(path)).graph.initializer}


def _edited_document(tmp_path):
    path = saved_with_external_data(tmp_path / "m")
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", np.full(1024, 7, np.float32)))
    return path, doc


def test_the_model_rename_failing_puts_the_old_data_file_back(tmp_path, monkeypatch):
    path, doc = _edited_document(tmp_path)
    before, weights = _files(path.parent), _weights(path)
    fail_the_model_rename(monkeypatch, path)
    with pytest.raises(core.SaveError, match="nothing was changed"):
        doc.save()
    monkeypatch.undo()
    assert _files(path.parent) == before            # the same files, byte for byte, nothing left over
    after = _weights(path)
    assert all(np.array_equal(after[k], weights[k]) for k in weights)
    assert doc.dirty
    doc.save()                                      # and the next save goes through
    assert np.array_equal(_weights(path)["w1"], np.full(1024, 7, np.float32))
    assert sorted(os.listdir(path.parent)) == ["model.onnx", "model.onnx.data"]


def test_an_exception_while_tensors_are_written_leaves_no_temporary_files(tmp_path, monkeypatch):
    path, doc = _edited_document(tmp_path)
    before = _files(path.parent)
    real = serde_io.model_to_proto

    def breaks_after_one_tensor(model, write):
        seen = []

        def write_one(t):
            if seen:
                raise RuntimeError("interrupted")
            seen.append(t)
            return write(t)
        return real(model, write_one)
    monkeypatch.setattr(serde_io, "model_to_proto", breaks_after_one_tensor)
    with pytest.raises(RuntimeError, match="interrupted"):
        doc.save()
    after = _files(path.parent)
    assert sorted(after) == sorted(before)
    assert [k for k in before if after[k] != before[k]] == []


def test_a_data_file_failing_to_go_in_place_puts_back_the_ones_before_it(tmp_path, monkeypatch):
    # Two data files: the second one's rename fails after the first is in place.
    path = saved_with_external_data(tmp_path / "m")
    model = onnx.load(str(path), load_external_data=False)
    for t in model.graph.initializer:
        if t.name == "w2":
            for e in t.external_data:
                if e.key == "location":
                    e.value = "second.data"
                if e.key == "offset":
                    e.value = "0"
    data = (path.parent / "model.onnx.data").read_bytes()
    (path.parent / "second.data").write_bytes(data[4096:])
    onnx.save(model, str(path))
    assert _weights(path)["w2"][0] == 3
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", np.full(1024, 7, np.float32)))     # kept in model.onnx.data
    # Saved in place, data files are appended to, never replaced; when
    # appending the edited w1 is refused, both are written whole and put in place.
    refuse_appends(monkeypatch)
    before = _files(path.parent)
    real = os.replace

    failed = []

    def fails_for_the_second(src, dst):
        if os.fspath(dst).endswith("second.data") and not failed:     # once: putting it back works
            failed.append(dst)
            raise OSError(5, "Input/output error")
        return real(src, dst)
    monkeypatch.setattr(serde_io.os, "replace", fails_for_the_second)
    with pytest.raises(core.SaveError):
        doc.save()
    monkeypatch.undo()
    assert failed
    after = _files(path.parent)
    assert sorted(after) == sorted(before)
    assert [k for k in before if after[k] != before[k]] == []
