"""The shared models are found in one way (tests/shared_models.py) and a
missing folder makes the tests that need it fail with the reason, never skip
or stop the whole run."""
from __future__ import annotations

import pytest
import os
import pathlib
import re
import shutil
import subprocess
import sys
import textwrap

import shared_models

TESTS = pathlib.Path(__file__).resolve().parent


def _finder(env: dict, cwd: pathlib.Path, code: str) -> subprocess.CompletedProcess:
    # A fresh interpreter: the module decides where the models are on import.
    full_env = {k: v for k, v in os.environ.items() if k != shared_models.ENV}
    full_env.update(env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=60)


def test_no_test_module_hard_codes_where_the_shared_models_are():
    pattern = re.compile(r"""["']shared["']\s*/\s*["']models["']|/work/shared|shared/models["']""")
    offenders = []
    for path in TESTS.rglob("*.py"):
        if path.name in ("shared_models.py", "test_shared_models.py"):
            continue
        text = path.read_text(encoding="utf-8")
        if pattern.search(text):
            offenders.append(str(path.relative_to(TESTS)))
    assert not offenders, f"ask tests/shared_models.py instead: {offenders}"


def test_no_test_module_skips_when_the_shared_models_are_missing():
    offenders = [str(p.relative_to(TESTS)) for p in TESTS.rglob("*.py")
                 if p.name not in ("shared_models.py", "test_shared_models.py")
                 and re.search(r"skip.*shared models", p.read_text(encoding="utf-8"))]
    assert not offenders


def test_the_variable_wins_and_a_wrong_setting_fails_with_the_reason(tmp_path):
    (tmp_path / "m1").mkdir()
    (tmp_path / "m1" / "model.onnx").write_bytes(b"")
    r = _finder({shared_models.ENV: str(tmp_path)}, TESTS,
                "import shared_models as s; print(s.shared_model_names())")
    assert r.stdout.strip() == "['m1']", r.stderr
    r = _finder({shared_models.ENV: str(tmp_path / "nope")}, TESTS, """
        import shared_models as s
        print(s.shared_model_names())
        s.shared_model(s.shared_model_names()[0])""")
    assert shared_models.MISSING in r.stdout
    assert r.returncode != 0 and "ONNXSTUDIO_SHARED_MODELS" in r.stderr and str(tmp_path / "nope") in r.stderr


def test_found_beside_a_checkout_anywhere(tmp_path):
    # A fresh clone at <somewhere>/checkout with shared/ beside it, and one
    # a folder deeper (CI builders nest the checkout).
    for checkout in (tmp_path / "a" / "checkout", tmp_path / "b" / "ci" / "checkout"):
        (checkout / "tests").mkdir(parents=True)
        (checkout / "tests" / "shared_models.py").write_text((TESTS / "shared_models.py").read_text())
        models = (checkout.parent / "shared" / "models" if "a" in checkout.parts
                  else tmp_path / "b" / "shared" / "models")
        (models / "tiny").mkdir(parents=True)
        (models / "tiny" / "model.onnx").write_bytes(b"")
        r = _finder({}, checkout / "tests", "import shared_models as s; print(s.shared_models_root())")
        assert r.stdout.strip() == str(models), r.stderr


@pytest.mark.slow
def test_collection_never_stops_for_missing_models(tmp_path):
    # Modules that parametrize over the models at import time still load.
    pytest_exe = shutil.which("pytest", path=str(pathlib.Path(sys.executable).parent)) or "pytest"
    r = subprocess.run([pytest_exe, "-q", "-p", "no:cacheprovider", "--collect-only", "--rootdir", str(TESTS.parent),
                        str(TESTS)], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, shared_models.ENV: str(tmp_path / "nope")})
    assert r.returncode == 0, r.stdout[-3000:]


@pytest.mark.slow
def test_a_missing_folder_fails_the_tests_that_need_it_and_runs_the_rest(tmp_path):
    # The whole suite used to stop at collection; now only the tests that need
    # the models fail, each with the reason.
    # Plain pytest (as CI runs it), from this interpreter's environment.
    pytest_exe = shutil.which("pytest", path=str(pathlib.Path(sys.executable).parent)) or "pytest"
    r = subprocess.run([pytest_exe, "-q", "-p", "no:cacheprovider", "--rootdir", str(TESTS.parent),
                        str(TESTS / "infer" / "test_exec_shapes.py"), str(TESTS / "infer" / "test_incremental.py")],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300,
                       env={**os.environ, shared_models.ENV: str(tmp_path / "nope")})
    assert "passed" in r.stdout and "failed" in r.stdout, r.stdout[-2000:]
    assert "skipped" not in r.stdout
    assert "shared models not found" in r.stdout
