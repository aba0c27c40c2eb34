"""Shape and type facts onnx full_check and onnxruntime refuse and the app
called clean, found with tools/check_differential.py (seeds 31-36);
inference now reports them (so the app and `onnxstudio check` do). Each
case names the reproducer it comes from (`--replay BASE:SEED`):

- an If's branches give an output with one element type
  (node/test_affine_grid_3d_expanded:31003771: a Div of one branch turned
  into GreaterOrEqual, its bool against the other branch's float);
- RoiAlign's X is 4-D, rois (num_rois, 4) and batch_indices (num_rois)
  (node/test_roialign_aligned_true:35002059: rois declared [3, 0]).

Each refused case is proved on both oracles: onnx full_check refuses it and
onnxruntime refuses it at load (its load runs onnx's inference and graph
checks, never a kernel: the same on every machine), or onnx accepts it and
onnxruntime fails to run it. Valid neighbours are accepted by both and clean
for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _if(else_op, cond=None, declared=False):
    """An If whose then_branch gives Add(x, one) (float) and else_branch
    `else_op`(x, one); the branches' outputs are untyped (as in the
    reproducer) or, with `declared`, declared with what each makes. `cond`:
    a constant condition, else a graph input."""
    one = numpy_helper.from_array(np.ones(2, np.float32), "one")

    def branch(op, out):
        made = B if op in ("GreaterOrEqual", "Less") else F
        vi = _vi(out, made, [2]) if declared else helper.make_empty_tensor_value_info(out)
        return helper.make_graph([helper.make_node(op, ["x", "one"], [out])], f"{out}_branch", [], [vi])

    node = helper.make_node("If", ["c"], ["y"], name="pick", then_branch=branch("Add", "t"),
                            else_branch=branch(else_op, "e"))
    inputs, inits = [_vi("x", F, [2])], [one]
    if cond is None:
        inputs.append(_vi("c", B, []))
    else:
        inits.append(numpy_helper.from_array(np.array(cond), "c"))
    return _model([node], inputs, [_vi("y", F, [2])], inits)


def _roi_align(x=(1, 2, 8, 8), rois=(3, 4), indices=(3,), opset=16):
    node = helper.make_node("RoiAlign", ["x", "rois", "idx"], ["y"], name="roi", output_height=2, output_width=2)
    inputs = [_vi("x", F, list(x)), _vi("rois", F, list(rois)), _vi("idx", I64, list(indices))]
    return _model([node], inputs, [_vi("y", F, ["n", "c", "h", "w"])], opset=opset)


IF_PATH = 'graph/node[0] If "pick"'
ROI_PATH = 'graph/node[0] RoiAlign "roi"'
# name -> (model, our code, our path); onnx and onnxruntime's load refuse each
REFUSED_AT_LOAD = {
    "if_branches_float_and_bool": (_if("GreaterOrEqual"), "node.type-mismatch", IF_PATH),
    "if_branches_float_and_bool_constant_condition": (_if("GreaterOrEqual", cond=True), "node.type-mismatch",
                                                      IF_PATH),
    "if_branches_declared_float_and_bool": (_if("Less", declared=True), "node.type-mismatch", IF_PATH),
    "roi_align_x_rank_3": (_roi_align(x=(2, 8, 8)), "shape.rank-mismatch", ROI_PATH),
    "roi_align_rois_rank_3": (_roi_align(rois=(3, 4, 1)), "shape.rank-mismatch", ROI_PATH),
    "roi_align_indices_rank_2": (_roi_align(indices=(3, 1)), "shape.rank-mismatch", ROI_PATH),
    "roi_align_region_counts_differ": (_roi_align(indices=(2,)), "shape.dim-mismatch", ROI_PATH),
    # The reproducer's form: from opset 22 onnx's inference holds rois to 4 numbers a region.
    "roi_align_22_rois_of_0": (_roi_align(rois=(3, 0), opset=22), "shape.dim-mismatch", ROI_PATH),
    "roi_align_22_rois_of_5": (_roi_align(rois=(3, 5), opset=22), "shape.dim-mismatch", ROI_PATH),
}
ACCEPTED = {
    "if_branches_float": _if("Sub"),
    "if_branches_float_constant_condition": _if("Sub", cond=False),
    "roi_align": _roi_align(),
    "roi_align_symbolic": _roi_align(rois=("n", "w"), indices=("n",)),
}


@pytest.mark.parametrize("name", sorted(REFUSED_AT_LOAD))
def test_refused_by_both_oracles_and_by_us(name, tmp_path):
    model, code, where = REFUSED_AT_LOAD[name]
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    assert [(d.code, d.path) for d in our_errors(model, tmp_path)] == [(code, where)]


def _run_roi_align(model, rois_per_region: int):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    rois = np.tile(np.array([0, 0, 4, 4, 1][:rois_per_region], np.float32), (3, 1))
    return session.run(None, {"x": np.ones((1, 2, 8, 8), np.float32), "rois": rois,
                              "idx": np.zeros(3, np.int64)})


@pytest.mark.parametrize("per_region", [0, 2, 5])
def test_rois_of_other_than_4_numbers_fail_to_run_before_opset_22(per_region, tmp_path):
    """Opset 16: onnx's inference does not read rois' second dim and accepts
    the model; onnxruntime loads it and fails to run it ("Second dimension
    for rois should be exactly 4"), whatever the rois given."""
    model = _roi_align(rois=(3, per_region))
    assert onnx_accepts(model)
    with pytest.raises(Exception):  # noqa: B017 - onnxruntime raises its own error types
        _run_roi_align(model, per_region)
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("shape.dim-mismatch", ROI_PATH)]
    assert f"input 1 'rois' [3, {per_region}] has {per_region} numbers per region" in found[0].message


def test_the_valid_roi_align_runs():
    (y,) = _run_roi_align(ACCEPTED["roi_align"], 4)
    assert y.shape == (3, 2, 2, 2)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_valid_forms_are_clean(name, tmp_path):
    model = ACCEPTED[name]
    assert onnx_accepts(model)
    assert onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_the_message_names_the_output_and_both_types(tmp_path):
    (found,) = our_errors(REFUSED_AT_LOAD["if_branches_float_and_bool"][0], tmp_path)
    assert "then_branch gives output 0 'y' as float but else_branch gives it as bool" in found.message
    (found,) = our_errors(REFUSED_AT_LOAD["roi_align_region_counts_differ"][0], tmp_path)
    assert "[3, 4] lists 3 regions" in found.message and "[2] gives 2 batch indices" in found.message


def test_the_live_checker_follows_a_branch_s_operator_edited(tmp_path):
    """Turning the else_branch's Sub into GreaterOrEqual (the reproducer's
    edit) and undoing it: the live list equals a full check each time."""
    from onnxstudio import core
    from onnxstudio.core.check import ERROR
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetNodeField
    path = tmp_path / "if.onnx"
    path.write_bytes(ACCEPTED["if_branches_float"].SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    else_branch = (("node", "pick", "else_branch"),)
    doc.apply(SetNodeField({"output": "e"}, "op_type", "GreaterOrEqual", graph=else_branch))
    assert [(d.code, d.path) for d in doc.diagnostics if d.severity == ERROR] == [("node.type-mismatch", IF_PATH)]
    assert doc.diagnostics == core.check(doc.model)
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    assert doc.diagnostics == core.check(doc.model)
