"""The checker's file form of an IR model (check/file_form.py) leaves the
weights out: it equals serde's model_to_proto but for the stand-ins, judges
raw_data lengths as the file gives them, and never copies weights."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.check import CheckSession, check
from onnxstudio.core.check.file_form import file_form, parse_without_weights, raw_data_length
from onnxstudio.core.proto import onnx_pb2 as pb
from onnxstudio.core.serde import wire
from onnxstudio.core.serde.convert import model_to_proto
from shared_models import shared_model, shared_model_names


def _with_real_bytes(model, proto):
    """`proto` with every stand-in replaced by the bytes it stands for."""
    tensors = {v.name: v.const for g in model.graphs() for v in g.initializers.values()}
    for t in proto.graph.initializer:
        if t.HasField("raw_data") and raw_data_length(t.raw_data) != len(t.raw_data):
            t.raw_data = bytes(tensors[t.name].raw_bytes())
    return proto


@pytest.mark.parametrize("name", shared_model_names())
def test_file_form_is_model_to_proto_but_for_the_weights(name):
    model = core.load(shared_model(name) / "model.onnx")
    form = file_form(model)
    assert _with_real_bytes(model, form) == model_to_proto(model)
    assert CheckSession(file_form(model)).diagnostics == CheckSession(model_to_proto(model)).diagnostics


def test_bert_small_file_form_holds_no_weights():
    model = core.load(shared_model("bert_small") / "model.onnx")
    weights = sum(v.const.nbytes for v in model.graph.initializers.values())
    assert weights > 40e6
    assert file_form(model).ByteSize() < weights / 20


def _big_model(raw_len_delta: int) -> bytes:
    """A model file large enough that serde maps its weight out of the
    message, with that weight's raw_data `raw_len_delta` bytes off."""
    n = wire.STRIP_FILES_FROM // 4 + 16
    w = helper.make_tensor("w", TensorProto.FLOAT, [n], vals=np.ones(n, np.float32).tobytes(), raw=True)
    if raw_len_delta:
        w.raw_data = w.raw_data[:raw_len_delta] if raw_len_delta < 0 else w.raw_data + b"\0" * raw_len_delta
    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n])], initializer=[w])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()


@pytest.mark.parametrize("delta", [0, -4, 3])
def test_stand_in_lengths_give_the_file_verdicts(delta):
    data = _big_model(delta)
    model = core.load_bytes(data)
    assert model.graph.initializers["w"].const.detached_raw_size == (wire.STRIP_FILES_FROM // 4 + 16) * 4 + delta
    from_ir = check(model, use_inference=False)
    from_file = check(data)
    assert from_ir == from_file
    assert (delta != 0) == any(d.code == "tensor.data-length" and d.path == 'graph/initializer "w"'
                               for d in from_file)


def _plain(data: bytes) -> pb.ModelProto:
    proto = pb.ModelProto()
    proto.ParseFromString(data)
    return proto


@pytest.mark.parametrize("name", shared_model_names())
def test_a_file_is_judged_as_a_plain_parse_judges_it(name):
    path = shared_model(name) / "model.onnx"
    want = CheckSession(_plain(path.read_bytes()), model_dir=path.parent).diagnostics
    assert check(path) == want
    assert check(path.read_bytes()) == CheckSession(_plain(path.read_bytes())).diagnostics


@pytest.mark.parametrize("delta", [0, -4, 3])
def test_a_large_file_keeps_its_raw_data_lengths(delta, tmp_path):
    data = _big_model(delta)
    assert len(parse_without_weights(data).SerializeToString()) < 1024    # the weight was left out
    path = tmp_path / "big.onnx"
    path.write_bytes(data)
    assert check(path) == check(data) == CheckSession(_plain(data), model_dir=tmp_path).diagnostics


def test_malformed_bytes_fail_as_protobuf_fails():
    data = _big_model(0)[:-5]
    with pytest.raises(Exception) as theirs:
        _plain(data)
    with pytest.raises(type(theirs.value)):
        check(data)


def test_a_real_tensor_is_never_taken_for_a_stand_in():
    assert raw_data_length(b"\0" * 20) == 20
    assert raw_data_length(b"") == 0
