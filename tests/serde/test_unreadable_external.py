"""A tensor whose external data reference can never be followed (no
location, a location that is not UTF-8, offset/length not integers or
negative, an absolute location, one with "..", a link out of the folder)
no longer refuses the file: it opens, the tensor is kept with its message
as read and marked unreadable, reading its data raises naming it, a save
beside the file writes it back as read and any other save refuses before
writing. Nothing outside the model's folder is ever opened."""
from __future__ import annotations

import os
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import check
from onnxstudio.core.exec import Session

# Every file this process opens while `_OPENED` is a list (an audit hook
# stays for the process's life: it records only while a test asks).
_OPENED: list = []
_RECORDING = [False]
_ARMED = [False]      # a test asked (the `opened` fixture): record once its files are written


def _record_from_now() -> None:
    _RECORDING[0] = _ARMED[0]


def _audit(event, args):
    if _RECORDING[0] and event in ("open", "mmap.__new__") and args and isinstance(args[0], (str, bytes, os.PathLike)):
        _OPENED.append(os.path.realpath(os.fsdecode(args[0])))


sys.addaudithook(_audit)

SECRET = np.full(4, 7, np.float32)      # what ../secret.bin would give, were it read
OK = np.arange(4, dtype=np.float32)

# kind -> (external_data entries of "w", words of the reason)
KINDS = {
    "no location": ({"offset": "0", "length": "16"}, "without a 'location' entry"),
    "not utf-8": ({"location": "BADXUTF8.bin"}, "not valid UTF-8"),
    "offset not an integer": ({"location": "ok.bin", "offset": "four"}, "offset/length are not integers"),
    "negative length": ({"location": "ok.bin", "length": "-16"}, "negative external data offset or length"),
    "absolute": ({"location": "ABSOLUTE"}, "is an absolute path"),
    "dot-dot": ({"location": "../secret.bin"}, "leaves the model's folder"),
    "link out": ({"location": "link.bin"}, "outside the model's folder"),
}


def _model(tmp_path, kind: str):
    """tmp_path/m/model.onnx: y = (x + w) * ok, w referenced the bad way
    `kind` names, ok read from ok.bin beside the model; tmp_path/secret.bin
    outside the folder holds other bytes."""
    folder = tmp_path / "m"
    folder.mkdir()
    secret = tmp_path / "secret.bin"
    secret.write_bytes(SECRET.tobytes())
    (folder / "ok.bin").write_bytes(OK.tobytes())
    os.symlink(secret, folder / "link.bin")
    entries, _ = KINDS[kind]
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    for key, value in entries.items():
        e = w.external_data.add()
        e.key, e.value = key, str(secret) if value == "ABSOLUTE" else value
    ok = TensorProto(name="ok", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    e = ok.external_data.add()
    e.key, e.value = "location", "ok.bin"
    nodes = [helper.make_node("Add", ["x", "w"], ["h"], name="add"),
             helper.make_node("Mul", ["h", "ok"], ["y"], name="mul")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w, ok])
    data = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=9).SerializeToString()
    if kind == "not utf-8":
        assert data.count(b"BADXUTF8") == 1
        data = data.replace(b"BADXUTF8", b"BAD\xffUTF8")
    path = folder / "model.onnx"
    path.write_bytes(data)
    _record_from_now()
    return path


def _constant_model(tmp_path):
    """A Constant whose value is stored externally with no location, read by Add."""
    value = numpy_helper.from_array(OK, "")
    value.ClearField("raw_data")
    value.data_location = TensorProto.EXTERNAL
    e = value.external_data.add()
    e.key, e.value = "offset", "0"
    const = helper.make_node("Constant", [], ["k"], name="k", value=value)
    add = helper.make_node("Add", ["x", "k"], ["y"], name="add")
    g = helper.make_graph([const, add], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])])
    (tmp_path / "model.onnx").write_bytes(
        helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=9).SerializeToString())
    _record_from_now()
    return tmp_path / "model.onnx"


@pytest.fixture
def opened(tmp_path):
    """The files opened once the test's model is written (realpaths): never
    tmp_path/secret.bin, no data file outside tmp_path."""
    _OPENED.clear()
    _ARMED[0] = True
    yield _OPENED
    _ARMED[0] = _RECORDING[0] = False
    secret = os.path.realpath(tmp_path / "secret.bin")
    assert secret not in _OPENED
    root = os.path.realpath(tmp_path)
    # Python may import a module meanwhile (lazy imports): only data files count.
    assert not [p for p in _OPENED if not p.startswith(root) and not p.endswith((".py", ".pyc", ".so", ".json"))
                and "site-packages" not in p and "/usr/" not in p]


def _tensor_proto(path, name) -> TensorProto:
    m = onnx.load(path, load_external_data=False)
    return next(t for t in m.graph.initializer if t.name == name)


@pytest.mark.parametrize("kind", KINDS)
def test_each_bad_reference_opens_and_its_read_names_the_tensor(tmp_path, kind, opened):
    path = _model(tmp_path, kind)
    model = core.load(path)
    graph = model.graph
    assert [n.name for n in graph.nodes] == ["add", "mul"]
    assert [u.name for u, _ in graph.values()["w"].uses] == ["add"]
    w = graph.initializers["w"].const
    reason = KINDS[kind][1]
    assert reason in w.unreadable and not w.is_external
    assert w.shape == (4,) and w.nbytes == 16
    assert np.array_equal(graph.initializers["ok"].const.numpy(), OK)   # the others read as before
    for read in (w.numpy, w.raw_bytes):
        with pytest.raises(core.ExternalDataError) as e:
            read()
        assert str(e.value).startswith("tensor 'w': ") and reason in str(e.value)
    with pytest.raises(core.ExternalDataError, match=f"tensor 'w': .*{reason}"):
        core.to_bytes(model)
    findings = [d for d in check(model, use_inference=False) if d.path == 'graph/initializer "w"']
    assert findings and all(d.code.startswith("tensor.external-") for d in findings)


@pytest.mark.parametrize("kind", KINDS)
def test_the_executor_refuses_naming_the_tensor(tmp_path, kind, opened):
    model = core.load(_model(tmp_path, kind))
    with pytest.raises(core.CoreError) as e:
        Session(model).run({"x": np.ones(4, np.float32)})
    assert "tensor 'w'" in str(e.value) and KINDS[kind][1] in str(e.value)


def test_an_attribute_tensor_opens_and_its_read_names_the_attribute(tmp_path, opened):
    model = core.load(_constant_model(tmp_path))
    value = model.graph.nodes[0].attr("value")
    assert "'location'" in value.unreadable
    with pytest.raises(core.ExternalDataError) as e:
        value.numpy()
    assert str(e.value).startswith('graph/node[0] Constant "k"/attribute "value": external data without')
    with pytest.raises(core.CoreError) as e:
        Session(model).run({"x": np.ones(4, np.float32)})
    assert 'Constant "k"/attribute "value"' in str(e.value) and "'location'" in str(e.value)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["model.onnx", "copy.onnx"])
def test_a_save_beside_the_file_keeps_the_reference_as_read(tmp_path, kind, name, opened):
    """Saved in place or under another name in the same folder, the tensor's
    message is written back byte for byte: it reads what it read (nothing)."""
    path = _model(tmp_path, kind)
    before = _tensor_proto(path, "w").SerializeToString()
    model = core.load(path)
    model.doc_string = "edited"              # something to write
    core.save(model, path.parent / name)
    assert _tensor_proto(path.parent / name, "w").SerializeToString() == before
    again = core.load(path.parent / name)
    assert again.doc_string == "edited" and KINDS[kind][1] in again.graph.initializers["w"].const.unreadable
    assert np.array_equal(again.graph.initializers["ok"].const.numpy(), OK)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("where,options", [("elsewhere/copy.onnx", {}), ("m/inline.onnx", {"external_data": ""}),
                                           ("m/one.onnx", {"external_data": "one.data"})])
def test_any_other_save_refuses_and_writes_nothing(tmp_path, kind, where, options, opened):
    path = _model(tmp_path, kind)
    (tmp_path / "elsewhere").mkdir()
    model = core.load(path)
    listing = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    with pytest.raises(core.SaveError) as e:
        core.save(model, tmp_path / where, **options)
    message = str(e.value)
    assert "tensor 'w'" in message and KINDS[kind][1] in message
    assert "save into the model's folder keeping tensors where they are" in message
    assert "nothing was written" in message
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == listing


def test_a_replaced_tensor_saves_anywhere(tmp_path, opened):
    """The way out the refusal names: an edit gives the tensor data of its own."""
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetInitializer
    path = _model(tmp_path, "dot-dot")
    doc = Document(core.load(path), path)
    doc.apply(SetInitializer("w", np.full(4, 2, np.float32)))
    (tmp_path / "elsewhere").mkdir()
    core.save(doc.model, tmp_path / "elsewhere" / "copy.onnx")
    again = core.load(tmp_path / "elsewhere" / "copy.onnx")
    assert np.array_equal(again.graph.initializers["w"].const.numpy(), np.full(4, 2, np.float32))
    assert np.array_equal(again.graph.initializers["ok"].const.numpy(), OK)


def test_load_bytes_without_a_folder_opens_it_too(tmp_path):
    model = core.load_bytes(_model(tmp_path, "no location").read_bytes())
    assert "'location'" in model.graph.initializers["w"].const.unreadable
    with pytest.raises(core.SaveError, match="tensor 'w'.*without a folder"):
        core.save(model, tmp_path / "m" / "copy.onnx")
    assert not (tmp_path / "m" / "copy.onnx").exists()



def _outside(name):
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=[2], data_location=TensorProto.EXTERNAL)
    e = t.external_data.add()
    e.key, e.value = "location", "../secret.bin"
    return t


@pytest.mark.parametrize("place", ["sparse initializer", "tensors attribute"])
def test_a_sparse_initializer_or_a_tensors_attribute_is_found_by_the_save(tmp_path, place, opened):
    """Every place a tensor can sit counts: a sparse initializer's values,
    a TENSORS attribute's item."""
    folder = tmp_path / "m"
    folder.mkdir()
    (tmp_path / "secret.bin").write_bytes(SECRET.tobytes())
    y = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])]
    if place == "sparse initializer":
        sparse = helper.make_sparse_tensor(_outside("s"), numpy_helper.from_array(np.array([0, 3], np.int64)), [4])
        g = helper.make_graph([helper.make_node("Identity", ["s"], ["y"], name="id")], "g", [], y,
                              sparse_initializer=[sparse])
        who = "tensor 's'"
    else:
        g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"], name="id")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])], y)
        a = g.node[0].attribute.add()
        a.name, a.type = "payload", onnx.AttributeProto.TENSORS
        a.tensors.append(_outside(""))
        who = 'graph/node[0] Identity "id"/attribute "payload"'
    path = folder / "model.onnx"
    path.write_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    _record_from_now()
    model = core.load(path)
    if place == "sparse initializer":
        read = model.graph.sparse_initializers["s"].const.to_dense
    else:
        read = model.graph.nodes[0].attr("payload")[0].numpy
    with pytest.raises(core.ExternalDataError) as e:
        read()
    assert str(e.value).startswith(f"{who}: external data location '../secret.bin' leaves")
    (tmp_path / "elsewhere").mkdir()
    with pytest.raises(core.SaveError) as e:
        core.save(model, tmp_path / "elsewhere" / "copy.onnx")
    assert who in str(e.value)
    assert not list((tmp_path / "elsewhere").iterdir())
    core.save(model, folder / "copy.onnx")
    written = onnx.load(folder / "copy.onnx", load_external_data=False).graph
    assert (written.sparse_initializer[0].values if place == "sparse initializer"
            else written.node[0].attribute[0].tensors[0]) == _outside("s" if place == "sparse initializer" else "")
