"""`onnxstudio run --keep-body-values / --body-budget`, and what
--compare-onnxruntime says about the values inside bodies (issue 22)."""
import json
import subprocess
import sys

import pytest

from shared_models import SHARED_MODELS

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow

SILERO = SHARED_MODELS / "silero_vad"


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "onnxstudio", "run", *map(str, args)], capture_output=True,
                          text=True, timeout=300)


def test_keep_body_values_says_what_it_kept_and_what_the_budget_left_out():
    r = _cli(SILERO / "model.onnx", "--input", SILERO / "inputs.npz", "--keep-body-values")
    assert r.returncode == 0, r.stderr
    assert "kept " in r.stdout and " values inside " in r.stdout and "not kept" not in r.stdout
    r = _cli(SILERO / "model.onnx", "--input", SILERO / "inputs.npz", "--keep-body-values", "--body-budget", "0",
             "--json")
    assert r.returncode == 0, r.stderr
    kept = json.loads(r.stdout)["body_values"]
    assert kept["budget"] == 0 and kept["kept"] == 0 and kept["not_kept"]
    assert {"graph", "name"} <= set(kept["not_kept"][0])


def test_a_plain_run_says_nothing_of_bodies():
    r = _cli(SILERO / "model.onnx", "--input", SILERO / "inputs.npz", "--json")
    assert r.returncode == 0, r.stderr
    assert "body_values" not in json.loads(r.stdout)


def test_compare_onnxruntime_covers_body_values():
    pytest.importorskip("onnxruntime")
    r = _cli(SILERO / "model.onnx", "--input", SILERO / "inputs.npz", "--compare-onnxruntime")
    assert r.returncode == 0, r.stderr
    assert "inside bodies (each body that ran, run alone by onnxruntime on our values of its inputs): " \
        in r.stdout
    assert "bodies did not run (If branches not taken" in r.stdout     # the branches the inputs did not take
    r = _cli(SILERO / "model.onnx", "--input", SILERO / "inputs.npz", "--compare-onnxruntime", "--json")
    bodies = json.loads(r.stdout)["comparison"]["bodies"]
    assert sum(b["compared"] for b in bodies) > 100 and all(b["agrees"] in (True, None) for b in bodies)
