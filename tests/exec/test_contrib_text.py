"""com.microsoft Tokenizer, which skl2onnx writes for scikit-learn's
CountVectorizer and TfidfVectorizer: a text pipeline from scikit-learn did
not run ("no kernel for com.microsoft::Tokenizer"). onnxruntime defines the
operator; its Tokenizer is plain string work (no integer arithmetic that
depends on the CPU), so it is the oracle here."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio.core import load_bytes
from onnxstudio.core.exec.session import Session
from onnxstudio.core.infer import Inference

ort = pytest.importorskip("onnxruntime")

_BASE = dict(mark=0, mincharnum=1, pad_value="#")
CASES = [
    (["the cat sat", "a dog ran far", "", "x"], dict(tokenexp="[a-zA-Z0-9_]+", **_BASE)),
    (["the cat sat", "a dog ran far", "", "x"], dict(separators=[" "], **_BASE)),
    (["the cat sat", "", "x"], dict(tokenexp="[a-z]+", mark=1, mincharnum=1, pad_value="#")),     # marks, empty row
    (["the cat sat", "a dog", "x"], dict(tokenexp="[a-z]+", mark=0, mincharnum=2, pad_value="#")),  # short ones dropped
    ([["ab cd", "e"], ["f g h", ""]], dict(separators=[" "], **_BASE)),                            # [N, C]
    (["héllo wörld"], dict(separators=[""], **_BASE)),                                             # characters
    (["a,b;;c", "d"], dict(separators=[",", ";"], **_BASE)),                                       # no empty pieces
    (["a, b", "c"], dict(separators=[", ?"], **_BASE)),                                            # regular expressions
    (["hello world"], dict(separators=["o"], mark=1, mincharnum=1, pad_value="#")),
    (["a1 b2"], dict(tokenexp="[a-z]", separators=["1"], **_BASE)),                                # separators win
    (["é ü x"], dict(separators=[" "], mark=0, mincharnum=2, pad_value="#")),                      # no token at all
    ([["", ""], ["", ""]], dict(separators=[" "], mark=1, mincharnum=1, pad_value="#")),
    (["one  two\tthree\nfour"], dict(separators=["\\s+"], mark=0, mincharnum=1, pad_value="")),
]


def _model(**attrs) -> bytes:
    node = helper.make_node("Tokenizer", ["x"], ["y"], domain="com.microsoft", name="tok", **attrs)
    graph = helper.make_graph([node], "t", [helper.make_tensor_value_info("x", TensorProto.STRING, None)],
                              [helper.make_tensor_value_info("y", TensorProto.STRING, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)]).SerializeToString()


def _onnxruntime(data: bytes, feeds: dict) -> list:
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)


@pytest.mark.parametrize("strings, attrs", CASES)
def test_tokens_as_onnxruntime_makes_them(strings, attrs):
    data = _model(**attrs)
    x = np.array(strings, dtype=object)
    theirs = _onnxruntime(data, {"x": x})[0]
    ours = Session(load_bytes(data)).run({"x": x})["y"]
    assert ours.shape == theirs.shape and ours.tolist() == theirs.tolist()


def test_a_text_pipeline_runs_and_is_typed():
    """skl2onnx's TfidfVectorizer: Tokenizer, then TfIdfVectorizer over its tokens."""
    pool = ["cat", "dog", "the", "ran"]
    nodes = [helper.make_node("Tokenizer", ["text"], ["tokens"], domain="com.microsoft", mark=0, mincharnum=1,
                              pad_value="#", tokenexp="[a-z]+"),
             helper.make_node("TfIdfVectorizer", ["tokens"], ["counts"], max_gram_length=1, min_gram_length=1,
                              max_skip_count=0, mode="TF", ngram_counts=[0], ngram_indexes=[0, 1, 2, 3],
                              pool_strings=pool)]
    graph = helper.make_graph(nodes, "p", [helper.make_tensor_value_info("text", TensorProto.STRING, ["n"])],
                              [helper.make_tensor_value_info("counts", TensorProto.FLOAT, ["n", 4])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                   helper.make_opsetid("com.microsoft", 1)]).SerializeToString()
    text = np.array(["the cat saw the dog", "dog ran", "nothing here"], dtype=object)
    model = load_bytes(data)
    ours = Session(model).run({"text": text})["counts"]
    np.testing.assert_array_equal(ours, _onnxruntime(data, {"text": text})[0])
    tokens = Inference(model).run()["tokens"]
    assert tokens.elem_type == TensorProto.STRING and tokens.shape[0] == "n" and len(tokens.shape) == 2
