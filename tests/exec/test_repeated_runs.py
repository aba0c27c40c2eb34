"""A session's later runs take other paths than its first: folded constants,
prepared kernels, steps compiled into closures, remembered shape arithmetic.
Every ONNX backend case run a second time on the same session must still
give the expected outputs."""
import pytest
import warnings

import numpy as np
import onnx

import backend_data
from conformance import ATOL, RTOL, compare, is_random_draw

from onnxstudio import core
from onnxstudio.core.exec import Session


def _feeds(case, model, data_inputs):
    if case.kind == "light":
        inits = {t.name for t in model.graph.initializer}
        return {vi.name: backend_data.light_input(vi) for vi in model.graph.input if vi.name not in inits}
    return {vi.name: backend_data.read_pb_value(p, vi) for p, vi in zip(data_inputs, model.graph.input)}


@pytest.mark.slow
def test_second_runs_match_the_backend_data():
    warnings.simplefilter("ignore")
    failures = {}
    runs = 0
    with np.errstate(all="ignore"):
        for case in backend_data.all_cases():
            if is_random_draw(case):
                continue
            model = onnx.load(case.model_path, load_external_data=False)
            try:
                session = Session(core.load(case.model_path))
            except Exception as e:  # noqa: BLE001  (the conformance test reports these)
                failures[case.id] = f"compile: {type(e).__name__}: {e}"
                continue
            for inputs, outputs in case.data_sets():
                feeds = _feeds(case, model, inputs)
                try:
                    session.run(feeds)
                    got = session.run(feeds)
                except Exception as e:  # noqa: BLE001
                    failures[case.id] = f"{type(e).__name__}: {str(e)[:200]}"
                    break
                runs += 1
                for p, vi in zip(outputs, model.graph.output):
                    why = compare(backend_data.read_pb_value(p, vi), got.get(vi.name), max(case.rtol, RTOL), ATOL)
                    if why:
                        failures[case.id] = f"output {vi.name!r}: {why}"
    assert runs > 2000
    assert not failures, "\n".join(f"{k}: {v}" for k, v in failures.items())
