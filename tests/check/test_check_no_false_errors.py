"""No error-level diagnostic on models onnx.checker (full_check=True) accepts:
the ONNX backend test data and the shared real models; and no warnings on
the backend data either (warnings on real models must be justified)."""
from __future__ import annotations


import onnx
import pytest

from backend_data import all_cases
from onnxstudio import core
from onnxstudio.core.check import ERROR, WARNING, check, check_file

from shared_models import shared_model, shared_model_names
# Warnings we expect on the shared models, each for a reason a user should see.
EXPECTED_WARNINGS = {
    # skl2onnx writes the ai.onnx import twice with the same version.
    ("skl_gbr", "model.opset-repeated"),
}


def _accepted_by_onnx(path) -> bool:
    try:
        onnx.checker.check_model(onnx.load(str(path), load_external_data=False), full_check=True)
    except Exception:  # noqa: BLE001 - any rejection means the case is not a reference
        return False
    return True


@pytest.mark.slow
def test_backend_data_has_no_errors_or_warnings():
    cases = all_cases()
    assert len(cases) > 1900
    accepted = problems = 0
    report = []
    for case in cases:
        if not _accepted_by_onnx(case.model_path):
            continue
        accepted += 1
        found = [d for d in check(case.model_path) if d.severity >= WARNING]
        if found:
            problems += 1
            report.append(f"{case.id}: " + "; ".join(map(str, found[:3])))
    assert accepted > 1900
    assert not report, f"{problems} cases:\n" + "\n".join(report[:20])


@pytest.mark.parametrize("case_kind", ["node", "pytorch-converted"])
def test_backend_data_with_inference_has_no_errors(case_kind):
    cases = [c for c in all_cases((case_kind,))]
    report = []
    for case in cases[::3]:      # a third of them: inference is the slower part
        if not _accepted_by_onnx(case.model_path):
            continue
        errors = [d for d in check_file(case.model_path, ir_model=core.load(case.model_path))
                  if d.severity == ERROR]
        if errors:
            report.append(f"{case.id}: " + "; ".join(map(str, errors[:3])))
    assert not report, "\n".join(report[:20])


@pytest.mark.parametrize("name", shared_model_names())
def test_shared_models_are_clean(name):
    path = shared_model(name) / "model.onnx"
    diags = check_file(path, ir_model=core.load(path))
    errors = [d for d in diags if d.severity == ERROR]
    assert not errors, "\n".join(map(str, errors))
    warnings = {(name, d.code) for d in diags if d.severity == WARNING}
    assert warnings <= EXPECTED_WARNINGS, warnings - EXPECTED_WARNINGS
