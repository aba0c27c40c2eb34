"""A save over the model's own file does not rewrite its external data.

A one-attribute edit of a 2 GB model rewrote every byte of its data file
(slow, twice the disk during the save, and a second .onnx reading the same
data file at its old offsets was broken by the new layout). Saved in place
with tensors kept where they were, what the data file holds stays where it
is and what it lacks is appended at its end; a failure after the append
leaves the old model reading its old bytes; when appending fails the data
file is rewritten whole, as before."""
import os
import shutil

import numpy as np
import onnx
import pytest
from onnx import TensorProto, numpy_helper

from onnxstudio import core
from onnxstudio.core.edits import AddInitializer, SetAttribute, SetInitializer, SetMetadata
from onnxstudio.core.ir import AttrType
from onnxstudio.core.serde import io as serde_io
from onnxstudio.core.serde.io import SaveOptions
from onnxstudio.core.serde.external import ExternalFiles
from onnxstudio.core.ir.tensor import ExternalRef

from external_models import fail_the_model_rename, refuse_appends, saved_with_external_data

NEW_W1 = np.linspace(-1, 1, 1024, dtype=np.float32)


def _model(tmp_path):
    """model.onnx reading w1, w2 from model.onnx.data, and a node with an
    attribute to edit (a Cast in front of the output)."""
    path = saved_with_external_data(tmp_path / "m")
    m = onnx.load(str(path), load_external_data=False)
    m.graph.node[1].output[0] = "p"
    m.graph.node.append(onnx.helper.make_node("Cast", ["p"], ["y"], name="cast", to=TensorProto.FLOAT))
    onnx.save(m, str(path))
    return path


def _arrays(path):
    """Every initializer through the oracle (which follows our entries)."""
    return {t.name: numpy_helper.to_array(t, base_dir=str(path.parent)).copy()
            for t in onnx.load(str(path), load_external_data=False).graph.initializer}


def _ours(path):
    return {n: v.const.numpy().copy() for n, v in core.load(path).graph.initializers.items()}


def _entries(path):
    return {t.name: {e.key: e.value for e in t.external_data}
            for t in onnx.load(str(path), load_external_data=False).graph.initializer}


def _same(a, b):
    return sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)


def test_an_attribute_edit_leaves_the_data_file_untouched(tmp_path):
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    before, st, entries = data.read_bytes(), data.stat(), _entries(path)
    arrays = _arrays(path)
    doc = core.Document.open(path)
    doc.model.graph.initializers["w2"].const.numpy()         # one weight read: its file is mapped
    doc.apply(SetAttribute("cast", "to", AttrType.INT, TensorProto.DOUBLE))
    doc.save()
    after = data.stat()
    assert data.read_bytes() == before
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (st.st_ino, st.st_mtime_ns, st.st_size)
    assert _entries(path) == entries                          # the entries exactly as read
    assert doc.last_save.appended == {}
    assert _same(_arrays(path), arrays) and _same(_ours(path), arrays)
    assert onnx.load(str(path)).graph.node[2].attribute[0].i == TensorProto.DOUBLE
    assert sorted(os.listdir(path.parent)) == ["model.onnx", "model.onnx.data"]


def test_an_edited_external_weight_is_appended_and_read_back(tmp_path):
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    before, ino = data.read_bytes(), data.stat().st_ino
    arrays = _arrays(path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    doc.save()
    grown = data.read_bytes()
    assert data.stat().st_ino == ino and grown[:len(before)] == before      # appended, nothing moved
    w1 = _entries(path)["w1"]
    offset = int(w1["offset"])
    assert w1["location"] == "model.onnx.data" and offset >= len(before) and offset % 64 == 0
    assert grown[offset:offset + int(w1["length"])] == NEW_W1.tobytes()
    assert doc.last_save.appended == {"model.onnx.data": len(grown) - len(before)}
    expected = {**arrays, "w1": NEW_W1}
    assert _same(_arrays(path), expected) and _same(_ours(path), expected)
    onnx.checker.check_model(str(path))
    # The edited weight, still in memory, is in the data file now: a later
    # save does not append it again.
    doc.apply(SetMetadata("edited", "twice"))
    doc.save()
    assert data.read_bytes() == grown and doc.last_save.appended == {}
    assert _entries(path)["w1"] == w1 and _same(_ours(path), expected)
    # Undone, the old weight is still where the file always had it.
    doc.undo()
    doc.undo()
    doc.save()
    assert data.read_bytes() == grown and doc.last_save.appended == {}
    assert _same(_ours(path), arrays) and _same(_arrays(path), arrays)


def test_a_second_model_reading_the_same_data_file_still_loads(tmp_path):
    path = _model(tmp_path)
    other = path.parent / "other.onnx"
    shutil.copyfile(path, other)                       # reads model.onnx.data at the same offsets
    arrays = _arrays(other)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    doc.apply(SetInitializer("w2", NEW_W1 * 2))
    doc.save()
    assert doc.last_save.appended["model.onnx.data"] > 0
    assert _same(_arrays(other), arrays) and _same(_ours(other), arrays)
    assert _same(_ours(path), {"w1": NEW_W1, "w2": NEW_W1 * 2})


def test_a_failure_after_the_append_leaves_the_old_model_reading_its_arrays(tmp_path, monkeypatch):
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    before, model_bytes, arrays = data.read_bytes(), path.read_bytes(), _arrays(path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    fail_the_model_rename(monkeypatch, path)
    with pytest.raises(core.SaveError, match="nothing was changed"):
        doc.save()
    monkeypatch.undo()
    # The appended tail is cut off again: the files are as they were.
    assert path.read_bytes() == model_bytes and data.read_bytes() == before
    assert _same(_arrays(path), arrays) and _same(_ours(path), arrays)
    assert sorted(os.listdir(path.parent)) == ["model.onnx", "model.onnx.data"]
    doc.save()
    assert _same(_ours(path), {**arrays, "w1": NEW_W1})


def test_a_save_that_dies_after_the_append_leaves_the_old_model_whole(tmp_path, monkeypatch):
    # The process dies before it can clean up: the tail stays, unreferenced.
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    before, arrays = data.read_bytes(), _arrays(path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    fail_the_model_rename(monkeypatch, path)
    monkeypatch.setattr(serde_io._ExternalWriter, "abort", lambda self: None)
    with pytest.raises(core.SaveError):
        doc.save()
    monkeypatch.undo()
    grown = data.read_bytes()
    assert len(grown) > len(before) and grown[:len(before)] == before
    assert _same(_arrays(path), arrays) and _same(_ours(path), arrays)


def test_appending_refused_rewrites_the_data_file_whole(tmp_path, monkeypatch):
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    ino, arrays = data.stat().st_ino, _arrays(path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    refuse_appends(monkeypatch)
    doc.save()
    monkeypatch.undo()
    assert data.stat().st_ino != ino                   # a new file put in place, as a save used to
    assert doc.last_save.appended == {}
    expected = {**arrays, "w1": NEW_W1}
    assert _same(_arrays(path), expected) and _same(_ours(path), expected)
    assert sorted(os.listdir(path.parent)) == ["model.onnx", "model.onnx.data"]
    # The model's references point into the file it mapped, not the new
    # one: the next save rewrites again, and reads the right bytes.
    doc.apply(SetMetadata("edited", "again"))
    doc.save()
    assert _same(_ours(path), expected)


def test_a_data_file_replaced_behind_the_models_back_is_rewritten_from_what_it_read(tmp_path):
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    arrays = _arrays(path)
    doc = core.Document.open(path)
    doc.model.graph.initializers["w1"].const.numpy()         # mapped
    # Another program writes a data file of another layout in its place.
    replacement = path.parent / "elsewhere.data"
    replacement.write_bytes(b"\1" * 64 + data.read_bytes()[::-1])
    os.replace(replacement, data)
    doc.apply(SetMetadata("edited", "yes"))
    doc.save()
    assert _same(_ours(path), arrays) and _same(_arrays(path), arrays)


def test_a_save_as_elsewhere_still_writes_a_compact_data_file(tmp_path):
    path = _model(tmp_path)
    doc = core.Document.open(path)
    doc.apply(SetInitializer("w1", NEW_W1))
    doc.save()                                           # grows model.onnx.data
    copy = tmp_path / "copy" / "model.onnx"
    copy.parent.mkdir()
    doc.save(copy)
    assert doc.last_save.appended == {}
    assert (copy.parent / "model.onnx.data").stat().st_size < (path.parent / "model.onnx.data").stat().st_size
    assert _same(_ours(copy), _ours(path))


def test_a_mapped_data_file_that_grew_is_read_past_its_old_end(tmp_path):
    # A reference into bytes appended after the file was mapped reads them.
    (tmp_path / "w.bin").write_bytes(np.arange(16, dtype=np.float32).tobytes())
    files = ExternalFiles(tmp_path)

    class Ref:
        name = "w"

        def __init__(self, offset, length):
            self.external = ExternalRef("w.bin", offset, length)
    assert bytes(files.read(Ref(0, 64))) == np.arange(16, dtype=np.float32).tobytes()
    with open(tmp_path / "w.bin", "ab") as f:
        f.write(np.full(4, 9, np.float32).tobytes())
    assert bytes(files.read(Ref(64, 16))) == np.full(4, 9, np.float32).tobytes()
    with pytest.raises(core.ExternalDataError, match="cut short"):
        files.read(Ref(80, 16))


def test_a_new_large_tensor_the_save_moves_to_the_data_file_is_appended(tmp_path):
    # Past the protobuf limit, "keep" puts large inline tensors in
    # <model>.data: the model's own data file here, appended to.
    path = _model(tmp_path)
    data = path.parent / "model.onnx.data"
    before, arrays = data.read_bytes(), _arrays(path)
    doc = core.Document.open(path)
    doc.apply(AddInitializer("extra", NEW_W1 * 3))
    doc.save(options=SaveOptions(protobuf_limit=4096 * 3))
    grown = data.read_bytes()
    assert grown[:len(before)] == before and doc.last_save.appended == {"model.onnx.data": len(grown) - len(before)}
    extra = _entries(path)["extra"]
    assert extra["location"] == "model.onnx.data" and int(extra["offset"]) >= len(before)
    assert _same(_ours(path), {**arrays, "extra": NEW_W1 * 3}) and _same(_arrays(path), _ours(path))
