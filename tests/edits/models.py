"""Small models the edit tests work on, and the one check every edit test
makes: apply, look, undo, get the original back byte for byte, redo."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.analysis import Analysis
from onnxstudio.core.edits import Changes
from onnxstudio.core.proto import onnx_pb2 as pb


def chain_model(opset: int = 18) -> bytes:
    """x -> Relu "a" -> Add(W) "b" -> Abs "c" -> y, an If "if" whose branch
    reads a_out from outside, a sparse initializer, a value_info entry and a
    model-local function called once."""
    then_g = helper.make_graph([helper.make_node("Identity", ["a_out"], ["t"], name="inner")], "then", [],
                               [helper.make_tensor_value_info("t", TensorProto.FLOAT, None)])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["e"], name="inner_neg")], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, None)])
    fn = helper.make_function("local", "Twice", ["u"], ["v"],
                              [helper.make_node("Add", ["u", "u"], ["v"], name="twice_add")],
                              [helper.make_opsetid("", opset)])
    nodes = [helper.make_node("Relu", ["x"], ["a_out"], name="a"),
             helper.make_node("Add", ["a_out", "W"], ["b_out"], name="b"),
             helper.make_node("Abs", ["b_out"], ["y"], name="c"),
             helper.make_node("If", ["cond"], ["z"], name="if", then_branch=then_g, else_branch=else_g),
             helper.make_node("Twice", ["y"], ["w"], name="call", domain="local")]
    W = numpy_helper.from_array(np.arange(4, dtype=np.float32), "W")
    S = helper.make_sparse_tensor(numpy_helper.from_array(np.array([1.5, 2.5], np.float32), "S"),
                                  numpy_helper.from_array(np.array([1, 3], np.int64), ""), [4])
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4]),
                                       helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 4]),
                           helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 4]),
                           helper.make_tensor_value_info("w", TensorProto.FLOAT, ["N", 4])],
                          [W], sparse_initializer=[S],
                          value_info=[helper.make_tensor_value_info("a_out", TensorProto.FLOAT, ["N", 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid("local", 1)],
                          functions=[fn], producer_name="tests", ir_version=10)
    helper.set_model_props(m, {"author": "me", "license": "mit"})
    return m.SerializeToString()


def chain() -> core.Model:
    return core.load_bytes(chain_model())


def check_roundtrip(model, edit, *, look=None, same_bytes_ok=False, end_original=False):
    """Apply `edit`, let `look(model, changes)` assert the result, undo it and
    compare bytes with the original, redo it and compare with the edited
    bytes (with `end_original`, undo once more). Returns the forward edit's
    changes."""
    before = core.to_bytes(model)
    changes = Changes()
    inverse = edit.apply(model, changes)
    edited = core.to_bytes(model)
    assert same_bytes_ok or edited != before, "the edit changed nothing"
    # The edited model is a valid file that loads again.
    core.load_bytes(edited)
    if look is not None:
        look(model, changes)
    inverse.apply(model, Changes())
    assert core.to_bytes(model) == before, "undo did not give back the original bytes"
    again = edit.apply(model, Changes())
    assert core.to_bytes(model) == edited, "redo did not give back the edited bytes"
    if end_original:
        again.apply(model, Changes())
        assert core.to_bytes(model) == before, "undo after redo did not give back the original bytes"
    return changes


def run_ort(data: bytes, feeds: dict):
    import onnxruntime as ort
    s = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def onnx_model(model) -> onnx.ModelProto:
    return onnx.load_from_string(core.to_bytes(model))


# -- a damaged file opened as a Document (the repeated-declaration tests) ----------------------

def written(tmp_path, model: onnx.ModelProto, name: str = "m.onnx"):
    """`model` written as it is (damage kept) to tmp_path/name; its path."""
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def parsed(path) -> pb.ModelProto:
    """The file at `path` as a message of our bindings (what is written, to the field)."""
    m = pb.ModelProto()
    m.ParseFromString(path.read_bytes())
    return m


def saved(doc, path) -> pb.ModelProto:
    """The document saved to `path`, parsed back."""
    core.save(doc.model, path)
    return parsed(path)


def like_a_full_check(doc, what: str) -> None:
    """The live checker's findings are a full check's of the same model."""
    assert doc.diagnostics == Analysis(doc.model).diagnostics(), f"{what}: incremental differs from a full check"
