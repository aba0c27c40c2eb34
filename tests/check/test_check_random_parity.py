"""The app checks the IR it loaded from a file; `onnxstudio check` reads the
file. On random protobuf-level damage (tools/check_differential.py's
mutations of the mutation suite's bases) both must say the same, word for
word, unless the app refuses the file at open (naming the place)."""
from __future__ import annotations

import importlib.util
import pathlib

import pytest

from onnxstudio import core
from onnxstudio.core.check import check
from onnxstudio.core.errors import CoreError

_TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "check_differential.py"


def _tool():
    spec = importlib.util.spec_from_file_location("check_differential", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _verdict(diagnostics) -> list:
    return sorted((d.code, d.path, str(d.severity), d.message) for d in diagnostics)


@pytest.mark.parametrize("seed", [0, 1])
def test_random_damage_gets_the_files_verdict_in_the_app(seed, tmp_path):
    tool = _tool()
    models = tool.bases(0, seed)          # the suite's own bases: no backend sample
    names = sorted(models)
    path = tmp_path / "mutant.onnx"
    compared = refused = 0
    for k in range(seed * 100_000, seed * 100_000 + 1500):
        made = tool.mutate(models[names[k % len(names)]], k)
        if made is None:
            continue
        data, kind, what = made
        path.write_bytes(data)
        want = _verdict(check(path))
        try:
            loaded = core.load(path)
            loaded.graph                      # built on first use, as the app's open does
        except CoreError:
            refused += 1
            continue
        assert _verdict(check(loaded, use_inference=False)) == want, f"{kind}: {what} (seed {k})"
        compared += 1
    assert compared > 1000 and refused < 50
