"""Hostile structure (fuzz_hostile.py) through every command and the app's
open: each is refused or handled within the time and memory limits, and
every failure is one clear line. CI builds the Identity chain with 2,000
nodes; `python tests/fuzz/run.py --hostile` runs the 10**6-node one."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from fuzz_hostile import BUILDERS

# Opens each hostile file in a child app process.
pytestmark = pytest.mark.slow

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    files = [build(tmp / name, 2000) if name == "many_identities" else build(tmp / name)
             for name, build in BUILDERS.items()]
    out = tmp / "outcomes.json"
    proc = subprocess.run([sys.executable, str(HERE / "run.py"), "--files", *map(str, files),
                           "--time-limit", "60", "--json", str(out), "-q"],
                          capture_output=True, text=True, timeout=900)
    assert out.exists(), proc.stdout + proc.stderr
    return {pathlib.Path(p).parent.name: per for p, per in json.loads(out.read_text()).items()}


@pytest.mark.parametrize("name", list(BUILDERS))
def test_refused_or_handled_with_one_line(outcomes, name):
    for stage, r in outcomes[name].items():
        assert r["verdict"] in ("ok", "clear"), f"{name} {stage}: {r}"


def _message(outcomes, name, stage):
    return outcomes[name][stage]["message"]


def test_absurd_sizes_are_refused_by_run(outcomes):
    assert "would not fit in this machine's memory" in _message(outcomes, "huge_input", "run")
    assert "raw_data has 4 bytes but 1000000000000 elements" in _message(outcomes, "huge_initializer", "run")
    assert 'ConstantOfShape' in _message(outcomes, "huge_constant_of_shape", "run")
    assert outcomes["huge_initializer"]["check"]["code"] == 1


def test_deep_nesting(outcomes):
    for stage, r in outcomes["deep_if"].items():
        assert "nest too deeply" in r["message"], (stage, r)
    assert all(r["verdict"] == "ok" for r in outcomes["deep_if_25"].values())


def test_cycle_is_reported(outcomes):
    assert outcomes["cycle"]["check"]["code"] == 1
    assert 'node[0] Add "A"' in _message(outcomes, "cycle", "run")


def test_external_data_that_is_not_a_file(outcomes):
    # An absolute location no longer refuses the file: info lists the weight
    # as unreadable; what needs its data (run) refuses, naming why.
    assert outcomes["external_dev_zero"]["info"]["code"] == 0
    assert "absolute path" in _message(outcomes, "external_dev_zero", "run")
    # (its run stops first at the input of 10**12 elements; convert needs the weight's data)
    assert "is a link to /dev/zero" in _message(outcomes, "external_link_to_dev_zero", "convert")
    for name in ("external_fifo", "external_folder"):
        assert "not a regular file" in _message(outcomes, name, "run")


def test_model_file_that_is_a_fifo(tmp_path):
    import os
    from onnxstudio import core
    from onnxstudio.core.errors import LoadError
    fifo = tmp_path / "model.onnx"
    os.mkfifo(fifo)
    with pytest.raises(LoadError, match="not a regular file"):
        core.load(fifo)          # would block forever in open()
