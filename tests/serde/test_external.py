"""External data: mapped reads, safe locations, atomic saves, the 2 GB switch."""
import hashlib
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.serde.io import SaveOptions


def _external_model(folder, with_checksum=True):
    """Three tensors in one external file at increasing offsets, one inline."""
    rng = np.random.default_rng(0)
    arrays = {f"w{i}": rng.standard_normal((16, 8 + i)).astype(np.float32) for i in range(3)}
    blob = bytearray()
    inits = []
    for name, arr in arrays.items():
        blob += b"\0" * ((-len(blob)) % 32)
        t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=arr.shape,
                        data_location=TensorProto.EXTERNAL)
        data = arr.tobytes()
        entries = {"location": "weights.bin", "offset": str(len(blob)), "length": str(len(data))}
        if with_checksum:
            entries["checksum"] = hashlib.sha1(data).hexdigest()
        for k, v in entries.items():
            e = t.external_data.add()
            e.key, e.value = k, v
        blob += data
        inits.append(t)
    small = np.arange(4, dtype=np.int64)
    inits.append(numpy_helper.from_array(small, "small"))
    (folder / "weights.bin").write_bytes(bytes(blob))
    nodes = [helper.make_node("MatMul", ["x", "w0"], ["y0"])]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
                          [helper.make_tensor_value_info("y0", TensorProto.FLOAT, [2, 8])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    path = folder / "model.onnx"
    path.write_bytes(m.SerializeToString())
    return path, {**arrays, "small": small}


def _arrays(model):
    return {k: v.const.numpy() for k, v in model.graph.initializers.items()}


def test_external_tensors_are_read_lazily_and_correctly(tmp_path):
    path, arrays = _external_model(tmp_path)
    m = core.load(path)
    t = m.graph.initializers["w1"].const
    assert t.is_external and t.external_location == "weights.bin"
    assert m._external_files._maps == {}          # nothing mapped before first use
    for name, arr in arrays.items():
        assert np.array_equal(m.graph.initializers[name].const.numpy(), arr)
    assert "weights.bin" in m._external_files._maps


def test_round_trip_keeps_layout_and_data(tmp_path):
    path, arrays = _external_model(tmp_path)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    core.save(core.load(path), out_dir / "copy.onnx")
    assert (out_dir / "weights.bin").exists()
    again = core.load(out_dir / "copy.onnx")
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(again).items())
    assert again.graph.initializers["w2"].const.is_external
    assert not again.graph.initializers["small"].const.is_external
    # the oracle reads our layout (offsets, lengths, checksums) the same way
    o = onnx.load(out_dir / "copy.onnx", load_external_data=False)
    for t in o.graph.initializer:
        assert np.array_equal(numpy_helper.to_array(t, base_dir=str(out_dir)), arrays[t.name])
        keys = {e.key: e.value for e in t.external_data}
        if t.name != "small":
            assert keys["checksum"] == hashlib.sha1(arrays[t.name].tobytes()).hexdigest()


def test_saving_over_the_files_being_read(tmp_path):
    path, arrays = _external_model(tmp_path)
    m = core.load(path)
    core.save(m, path)          # same model file, same weights.bin
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(core.load(path)).items())
    # the model we saved from still reads its (old, still mapped) data
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(m).items())


def test_move_weights_into_and_out_of_external_data(tmp_path):
    path, arrays = _external_model(tmp_path)
    inline = tmp_path / "inline.onnx"
    core.save(core.load(path), inline, external_data="")
    m = core.load(inline)
    assert not any(v.const.is_external for v in m.graph.initializers.values())
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(m).items())
    ext = tmp_path / "ext.onnx"
    core.save(m, ext, external_data="data/all.bin", size_threshold=100)
    m2 = core.load(ext)
    assert m2.graph.initializers["w0"].const.external_location == "data/all.bin"
    assert not m2.graph.initializers["small"].const.is_external   # 32 bytes < threshold
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(m2).items())


def test_switches_to_external_data_past_the_protobuf_limit(tmp_path):
    path, arrays = _external_model(tmp_path)
    m = core.load(path)
    out = tmp_path / "big.onnx"
    core.save(m, out, SaveOptions(external_data="", protobuf_limit=10**9))   # under the limit: inline
    m_inline = core.load(out)
    big = tmp_path / "big2.onnx"
    core.save(m_inline, big, SaveOptions(protobuf_limit=1000, size_threshold=64))
    assert (tmp_path / "big2.onnx.data").exists()
    m2 = core.load(big)
    assert m2.graph.initializers["w0"].const.external_location == "big2.onnx.data"
    assert all(np.array_equal(a, arrays[k]) for k, a in _arrays(m2).items())


@pytest.mark.parametrize("location", ["../outside.bin", "sub/../../outside.bin", "/etc/passwd"])
def test_locations_outside_the_folder_open_and_are_refused_when_read(tmp_path, location):
    folder = tmp_path / "m"
    folder.mkdir()
    (tmp_path / "outside.bin").write_bytes(b"\0" * 64)
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = t.external_data.add()
    e.key, e.value = "location", location
    g = helper.make_graph([], "g", [], [], [t])
    (folder / "model.onnx").write_bytes(helper.make_model(g).SerializeToString())
    w = core.load(folder / "model.onnx").graph.initializers["w"].const
    with pytest.raises(core.ExternalDataError, match="outside|leaves the model's folder|absolute") as err:
        w.numpy()
    assert str(err.value).startswith("tensor 'w': ")


def test_symlink_out_of_the_folder_opens_and_is_refused_when_read(tmp_path):
    folder = tmp_path / "m"
    folder.mkdir()
    (tmp_path / "secret.bin").write_bytes(b"\0" * 16)
    os.symlink(tmp_path / "secret.bin", folder / "link.bin")
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = t.external_data.add()
    e.key, e.value = "location", "link.bin"
    g = helper.make_graph([], "g", [], [], [t])
    (folder / "model.onnx").write_bytes(helper.make_model(g).SerializeToString())
    w = core.load(folder / "model.onnx").graph.initializers["w"].const
    with pytest.raises(core.ExternalDataError, match="link"):
        w.numpy()


def test_missing_external_file_is_reported_on_use(tmp_path):
    path, _ = _external_model(tmp_path)
    (tmp_path / "weights.bin").unlink()
    m = core.load(path)     # the graph still opens
    with pytest.raises(core.ExternalDataError, match="weights.bin.*not found"):
        m.graph.initializers["w0"].const.numpy()


def test_failed_save_leaves_the_target_untouched(tmp_path):
    path, _ = _external_model(tmp_path)
    m = core.load(path)
    (tmp_path / "weights.bin").unlink()          # data can no longer be read
    target = tmp_path / "target.onnx"
    target.write_bytes(b"previous content")
    with pytest.raises(core.SaveError):
        core.save(m, target, external_data="")
    assert target.read_bytes() == b"previous content"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_opening_time_does_not_read_weights(tmp_path):
    """A model with 64 MB of external weights opens without touching them."""
    arr = np.zeros((16, 1024, 1024), np.float32)
    (tmp_path / "w.bin").write_bytes(arr.tobytes())
    t = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=arr.shape, data_location=TensorProto.EXTERNAL)
    for k, v in {"location": "w.bin", "offset": "0", "length": str(arr.nbytes)}.items():
        e = t.external_data.add()
        e.key, e.value = k, v
    g = helper.make_graph([], "g", [], [], [t])
    (tmp_path / "m.onnx").write_bytes(helper.make_model(g).SerializeToString())
    m = core.load(tmp_path / "m.onnx")
    assert m._external_files._maps == {}
    view = m.graph.initializers["w"].const.numpy()
    assert not view.flags.owndata and not view.flags.writeable     # a view of the mapped file


def _constant_model(folder, location=True):
    """A Constant whose value onnx stored in an external file (as
    save_as_external_data(convert_attribute=True) does), read by Add."""
    value = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3))
    const = helper.make_node("Constant", [], ["k"], name="k", value=value)
    add = helper.make_node("Add", ["x", "k"], ["y"], name="add")
    g = helper.make_graph([const, add], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    onnx.save_model(m, folder / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="k.bin", size_threshold=0, convert_attribute=True)
    if not location:
        m = onnx.load(folder / "model.onnx", load_external_data=False)
        t = m.graph.node[0].attribute[0].t
        keep = [e for e in t.external_data if e.key != "location"]
        del t.external_data[:]
        t.external_data.extend(keep)
        onnx.save_model(m, folder / "model.onnx")
    return folder / "model.onnx"


def test_an_attribute_tensor_stored_outside_reads_and_saves(tmp_path):
    path = _constant_model(tmp_path)
    m = core.load(path)
    value = m.graph.nodes[0].attr("value")
    assert value.is_external and np.array_equal(value.numpy(), np.arange(6, dtype=np.float32).reshape(2, 3))
    core.save(m, tmp_path / "copy.onnx")
    again = core.load(tmp_path / "copy.onnx")
    assert np.array_equal(again.graph.nodes[0].attr("value").numpy(), value.numpy())


def test_an_attribute_tensor_without_location_is_refused_when_read(tmp_path):
    """Read on first use, it failed wherever it was read (the Properties
    panel, the checker, a run) with a raw exception, then was refused at
    open; now the file opens and a read says where and what to do."""
    path = _constant_model(tmp_path, location=False)
    value = core.load(path).graph.nodes[0].attr("value")
    with pytest.raises(core.ExternalDataError) as e:
        value.numpy()
    assert str(e.value).startswith('graph/node[0] Constant "k"/attribute "value": ')
    assert "'location'" in str(e.value) and "store the data in the model" in str(e.value)


def test_a_location_that_is_not_utf8_is_refused_by_name_when_read(tmp_path):
    """A damaged file whose data location is invalid UTF-8 ended `check` and
    `info` with an internal error (a TypeError from the bytes protobuf hands
    back); now the file opens and a read names the tensor and says what to do."""
    path, _ = _external_model(tmp_path)
    data = path.read_bytes()
    assert data.count(b"weights.bin") == 3
    path.write_bytes(data.replace(b"weights.bin", b"weights\xffbin"))
    with pytest.raises(core.ExternalDataError) as e:
        core.load(path).graph.initializers["w0"].const.numpy()
    message = str(e.value)
    assert "tensor 'w0'" in message and "not valid UTF-8" in message and "b'" not in message
