"""The README's list of mutation kinds onnx.checker accepts stays true: for
each listed kind onnx accepts at least one mutant (full_check=False), while
the mutation suite proves we report it."""
from __future__ import annotations

import pathlib
import re

import onnx
import pytest

from check_bases import base_names, load_base
from check_mutations import MUTATIONS

README = pathlib.Path(__file__).resolve().parents[2] / "core" / "check" / "README.md"
BY_NAME = {m.__name__: m for m in MUTATIONS}


def _listed() -> list:
    text = README.read_text()
    section = text.split("<!-- onnx-gaps-begin -->")[1].split("<!-- onnx-gaps-end -->")[0]
    return re.findall(r"^- `(\w+)`", section, flags=re.M)


def test_list_names_real_mutations():
    listed = _listed()
    assert len(listed) >= 8
    assert set(listed) <= set(BY_NAME)


@pytest.mark.parametrize("kind", _listed())
def test_onnx_accepts_some_mutant_of_kind(kind, tmp_path):
    path = tmp_path / "m.onnx"
    for base in base_names():
        m = load_base(base)
        if BY_NAME[kind](m) is None:
            continue
        path.write_bytes(m.SerializeToString())
        try:
            onnx.checker.check_model(str(path), full_check=False)
        except Exception:  # noqa: BLE001 - rejected: try the next base
            continue
        return
    pytest.fail(f"onnx.checker rejects every {kind} mutant; remove it from the README list")
