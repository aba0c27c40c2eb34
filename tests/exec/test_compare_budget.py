"""The onnxruntime comparison within a memory budget (budget_compare.py):
it holds no more than the budget (its own account of live arrays) and finds
what the whole comparison finds."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core import load
from onnxstudio.core.exec.budget_compare import compare_bounded, nbytes, parse_size
from onnxstudio.core.exec.compare import CompareError, compare_with_onnxruntime
from onnxstudio.core.exec.session import Session

from edited_models import bert_layernorm_epsilon
from shared_models import shared_model

pytest.importorskip("onnxruntime")


def _bert_feeds(batch: int, seq: int) -> dict:
    rng = np.random.default_rng(0)
    return {"input_ids": rng.integers(0, 30000, (batch, seq)).astype(np.int64),
            "attention_mask": np.ones((batch, seq), np.int64), "token_type_ids": np.zeros((batch, seq), np.int64)}


@pytest.mark.slow
def test_bounded_comparison_stays_within_budget_and_finds_the_same_divergence(tmp_path):
    path, culprit = bert_layernorm_epsilon(tmp_path)
    model, reference = load(path), load(shared_model("bert_12layer_narrow") / "model.onnx")
    feeds = _bert_feeds(2, 48)
    s = Session(model, keep=True)
    s.run(feeds)
    intermediates = sum(nbytes(v) for k, v in s.values.items() if k not in model.graph.initializers)
    budget = intermediates // 5          # one side's intermediates alone need 5x the budget
    del s
    bounded = compare_bounded(model, feeds, budget=budget, reference_model=reference)
    assert bounded.peak <= budget
    assert bounded.chunks > 4
    whole = compare_with_onnxruntime(model, feeds, reference_model=reference, bodies=False)
    assert whole.first_divergence.node.name == bounded.report.first_divergence.node.name == culprit
    assert bounded.report.worst_own.node.name == culprit
    assert set(bounded.report.values) == set(whole.values)
    assert [n for n, d in whole.values.items() if d.agrees != bounded.report.values[n].agrees] == []
    for nd, other in zip(whole.nodes, bounded.report.nodes):
        assert nd.node is other.node
        assert (nd.own_rel is None) == (other.own_rel is None)


def test_a_budget_too_small_for_one_node_names_it():
    model = load(shared_model("bert_12layer_narrow") / "model.onnx")
    with pytest.raises(CompareError, match=r"too small for node .*\(.*\).*--memory-budget"):
        compare_bounded(model, _bert_feeds(1, 16), budget=1000)


def test_memory_sizes():
    assert parse_size("512MiB") == 512 << 20
    assert parse_size("2 GiB") == 2 << 30
    assert parse_size("1.5k") == 1536
    assert parse_size("300MB") == 300_000_000
    assert parse_size("4096") == 4096
    for bad in ("lots", "-5MiB", "12 parsecs", "0"):
        with pytest.raises(ValueError, match="not a memory size"):
            parse_size(bad)
