"""Comparing with a golden .npz and with a second model (other_references.py)."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core import load
from onnxstudio.core.exec.compare import CompareError
from onnxstudio.core.exec.other_references import compare_models, compare_with_golden
from onnxstudio.core.exec.session import Session

from edited_models import bert_layernorm_epsilon, inputs_of
from shared_models import shared_model


def _values(model, feeds):
    s = Session(model, keep=True)
    outputs = s.run(feeds)
    return {**{k: v for k, v in s.values.items() if k not in model.graph.initializers}, **outputs}


@pytest.mark.slow
def test_golden_values_find_the_edited_node(tmp_path):
    path, culprit = bert_layernorm_epsilon(tmp_path)
    feeds = inputs_of("bert_12layer_narrow")
    golden = _values(load(shared_model("bert_12layer_narrow") / "model.onnx"), feeds)
    golden["not_a_value"] = np.zeros(3, np.float32)
    report = compare_with_golden(load(path), feeds, golden)
    assert report.first_divergence.node.name == culprit
    assert report.worst_own.node.name == culprit
    assert report.unmatched == ["not_a_value"]
    assert report.to_json()["unmatched"] == ["not_a_value"]


def test_golden_with_only_some_values_compares_those_and_says_so():
    model = load(shared_model("bert_12layer_narrow") / "model.onnx")
    feeds = inputs_of("bert_12layer_narrow")
    with np.load(shared_model("bert_12layer_narrow") / "expected_outputs.npz") as z:
        golden = {k: z[k] for k in z.files}
    report = compare_with_golden(model, feeds, golden, own=False)
    assert report.agrees
    assert set(report.values) == set(golden)
    assert len(report.skipped) > 1000          # every intermediate: not in the golden set


def test_golden_naming_nothing_of_the_model_says_which_names():
    model = load(shared_model("bert_12layer_narrow") / "model.onnx")
    with pytest.raises(CompareError, match=r"names no value of the model: it holds logits, probs.*named like"):
        compare_with_golden(model, inputs_of("bert_12layer_narrow"),
                            {"logits": np.zeros(2), "probs": np.zeros(2)})


def test_two_models_before_and_after_an_edit(tmp_path):
    path, culprit = bert_layernorm_epsilon(tmp_path)
    report, theirs = compare_models(load(path), load(shared_model("bert_12layer_narrow") / "model.onnx"),
                                    inputs_of("bert_12layer_narrow"))
    assert report.first_divergence.node.name == culprit
    assert report.worst_own.node.name == culprit
    others = [nd.own_rel for nd in report.nodes if nd.own_rel is not None and nd.node.name != culprit]
    assert others and max(others) == 0.0       # the same executor on the same inputs: bit for bit


def test_a_second_model_that_does_not_run_is_named(tmp_path):
    model = load(shared_model("bert_12layer_narrow") / "model.onnx")
    other = load(shared_model("silero_vad") / "model.onnx")
    with pytest.raises(CompareError, match="the other model does not run|computes no value"):
        compare_models(model, other, inputs_of("bert_12layer_narrow"))


def test_a_golden_value_of_another_shape_is_named_with_both_shapes():
    model = load(shared_model("bert_12layer_narrow") / "model.onnx")
    feeds = inputs_of("bert_12layer_narrow")
    with np.load(shared_model("bert_12layer_narrow") / "expected_outputs.npz") as z:
        golden = {k: z[k] for k in z.files}
    golden["pooler_output"] = golden["pooler_output"][:, :64]
    report = compare_with_golden(model, feeds, golden, own=False)
    d = report.values["pooler_output"]
    assert not d.agrees and d.note == "shape [1, 128] vs [1, 64]"
    assert report.values["last_hidden_state"].agrees
