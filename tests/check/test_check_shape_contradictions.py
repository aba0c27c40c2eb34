"""Contradictions inside the graph that inference proves from known dims
(core/infer/findings.py) are errors at the node, from `check(ir_model)`,
`check_file(path, ir_model)`, `onnxstudio check` and a Document's live
checker; symbolic and unknown dims never contradict."""
from __future__ import annotations

import json

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper as h
from onnx import numpy_helper

from onnxstudio import core
from onnxstudio.core import edits
from onnxstudio.core.check import ERROR, check, check_file
from onnxstudio.core.document import Document
from shared_models import shared_model

F = T.FLOAT


def _model(nodes, inputs, inits=(), opset=17, outputs=("y",)):
    """IR model of `nodes`; inputs as (name, shape) floats or (name, shape, elem)."""
    ins = [h.make_tensor_value_info(i[0], i[2] if len(i) > 2 else F, i[1]) for i in inputs]
    outs = [h.make_tensor_value_info(o, F, None) for o in outputs]
    g = h.make_graph(nodes, "g", ins, outs, [numpy_helper.from_array(np.asarray(v), n) for n, v in inits])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    return core.load_bytes(m.SerializeToString())


# The codes of these rules (the small models here leave their outputs'
# types loose, which other rules may note).
CODES = {"shape.broadcast-conflict", "shape.rank-mismatch", "shape.dim-mismatch", "shape.reshape-mismatch",
         "shape.index-out-of-range", "attr.axis-out-of-range", "attr.perm-invalid", "attr.length-mismatch"}


def _errors(model, code=None):
    found = [d for d in check(model) if d.severity == ERROR and d.code in CODES]
    return [d for d in found if code is None or d.code == code]


def _one(model, code):
    found = _errors(model)
    assert [d.code for d in found] == [code], "\n".join(map(str, found))
    return found[0]


# -- broadcasting ----------------------------------------------------------------------------

@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "PRelu"])
def test_two_known_unequal_dims_cannot_broadcast(op):
    m = _model([h.make_node(op, ["a", "b"], ["y"], name="add_3")], [("a", [1, 64, 256]), ("b", [1, 128, 256])])
    d = _one(m, "shape.broadcast-conflict")
    assert d.path == 'graph/node[0] %s "add_3"' % op
    assert "[1, 64, 256]" in d.message and "[1, 128, 256]" in d.message and "64 and 128" in d.message


@pytest.mark.parametrize("op", ["Equal", "Less", "Greater", "And", "Or"])
def test_comparisons_and_logic_broadcast_too(op):
    elem = T.BOOL if op in ("And", "Or") else F
    m = _model([h.make_node(op, ["a", "b"], ["y"])], [("a", [3, 4], elem), ("b", [5, 4], elem)])
    _one(m, "shape.broadcast-conflict")


def test_where_checks_all_three_inputs():
    m = _model([h.make_node("Where", ["c", "a", "b"], ["y"])],
               [("c", [2, 1], T.BOOL), ("a", [1, 3]), ("b", [1, 5])])
    assert "[1, 3]" in _one(m, "shape.broadcast-conflict").message


@pytest.mark.parametrize("a, b", [([1, 64], [128, 1]), (["batch", 64], [1, "seq"]), ([None, 3], [7, 3]),
                                  ([0, 3], [1, 3]), ([3], [2, 1, 3])])
def test_ones_symbols_and_unknowns_never_conflict(a, b):
    m = _model([h.make_node("Add", ["a", "b"], ["y"])], [("a", a), ("b", b)])
    assert _errors(m) == []


def test_expand_against_a_constant_shape():
    m = _model([h.make_node("Expand", ["a", "s"], ["y"])], [("a", [3, 4])], inits=[("s", np.array([2, 5], np.int64))])
    _one(m, "shape.broadcast-conflict")


def test_matmul_inner_and_batch_dims():
    m = _model([h.make_node("MatMul", ["a", "b"], ["y"])], [("a", [2, 3, 4]), ("b", [2, 5, 6])])
    d = _one(m, "shape.dim-mismatch")
    assert "4 and 5" in d.message and "[2, 3, 4]" in d.message and "[2, 5, 6]" in d.message
    m = _model([h.make_node("MatMul", ["a", "b"], ["y"])], [("a", [2, 3, 4]), ("b", [3, 4, 6])])
    _one(m, "shape.broadcast-conflict")
    assert _errors(_model([h.make_node("MatMul", ["a", "b"], ["y"])], [("a", ["n", 3, "k"]), ("b", [4, 6])])) == []


def test_gemm_inner_dims_ranks_and_bias():
    node = h.make_node("Gemm", ["a", "b"], ["y"], transB=1)
    assert "inner dims 4 and 6" in _one(_model([node], [("a", [3, 4]), ("b", [5, 6])]), "shape.dim-mismatch").message
    _one(_model([h.make_node("Gemm", ["a", "b"], ["y"])], [("a", [2, 3, 4]), ("b", [4, 6])]), "shape.rank-mismatch")
    m = _model([h.make_node("Gemm", ["a", "b", "c"], ["y"])], [("a", [3, 4]), ("b", [4, 6]), ("c", [5])])
    _one(m, "shape.dim-mismatch")
    m = _model([h.make_node("Gemm", ["a", "b", "c"], ["y"])], [("a", [3, 4]), ("b", [4, 6]), ("c", [1])])
    assert _errors(m) == []


def test_concat_off_axis_dims_ranks_and_axis():
    m = _model([h.make_node("Concat", ["a", "b"], ["y"], axis=1)], [("a", [2, 3]), ("b", [4, 5])])
    assert "axis 0 (2 and 4)" in _one(m, "shape.dim-mismatch").message
    _one(_model([h.make_node("Concat", ["a", "b"], ["y"], axis=0)], [("a", [2, 3]), ("b", [4])]), "shape.rank-mismatch")
    _one(_model([h.make_node("Concat", ["a", "b"], ["y"], axis=2)], [("a", [2, 3]), ("b", [2, 3])]),
         "attr.axis-out-of-range")
    assert _errors(_model([h.make_node("Concat", ["a", "b"], ["y"], axis=1)], [("a", ["n", 3]), ("b", [4, 5])])) == []


@pytest.mark.parametrize("target, allowzero, fragment", [
    ([4, 7], 0, "has 24 elements"),
    ([-1, 5], 0, "has 24 elements"),
    ([-1, -1], 0, "more than one -1"),
    ([0, 0, 0, 0], 0, "at position 3"),
    ([0, -1], 1, "both 0 and -1"),
    ([2, -3], 0, "negative dim"),
])
def test_reshape_targets_the_input_cannot_fill(target, allowzero, fragment):
    m = _model([h.make_node("Reshape", ["a", "s"], ["y"], allowzero=allowzero)], [("a", [2, 3, 4])],
               inits=[("s", np.array(target, np.int64))], opset=19)
    assert fragment in _one(m, "shape.reshape-mismatch").message


@pytest.mark.parametrize("target, shape", [([4, 6], [2, 3, 4]), ([0, -1], [2, 3, 4]), ([-1], ["n", 4]),
                                           ([0, 0, 2, 2], [2, 3, 4]), ([0, 12], [2, "n", 4])])
def test_reshape_targets_that_fit(target, shape):
    m = _model([h.make_node("Reshape", ["a", "s"], ["y"])], [("a", shape)],
               inits=[("s", np.array(target, np.int64))])
    assert _errors(m) == []


def test_gather_constant_index_out_of_range():
    m = _model([h.make_node("Gather", ["a", "i"], ["y"], axis=1)], [("a", [2, 3])],
               inits=[("i", np.array([0, 3], np.int64))])
    d = _one(m, "shape.index-out-of-range")
    assert "index 3" in d.message and "size is 3" in d.message
    ok = _model([h.make_node("Gather", ["a", "i"], ["y"], axis=1)], [("a", [2, 3])],
                inits=[("i", np.array([-3, 2], np.int64))])
    assert _errors(ok) == []


# -- ranks -------------------------------------------------------------------------------------

def _conv(x_shape, w_shape=(8, 3, 3, 3), **attrs):
    w = np.zeros(w_shape, np.float32)
    return _model([h.make_node("Conv", ["x", "w"], ["y"], name="c1", **attrs)], [("x", x_shape)], inits=[("w", w)])


def test_conv_input_rank_against_its_weight():
    d = _one(_conv([1, 3, 4]), "shape.rank-mismatch")
    assert d.path == 'graph/node[0] Conv "c1"'
    assert "rank 3 [1, 3, 4]" in d.message and "rank 4 [8, 3, 3, 3]" in d.message


def test_conv_attribute_lengths_channels_and_kernel():
    assert "needs 4" in _one(_conv([1, 3, 9, 9], pads=[1, 1]), "attr.length-mismatch").message
    _one(_conv([1, 3, 9, 9], strides=[1, 1, 1]), "attr.length-mismatch")
    assert "expects 3" in _one(_conv([1, 4, 9, 9]), "shape.dim-mismatch").message
    _one(_conv([1, 3, 9, 9], kernel_shape=[5, 5]), "shape.dim-mismatch")
    assert _errors(_conv(["n", "c", "h", "w"], pads=[1, 1, 1, 1], strides=[2, 2])) == []
    assert _errors(_conv([1, 6, 9, 9], group=2)) == []


def test_pool_attribute_lengths():
    m = _model([h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2])], [("x", [1, 3, 8])])
    _one(m, "attr.length-mismatch")


def test_batch_norm_statistics_are_per_channel():
    stats = [(n, np.ones(4, np.float32)) for n in ("s", "b", "m", "v")]
    m = _model([h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])], [("x", [1, 3, 5, 5])],
               inits=stats)
    assert "4 values" in _one(m, "shape.dim-mismatch").message
    stats[0] = ("s", np.ones((4, 1), np.float32))
    m = _model([h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])], [("x", [1, 4, 5, 5])],
               inits=stats)
    _one(m, "shape.rank-mismatch")


# -- axis-type attributes --------------------------------------------------------------------------

@pytest.mark.parametrize("node, shape", [
    (h.make_node("Softmax", ["x"], ["y"], axis=7), [1, 2, 3, 4]),
    (h.make_node("LogSoftmax", ["x"], ["y"], axis=-5), [1, 2, 3, 4]),
    (h.make_node("Flatten", ["x"], ["y"], axis=5), [1, 2, 3, 4]),
    (h.make_node("Gather", ["x", "i"], ["y"], axis=2), [2, 3]),
    (h.make_node("ArgMax", ["x"], ["y"], axis=3), [2, 3]),
    (h.make_node("ReduceSum", ["x", "axes"], ["y"]), [2, 3]),
    (h.make_node("Squeeze", ["x", "axes"], ["y"]), [2, 3]),
    (h.make_node("Unsqueeze", ["x", "axes"], ["y"]), [2]),
    (h.make_node("Split", ["x"], ["y", "z"], axis=2), [2, 4]),
    (h.make_node("CumSum", ["x", "ax"], ["y"]), [2, 3]),
    (h.make_node("LayerNormalization", ["x", "g"], ["y"], axis=2), [2, 3]),
    (h.make_node("TopK", ["x", "k"], ["y", "z"], axis=2), [2, 3]),
    (h.make_node("ScatterElements", ["x", "i", "x"], ["y"], axis=2), [2, 3]),
    (h.make_node("OneHot", ["x", "k", "v"], ["y"], axis=3), [2, 3]),
])
def test_axes_outside_the_rank(node, shape):
    inits = [("i", np.array([0], np.int64)), ("axes", np.array([3], np.int64)), ("ax", np.array(2, np.int64)),
             ("g", np.ones(3, np.float32)), ("k", np.array([1], np.int64)), ("v", np.array([0, 1], np.float32))]
    inits = [i for i in inits if i[0] in node.input]
    m = _model([node], [("x", shape)], inits=inits, outputs=tuple(node.output))
    d = _one(m, "attr.axis-out-of-range")
    assert f"rank {len(shape) + (1 if node.op_type in ('Unsqueeze', 'OneHot') else 0)}" in d.message


def test_unsqueeze_axis_twice_and_squeeze_of_a_dim_other_than_1():
    m = _model([h.make_node("Unsqueeze", ["x", "axes"], ["y"])], [("x", [2])],
               inits=[("axes", np.array([0, -3], np.int64))])
    assert "twice" in _one(m, "attr.axis-out-of-range").message
    m = _model([h.make_node("Squeeze", ["x", "axes"], ["y"])], [("x", [2, 3])],
               inits=[("axes", np.array([0], np.int64))])
    _one(m, "shape.dim-mismatch")


def test_transpose_perm_and_pad_lengths():
    m = _model([h.make_node("Transpose", ["x"], ["y"], perm=[0, 2, 1])], [("x", [2, 3])])
    assert "permutation of 0..1" in _one(m, "attr.perm-invalid").message
    m = _model([h.make_node("Pad", ["x", "p"], ["y"])], [("x", [2, 3])], inits=[("p", np.array([1, 1], np.int64))])
    _one(m, "attr.length-mismatch")


def test_split_sizes_must_add_up():
    m = _model([h.make_node("Split", ["x", "s"], ["y", "z"], axis=1)], [("x", [2, 5])],
               inits=[("s", np.array([2, 2], np.int64))], outputs=("y", "z"))
    _one(m, "shape.dim-mismatch")


# -- the cases ------------------------------------------------------------------------------

def test_bert_with_shorter_inputs_contradicts_its_constants(tmp_path):
    path = shared_model("bert_small") / "model.onnx"
    model = core.load(path)
    for name in ("input_ids", "attention_mask"):
        edits.set_input_shape(model, name, [1, 64]).apply(model)
    found = _errors(model, "shape.broadcast-conflict")
    assert found, "no broadcast conflict after setting the inputs to [1, 64]"
    assert "[1, 64, 256]" in found[0].message and "[1, 128, 256]" in found[0].message
    assert found[0].path.startswith("graph/node[") and " Add " in found[0].path
    # The CLI's check of the saved file says the same.
    out = tmp_path / "bert64.onnx"
    core.save(model, out)
    assert any(d.code == "shape.broadcast-conflict" for d in check_file(out, ir_model=core.load(out)))


def test_ppocr_with_a_rank_3_input_contradicts_its_first_conv():
    model = core.load(shared_model("ppocr_v4_det") / "model.onnx")
    edits.set_input_shape(model, "x", [1, 3, 4], allow_rank_change=True).apply(model)
    found = _errors(model)
    assert [d.code for d in found] == ["shape.rank-mismatch"], "\n".join(map(str, found))
    assert " Conv " in found[0].path and "[1, 3, 4]" in found[0].message


def _softmax_document():
    m = _model([h.make_node("Relu", ["x"], ["r"], name="relu"), h.make_node("Softmax", ["r"], ["y"], name="sm")],
               [("x", [1, 2, 3, 4])])
    return Document(m)


def test_softmax_axis_set_past_the_rank_is_a_problem_of_the_document():
    doc = _softmax_document()
    assert [d for d in doc.diagnostics if d.code in CODES] == []
    doc.apply(edits.SetAttribute("sm", "axis", int(onnx.AttributeProto.INT), 7))
    found = [d for d in doc.diagnostics if d.code == "attr.axis-out-of-range"]
    assert [d.path for d in found] == ['graph/node[1] Softmax "sm"']
    assert "is 7" in found[0].message and "rank 4" in found[0].message
    # Setting a valid axis takes the finding away; undo brings it back.
    doc.apply(edits.SetAttribute("sm", "axis", int(onnx.AttributeProto.INT), -1), merge=False)
    assert not [d for d in doc.diagnostics if d.code == "attr.axis-out-of-range"]
    doc.undo()
    assert [d.code for d in doc.diagnostics if d.code == "attr.axis-out-of-range"] == ["attr.axis-out-of-range"]


def test_finding_follows_its_node_when_nodes_before_it_are_removed():
    doc = _softmax_document()
    doc.apply(edits.SetAttribute("sm", "axis", int(onnx.AttributeProto.INT), 7))
    doc.apply(edits.bypass_node(doc.model, "relu"))
    found = [d for d in doc.diagnostics if d.code == "attr.axis-out-of-range"]
    assert [d.path for d in found] == ['graph/node[0] Softmax "sm"']


def test_cli_check_reports_the_contradiction(tmp_path, capsys):
    from onnxstudio.cli import main
    m = _model([h.make_node("Add", ["a", "b"], ["y"], name="add_3")], [("a", [1, 64]), ("b", [1, 128])])
    path = tmp_path / "m.onnx"
    core.save(m, path)
    assert main(["check", str(path), "--json"]) == 1
    found = [d for d in json.loads(capsys.readouterr().out) if d["code"] == "shape.broadcast-conflict"]
    assert [d["path"] for d in found] == ['graph/node[0] Add "add_3"'] and found[0]["severity"] == "error"


def test_other_ranks_fixed_by_the_op():
    m = _model([h.make_node("Einsum", ["a", "b"], ["y"], equation="ij,jk->ik")], [("a", [2, 3, 4]), ("b", [4, 5])],
               opset=17)
    assert "'ij'" in _one(m, "shape.rank-mismatch").message
    assert _errors(_model([h.make_node("Einsum", ["a", "b"], ["y"], equation="...ij,jk->...ik")],
                          [("a", [7, 2, 3]), ("b", [3, 5])])) == []
    _one(_model([h.make_node("Det", ["a"], ["y"])], [("a", [3])]), "shape.rank-mismatch")
    m = _model([h.make_node("InstanceNormalization", ["x", "s", "b"], ["y"])], [("x", [1, 3, 5])],
               inits=[("s", np.ones(4, np.float32)), ("b", np.ones(3, np.float32))])
    assert "4 values" in _one(m, "shape.dim-mismatch").message


def test_messages_show_fresh_dims_as_question_marks():
    # NonZero's count gets a fresh name (`?N`), numbered per run: a message
    # naming it would read differently after an edit than after a fresh load.
    nodes = [h.make_node("NonZero", ["x"], ["nz"]), h.make_node("Add", ["nz", "b"], ["y"])]
    inputs = [h.make_tensor_value_info("x", F, [2, 3]), h.make_tensor_value_info("b", T.INT64, [3, 1])]
    g = h.make_graph(nodes, "g", inputs,
                     [h.make_tensor_value_info("y", T.INT64, None)],
                     value_info=[h.make_tensor_value_info("nz", F, None)])
    m = core.load_bytes(h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString())
    found = [d for d in check(m) if d.code == "graph.declared-type-contradicts"]
    assert len(found) == 1 and "gives int64[2,?]" in found[0].message, found
    assert "[2, ?]" in _one(m, "shape.broadcast-conflict").message
