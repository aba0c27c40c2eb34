"""Matching and classifying (core/diff): real models after renames and
known edits, the rewrites it recognises, and bodies."""
import math

import pytest

from onnxstudio.core import load
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import to_json
from shared_models import SHARED_MODELS

from .models import edited_bert, folded_ppocr, fused_pair, rename_everything, with_bodies

BERT = SHARED_MODELS / "bert_small" / "model.onnx"
PPOCR = SHARED_MODELS / "ppocr_v4_det" / "model.onnx"


def _all_nodes(model):
    return sum(len(g.nodes) for g in model.graph.walk())


def test_everything_renamed_is_a_full_match():
    a, b = load(BERT), rename_everything(load(BERT))
    d = diff_models(a, b)
    j = to_json(d)
    assert d.matched == _all_nodes(a) == _all_nodes(b)
    assert j["nodes"] == {"added": [], "removed": [], "changed": []}
    assert j["initializers"] == {"changed": [], "added": [], "removed": []}
    assert j["rewrites"] == []
    # Every pair is the same node: same op, and A's name maps to B's new name.
    for na, nb in d.matching.nodes.items():
        assert na.op_type == nb.op_type and nb.name.startswith("r_node_")
    renamed = dict(map(tuple, j["renamed"]))
    assert renamed["input_ids"].startswith("r_value_")
    assert len([na for na in d.matching.nodes if na.name]) <= len(j["renamed"])
    assert not d.equal


def test_model_against_itself_is_equal():
    d = diff_models(load(BERT), load(BERT))
    assert d.equal and d.matched == _all_nodes(d.matching.a)


def test_known_edit_script_gives_exactly_its_differences():
    a, b, touched = edited_bert(BERT)
    j = to_json(diff_models(a, b))
    assert j["nodes"]["changed"] == [{"a": touched["softmax"], "b": touched["softmax"], "op": "Softmax",
                                      "attributes": ["axis"], "inputs": False}]
    assert j["nodes"]["added"] == ["inserted_relu"]
    assert j["nodes"]["removed"] == [touched["tanh"]]
    [w] = j["initializers"]["changed"]
    assert w["a"] == w["b"] == touched["weight"]
    assert w["max_abs"] == pytest.approx(0.5, rel=1e-6)
    assert 0 < w["share_changed"] < 1e-3          # one element of a large table
    assert j["initializers"]["added"] == j["initializers"]["removed"] == []
    assert j["io"]["inputs"]["changed"] == [{"a": "input_ids", "b": "input_ids", "a_type": "int64[1,128]",
                                             "b_type": "int64[1,seq]"}]
    # The bypass put the Tanh's input in the output list in place of its output.
    assert j["io"]["outputs"]["changed"] == [{"a": touched["tanh_output"], "b": touched["tanh_input"],
                                              "a_type": "float[1,256]", "b_type": "float[1,256]"}]
    assert j["renamed"] == [[touched["tanh_output"], touched["tanh_input"]]]
    assert j["rewrites"] == []


def test_conv_batchnorm_fold_is_reported_as_a_fold():
    a, b, conv, bn = folded_ppocr(PPOCR)
    j = to_json(diff_models(a, b))
    [fold] = j["rewrites"]
    assert fold["kind"] == "folded" and fold["a"] == [conv, bn] and fold["b"] == [conv]
    assert fold["initializers_b"] == ["folded_bias"]
    assert j["nodes"] == {"added": [], "removed": [], "changed": []}
    assert j["initializers"] == {"changed": [], "added": [], "removed": []}


def test_matmul_add_fused_into_gemm():
    a, b = fused_pair()
    d = diff_models(a, b)
    j = to_json(d)
    assert [(r["kind"], r["a"], r["b"]) for r in j["rewrites"]] == [("fused", ["mm", "add"], ["gemm"])]
    assert j["nodes"] == {"added": [], "removed": [], "changed": []}
    assert j["initializers"] == {"changed": [], "added": [], "removed": []}
    # The Add's output is paired with the Gemm's: values downstream compare.
    assert d.matching.values[a.graph.get_value("sum")] is b.graph.get_value("gemm_out")


def test_changed_attribute_inside_a_body_of_a_renamed_model():
    a, b = with_bodies(0.1), rename_everything(with_bodies(0.3))
    j = to_json(diff_models(a, b))
    assert j["matched"] == 5
    [c] = j["nodes"]["changed"]
    assert c["a"] == "choose/then_branch/leaky" and c["attributes"] == ["alpha"]
    assert c["b"].startswith("r_node_") and "/then_branch/" in c["b"]
    assert j["nodes"]["added"] == j["nodes"]["removed"] == []


def test_body_node_added_and_removed():
    a = with_bodies()
    b = with_bodies()
    body = dict(b.graph.find_node("choose").subgraphs())["then_branch"]
    neg = body.find_node("neg")
    neg.op_type = "Sigmoid"          # another op in the same place: a change, not an add/remove pair
    j = to_json(diff_models(a, b))
    [c] = j["nodes"]["changed"]
    assert c["op"] == ["Neg", "Sigmoid"] and c["a"] == "choose/then_branch/neg"
    assert j["nodes"]["added"] == j["nodes"]["removed"] == []


def test_json_numbers_are_plain():
    a, b, _ = edited_bert(BERT)
    w = to_json(diff_models(a, b))["initializers"]["changed"][0]
    assert all(isinstance(w[k], float) and math.isfinite(w[k]) for k in ("max_abs", "max_rel", "share_changed"))
