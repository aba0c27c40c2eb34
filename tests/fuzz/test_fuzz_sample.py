"""The fuzz suite in CI: a small fixed-seed sample of mutants and the
committed regression cases, each through every command and the app's open.
Long runs: see README.md here."""
from __future__ import annotations

import json
import pathlib
import random
import subprocess
import sys

import pytest

from fuzz_mutate import Mutator, encode_varint, walk
from onnxstudio.core.proto import onnx_pb2 as pb
from shared_models import shared_model_dirs

HERE = pathlib.Path(__file__).resolve().parent
CASES = sorted((HERE / "cases").glob("*.onnx"))
SEED = 20261124


def _run(args, tmp_path) -> dict:
    out = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, str(HERE / "run.py"), *args, "--json", str(out), "-q"],
                          capture_output=True, text=True, timeout=600)
    assert out.exists(), proc.stdout + proc.stderr
    return json.loads(out.read_text()), proc


def _findings_text(findings) -> str:
    return "\n".join(f"mutant {f['index']} of {f['model']} ({' '.join(f['ops'])}): {f['stage']} "
                     f"{f['verdict']}: {f['message']}" for f in findings)


@pytest.mark.slow
def test_fixed_seed_sample_finds_nothing(tmp_path):
    # Each of the 6 shared models and 12 sampled backend models is mutated
    # twice; replay one with `run.py --seed 20261124 --backend-sample 12 --only I`.
    summary, proc = _run(["--count", "36", "--seed", str(SEED), "--backend-sample", "12",
                          "--time-limit", "60"], tmp_path)
    assert not summary["findings"], _findings_text(summary["findings"])
    assert proc.returncode == 0, proc.stderr
    verdicts = summary["verdicts"]
    # The sample must reach past the parser: some mutants load and run.
    assert verdicts["info"].get("ok", 0) >= 5, verdicts
    assert verdicts["run"].get("ok", 0) >= 3, verdicts
    assert verdicts["open"].get("ok", 0) >= 5, verdicts
    assert verdicts["info"].get("clear", 0) >= 5, verdicts


@pytest.mark.slow
def test_regression_cases(tmp_path):
    """Every mutant a fuzz run found a bug with stays fixed."""
    assert CASES, "tests/fuzz/cases holds the regression mutants"
    results, proc = _run(["--files", *map(str, CASES)], tmp_path)
    bad = {f"{pathlib.Path(p).name} {stage}": r for p, per in results.items() for stage, r in per.items()
           if r["verdict"] not in ("ok", "clear")}
    assert not bad, bad


def test_regression_messages(tmp_path):
    results, _ = _run(["--files", *map(str, CASES), "--stages", "run", "--no-app"], tmp_path)
    by_name = {pathlib.Path(p).stem: per["run"] for p, per in results.items()}
    assert "would not fit in this machine's memory" in by_name["input_of_1e12_rows"]["message"]
    assert by_name["input_name_with_line_breaks"]["message"].startswith('onnxstudio run: input "\\x08')
    assert by_name["node_without_outputs"]["code"] == 1


@pytest.mark.parametrize("model_dir", shared_model_dirs(), ids=lambda d: d.name)
def test_framing_keeping_mutations_still_parse(model_dir):
    """A single framing-keeping mutation re-encodes every enclosing length,
    so the mutant is still protobuf (what lets mutants reach check and run)."""
    data = (model_dir / "model.onnx").read_bytes()
    mutator = Mutator(data)
    assert len(mutator.fields) > 50, "the walker must see the model's structure"
    rng = random.Random(SEED)
    parsed = 0
    for _ in range(20):
        mutant, _ = mutator._keeping(rng)
        try:
            pb.ModelProto().ParseFromString(mutant)
            parsed += 1
        except Exception:  # noqa: BLE001 - e.g. a deleted or changed field of the wrong type
            pass
    assert parsed >= 15


def test_varint_edit_fixes_enclosing_lengths():
    m = pb.ModelProto(ir_version=8)
    m.graph.name = "g"
    m.graph.node.add(op_type="Relu", input=["x"], output=["y"])
    t = m.graph.initializer.add(name="w", dims=[3], data_type=1)
    t.float_data.extend([1, 2, 3])
    data = m.SerializeToString()
    dims = next(f for f in walk(data) if f.wire == 0 and f.number == 1 and f.parent and f.parent.number == 5)
    from fuzz_mutate import _replace
    mutant = _replace(data, dims, dims.value_start, dims.end, encode_varint(10**12), True)
    parsed = pb.ModelProto.FromString(mutant)
    assert list(parsed.graph.initializer[0].dims) == [10**12]
    assert parsed.graph.node[0].op_type == "Relu"


@pytest.mark.parametrize("data_type", [0, 191])
def test_tensor_of_undefined_or_unknown_type(tmp_path, data_type):
    """Found by mutating ppocr_v4_det (a data_type varint set to -2**63): the
    weight summary asked numpy for the item size of an undefined type."""
    from fuzz_hostile import _model, _node, _value, _write
    t = pb.TensorProto(name="w", dims=[1], data_type=data_type, raw_data=b"\0\0\0\0")
    g = pb.GraphProto(name="g", node=[_node("Add", ["x", "w"], ["y"])], input=[_value("x", [1])],
                      output=[_value("y", [1])], initializer=[t])
    path = _write(tmp_path / "m", _model(g))
    results, _ = _run(["--files", str(path), "--stages", "info,infer,convert", "--no-app"], tmp_path)
    for stage, r in results[str(path)].items():
        assert r["verdict"] == "ok", (stage, r)
