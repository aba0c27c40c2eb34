"""Every intermediate value our executor computes on the backend node cases
has the inferred shape wherever we inferred a number: this checks the values
where we claim more than onnx (folded shape arithmetic, symbolic values)."""
from __future__ import annotations

import numpy as np
import onnx
import pytest

from backend_data import all_cases, read_pb_value
from onnxstudio import core
from onnxstudio.core.exec.session import run
from onnxstudio.core.infer import Inference
from onnxstudio.core.ir.types import TensorType


@pytest.mark.slow
def test_executor_intermediates_have_inferred_shapes():
    checked = cases_run = 0
    problems = []
    for case in all_cases(("node",)):
        proto = onnx.load(str(case.model_path))
        model = core.load_bytes(proto.SerializeToString())
        inf = Inference(model)
        types = inf.run()
        inputs, _ = case.data_sets()[0]
        feeds = {vi.name: read_pb_value(p, vi) for vi, p in zip(proto.graph.input, inputs)}
        try:
            values = run(model, feeds, keep=True)
        except Exception:  # noqa: BLE001 - an executor gap is not an inference problem
            continue
        cases_run += 1
        for name, arr in values.items():
            t = types.get(name)
            if not isinstance(t, TensorType) or t.shape is None or not isinstance(arr, np.ndarray):
                continue
            if len(t.shape) != arr.ndim:
                problems.append(f"{case.id}: {name}: inferred {t}, ran {arr.shape}")
                continue
            for d, n in zip(t.shape, arr.shape):
                if isinstance(d, int):
                    checked += 1
                    if d != n:
                        problems.append(f"{case.id}: {name}: inferred {t}, ran {arr.shape}")
                        break
    print(f"\n{cases_run} node cases run, {checked} inferred dims checked against the executor")
    assert cases_run > 1000 and checked > 1000
    assert not problems, "\n".join(problems[:40])
