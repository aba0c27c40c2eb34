"""`run`'s comparison options of issue 23 (own errors in the JSON, a memory
budget, a golden .npz, a second model) and `reduce`, in process."""
from __future__ import annotations

import json

import numpy as np
import pytest

from onnxstudio import cli
from onnxstudio.core import load
from onnxstudio.core.exec.compare import run_onnxruntime_model
from onnxstudio.core.exec.session import run

from edited_models import bert_layernorm_epsilon
from shared_models import shared_model


def _bert():
    """The shared bert_12layer_narrow folder (asked at run time: collection never needs the models)."""
    return shared_model("bert_12layer_narrow")


def _main(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_run_json_names_first_divergence_and_worst_own_and_a_budget_finds_the_same(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    path, culprit = bert_layernorm_epsilon(tmp_path)
    common = (path, "--load-inputs", _bert() / "inputs.npz", "--compare-onnxruntime", "--reference-model",
              _bert() / "model.onnx", "--json")
    code, out, err = _main(capsys, "run", *common)
    assert code == 1, err
    whole = json.loads(out)["comparison"]
    assert whole["first_divergence"]["name"] == culprit and whole["first_divergence"]["op_type"] == "LayerNormalization"
    assert whole["worst_own"]["name"] == culprit and whole["worst_own"]["own_max_rel"] > 0.1
    row = next(n for n in whole["nodes"] if n["name"] == culprit)
    assert {"max_abs", "max_rel", "own_max_abs", "own_max_rel"} <= set(row)
    code, out, err = _main(capsys, "run", *common, "--memory-budget", "2MiB")
    assert code == 1, err
    bounded = json.loads(out)["comparison"]
    assert bounded["peak_memory"] <= bounded["memory_budget"] == 2 << 20
    assert bounded["first_divergence"]["name"] == bounded["worst_own"]["name"] == culprit
    code, out, err = _main(capsys, "run", path, "--load-inputs", _bert() / "inputs.npz", "--compare-onnxruntime",
                           "--reference-model", _bert() / "model.onnx")
    assert "largest own error (the node run alone on onnxruntime's values of its inputs): " in out
    assert "own rel" in out


@pytest.mark.slow
def test_reduce_writes_a_small_failing_model_with_its_inputs(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    path, culprit = bert_layernorm_epsilon(tmp_path)
    small = tmp_path / "small.onnx"
    code, out, err = _main(capsys, "reduce", path, "--load-inputs", _bert() / "inputs.npz", "--compare-onnxruntime",
                           "--reference-model", _bert() / "model.onnx", "-o", small)
    assert code == 0, err
    assert f"1 node from {culprit}" in out
    model = load(small)
    assert len(model.graph.nodes) <= 4
    with np.load(tmp_path / "small.inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    names = [v.name for v in model.graph.outputs]
    ours = run(model, feeds)
    theirs = run_onnxruntime_model(load(tmp_path / "small.reference.onnx"), feeds, names)
    assert not np.allclose(ours[names[0]], theirs[names[0]], rtol=1e-3, atol=1e-4)
    with np.load(tmp_path / "small.expected.npz") as z:
        np.testing.assert_array_equal(z[names[0]], theirs[names[0]])


@pytest.mark.slow
def test_reduce_with_a_second_model_as_reference(tmp_path, capsys):
    path, culprit = bert_layernorm_epsilon(tmp_path)
    code, out, err = _main(capsys, "reduce", path, "--load-inputs", _bert() / "inputs.npz", "--compare-model",
                           _bert() / "model.onnx", "-o", tmp_path / "small.onnx", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["nodes"] == [culprit] and len(data["written"]) == 4


@pytest.mark.slow
def test_golden_and_second_model_from_the_command_line(tmp_path, capsys):
    code, out, err = _main(capsys, "run", _bert() / "model.onnx", "--load-inputs", _bert() / "inputs.npz",
                           "--golden", _bert() / "expected_outputs.npz")
    assert code == 0, err
    assert "compared with golden" in out and "first divergent node: none" in out
    np.savez(tmp_path / "wrong.npz", logits=np.zeros(3))
    code, out, err = _main(capsys, "run", _bert() / "model.onnx", "--load-inputs", _bert() / "inputs.npz",
                           "--golden", tmp_path / "wrong.npz")
    assert code == 2 and "names no value of the model: it holds logits" in err and err.count("\n") == 1
    path, culprit = bert_layernorm_epsilon(tmp_path)
    code, out, err = _main(capsys, "run", path, "--load-inputs", _bert() / "inputs.npz", "--compare-model",
                           _bert() / "model.onnx", "--json")
    assert code == 1, err
    assert json.loads(out)["comparison"]["worst_own"]["name"] == culprit


@pytest.mark.parametrize("extra, message", [
    (["--compare-onnxruntime", "--memory-budget", "lots"], "--memory-budget: 'lots' is not a memory size"),
    (["--memory-budget", "1GiB"], "--memory-budget sets the onnxruntime comparison: add --compare-onnxruntime"),
    (["--golden", "x.npz", "--memory-budget", "1GiB"], "--memory-budget sets the onnxruntime comparison; it does "
                                                        "not apply to --golden"),
    (["--compare-onnxruntime", "--golden", "x.npz"], "compare with one reference at a time"),
    (["--compare-model", "/nonexistent/other.onnx"], "--compare-model /nonexistent/other.onnx: no such file"),
    (["--golden", "/nonexistent/g.npz"], "--golden /nonexistent/g.npz"),
])
def test_bad_comparison_options_are_refused_before_the_run(extra, message, capsys):
    code, out, err = _main(capsys, "run", _bert() / "model.onnx", "--load-inputs", _bert() / "inputs.npz", *extra)
    assert code == 2 and message in err and err.count("\n") == 1, err


def test_reduce_refuses_bad_input_and_writes_nothing(tmp_path, capsys):
    args = (_bert() / "model.onnx", "--load-inputs", _bert() / "inputs.npz")
    code, _, err = _main(capsys, "reduce", *args, "-o", tmp_path / "small.onnx")
    assert code == 2 and "reduce needs a reference" in err
    code, _, err = _main(capsys, "reduce", *args, "--compare-model", _bert() / "model.onnx", "-o", tmp_path / "s.onnx")
    assert code == 1 and "the runs agree: there is no failing subgraph" in err
    code, _, err = _main(capsys, "reduce", *args, "--compare-model", _bert() / "model.onnx", "-o",
                         tmp_path / "no" / "s.onnx")
    assert code == 2 and "does not exist" in err
    code, _, err = _main(capsys, "reduce", *args, "--compare-model", _bert() / "model.onnx", "--node", "nope",
                         "-o", tmp_path / "s.onnx")
    assert code == 2 and "--node" in err
    assert list(tmp_path.iterdir()) == []


def test_without_a_budget_a_comparison_too_large_for_the_machine_is_bounded(tmp_path, capsys, monkeypatch):
    pytest.importorskip("onnxruntime")
    from onnxstudio.core.exec import budget_compare
    common = ("run", _bert() / "model.onnx", "--load-inputs", _bert() / "inputs.npz", "--compare-onnxruntime")
    code, out, err = _main(capsys, *common, "--json")
    assert code == 0, err
    whole = json.loads(out)["comparison"]
    assert "memory_budget" not in whole and "bounded_by_default" not in whole      # fits: the whole comparison
    # A machine whose quarter is 4 MiB: bert_12layer_narrow's intermediates (~30 MiB a side) pass it.
    monkeypatch.setattr(budget_compare, "default_budget", lambda: 4 << 20)
    code, out, err = _main(capsys, *common, "--json")
    assert code == 0, err
    bounded = json.loads(out)["comparison"]
    assert bounded["bounded_by_default"] is True and bounded["memory_budget"] == 4 << 20
    assert bounded["peak_memory"] <= 4 << 20 and bounded["chunks"] > 1
    assert len(bounded["nodes"]) == len(whole["nodes"]) and bounded["first_divergence"] is None
    code, out, err = _main(capsys, *common)
    assert "would pass a quarter of this machine's memory (4.0 MiB): compared in chunks" in out
    assert "within a budget of 4.0 MiB" in out


def test_within_a_budget_the_cli_compares_body_values_and_names_those_not_kept(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    from test_body_values import LOOP_FEEDS, loop_model
    path = tmp_path / "loop.onnx"
    loop_model(path)
    np.savez(tmp_path / "feeds.npz", **LOOP_FEEDS)
    common = ("run", path, "--load-inputs", tmp_path / "feeds.npz", "--compare-onnxruntime")
    code, out, err = _main(capsys, *common, "--memory-budget", "1MiB")
    assert code == 0, err
    assert "values inside If/Loop/Scan bodies are compared when they fit an eighth of the budget (0.1 MiB)" in out
    assert "inside bodies (each body that ran, run alone by onnxruntime on our values of its inputs): 4 of 4 " \
           "values agree" in out and "not compared" not in out
    code, out, err = _main(capsys, *common, "--memory-budget", "160", "--json")
    body = json.loads(out)["comparison"]["bodies"][0]
    why = {e["name"]: e["why"] for e in body["not_compared"]}
    assert "not kept" in why["acc_sum"]             # acc_sum itself, or the body's inputs, over 20 bytes
