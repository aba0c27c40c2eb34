"""benchmarks/infer.py keeps working (a tiny run; the real figures come from
running the script by hand)."""
from __future__ import annotations

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "infer.py"


def test_benchmark_script_runs_and_prints_ratios():
    r = subprocess.run([sys.executable, str(SCRIPT), "--nodes", "300", "--runs", "1"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "synthetic-300" in r.stdout and "worst ratio" in r.stdout
