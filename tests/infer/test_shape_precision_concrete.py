"""tools/shape_precision.py --concrete: with the sample's input shapes set,
every value of ppocr_v4_det (a conv net without data-dependent sizes) has
every dim a number."""
from __future__ import annotations

import pathlib
import subprocess
import sys

from shared_models import shared_model

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "tools" / "shape_precision.py"


def test_concrete_counts_dims_that_are_not_numbers():
    model = shared_model("ppocr_v4_det") / "model.onnx"
    r = subprocess.run([sys.executable, str(SCRIPT), "--concrete", str(model)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "every dim a number   672 (100.0%), not 0" in r.stdout
