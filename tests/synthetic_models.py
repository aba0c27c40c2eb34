"""The synthetic transformer-like model the benchmarks use
(`benchmarks/synthetic_model.py`), written for a test: one place, so the
tests that need a big graph build the same one."""
from __future__ import annotations

import pathlib
import sys

_BENCHMARKS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"


def synthetic_model_file(tmp_path, nodes: int) -> pathlib.Path:
    """A model of about `nodes` nodes, saved as tmp_path/big.onnx."""
    if str(_BENCHMARKS) not in sys.path:
        sys.path.insert(0, str(_BENCHMARKS))
    import onnx
    from synthetic_model import build
    path = tmp_path / "big.onnx"
    onnx.save(build(nodes), str(path))
    return path
