"""The oracles' verdicts on a model built in a test, and ours: the one place
the gap tests (tests/check/test_check_gaps_seed4.py, tests/infer/
test_infer_gaps_seed4.py, test_infer_operand_counts.py) ask them.
onnxruntime's load runs onnx's inference and its graph checks, never a
kernel, so its verdict is the same on every machine."""
from __future__ import annotations

import warnings

from onnxstudio import core
from onnxstudio.core.check import ERROR, check


def onnxruntime_loads(model) -> bool:
    """Whether onnxruntime (CPU) builds a session for `model` (an onnx ModelProto)."""
    import onnxruntime as ort
    try:
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return False
    return True


def onnx_accepts(model) -> bool:
    """Whether onnx.checker with full_check accepts `model`."""
    import onnx
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            onnx.checker.check_model(model, full_check=True)
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return False
    return True


def our_errors(model, tmp_path) -> list:
    """The errors of our check of `model` as the app opens it (written to
    tmp_path/m.onnx, loaded, checked with inference)."""
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return [d for d in check(core.load(path)) if d.severity == ERROR]
