"""A symbolic dim that the model's fixed numbers allow one size of
(shape.dim-fixed, a warning): every checker accepts such a file, yet any
other size fails at run (QA: bert_small with its batch set to `batch` by
set-shape; onnxruntime fails at batch 2 in the first attention output's
MatMul). Warned where a folded dim meets a weight (MatMul, Gemm: `256*batch`
against 256) and where a Reshape to fixed numbers leaves one symbol one size;
never for a symbol that merely names the size a weight gives, nor for a
truly dynamic export."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import WARNING, check
from shared_models import shared_model

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def _fixed(path) -> list:
    return [d for d in check(core.load(path)) if d.code == "shape.dim-fixed"]


def _save(model, path):
    path.write_bytes(model.SerializeToString())
    return path


def _folded_batch(tmp_path, target):
    """x [batch, 4, 8] -> Reshape(target) -> MatMul with W [32, 2]."""
    nodes = [helper.make_node("Reshape", ["x", "shape"], ["r"], name="fold"),
             helper.make_node("MatMul", ["r", "w"], ["y"], name="mm")]
    inits = [numpy_helper.from_array(np.array(target, np.int64), "shape"),
             numpy_helper.from_array(np.ones((32, 2), np.float32), "w")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, ["batch", 4, 8])],
                          [helper.make_tensor_value_info("y", F, None)], inits)
    m = helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])
    return _save(m, tmp_path / "m.onnx")


def test_a_batch_folded_into_the_inner_dim_is_warned_once_at_the_matmul(tmp_path):
    found = _fixed(_folded_batch(tmp_path, [1, -1]))
    assert len(found) == 1 and found[0].severity == WARNING
    assert found[0].path == 'graph/node[1] MatMul "mm"'
    assert found[0].message.startswith("batch can only be 1 here: the inner dims of input 0")
    assert "are 32*batch and 32" in found[0].message


def test_a_reshape_to_fixed_numbers_is_warned_at_the_reshape(tmp_path):
    found = _fixed(_folded_batch(tmp_path, [1, 32]))
    assert [d.path for d in found] == ['graph/node[0] Reshape "fold"']
    assert found[0].message.startswith("batch can only be 1 here: input 0")


@pytest.mark.parametrize("target", [[-1, 32], [0, 32]])
def test_a_reshape_that_keeps_the_batch_is_not_warned(target, tmp_path):
    assert _fixed(_folded_batch(tmp_path, target)) == []


def test_a_symbol_naming_the_size_a_weight_gives_is_not_warned(tmp_path):
    """A file naming every dim: `features` against W's 8 only names the size."""
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
                          [helper.make_tensor_value_info("x", F, ["batch", "features"])],
                          [helper.make_tensor_value_info("y", F, None)],
                          [numpy_helper.from_array(np.ones((8, 2), np.float32), "w")])
    m = helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])
    assert _fixed(_save(m, tmp_path / "m.onnx")) == []


def test_bert_small_with_a_symbolic_batch_is_warned_per_layer(tmp_path):
    from onnxstudio.core import edits
    from onnxstudio.core.document import Document
    doc = Document.open(shared_model("bert_small") / "model.onnx")
    for name in ("input_ids", "attention_mask", "token_type_ids"):
        doc.apply(edits.set_input_shape(doc.model, name, ["batch", 128]))
    found = [d for d in doc.diagnostics if d.code == "shape.dim-fixed"]
    assert len(found) == 4 and all(d.message.startswith("batch can only be 1 here") for d in found)
    assert not [d for d in doc.diagnostics if d.severity.name == "ERROR"]
