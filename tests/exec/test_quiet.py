"""Kernels are silent about NaN and inf, inside a run (one errstate for the
whole run) and when called on their own (their own errstate)."""
import warnings

import numpy as np
import pytest

from onnxstudio.core.exec.kernels import _math_util
from onnxstudio.core.exec.kernels._math_util import quiet, quiet_numpy
from onnxstudio.core.exec.registry import find_kernel
from one_graph import load_graph, tensor


def _kernel(op):
    return find_kernel("", op, 17).fn


@pytest.mark.parametrize("op,args", [
    ("Log", (np.array([-1.0, 0.0], np.float32),)),
    ("Div", (np.array([0.0, 1.0], np.float32), np.array([0.0, 0.0], np.float32))),
    ("Pow", (np.array([-8.0], np.float32), np.array([0.5], np.float32))),
    ("Softmax", (np.array([[-np.inf, -np.inf]], np.float32),)),
])
def test_a_kernel_called_alone_warns_nothing(op, args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):       # the caller's own setting is not what silences it
            _kernel(op)(*args)


def test_inside_quiet_numpy_a_quiet_function_sets_no_errstate_of_its_own(monkeypatch):
    entered = []
    real = np.errstate

    class Counting(real):
        def __enter__(self):
            entered.append(1)
            return super().__enter__()

    f = quiet(lambda x: np.log(x))
    with quiet_numpy():
        monkeypatch.setattr(np, "errstate", Counting)
        assert np.isnan(f(np.float32(-1)))
        assert entered == []
    assert np.isnan(f(np.float32(-1)))         # outside: it sets its own
    assert entered == [1]


def test_a_failing_run_leaves_numpy_and_the_depth_as_they_were(tmp_path):
    from onnx import helper

    from onnxstudio.core.exec import Session
    from onnxstudio.core.exec.errors import ExecError
    model = load_graph(tmp_path, [helper.make_node("Div", ["x", "y"], ["out"])],
                       [tensor("x", [None]), tensor("y", [None])], [tensor("out", None)])
    before = np.geterr()
    s = Session(model)
    out = s.run({"x": np.array([1, 0], np.float32), "y": np.array([0, 0], np.float32)})
    assert np.isinf(out["out"][0]) and np.isnan(out["out"][1])
    with pytest.raises(ExecError):
        s.run({"x": np.zeros(3, np.float32), "y": np.zeros(2, np.float32)})
    assert np.geterr() == before
    assert _math_util._quiet_depth.depth == 0
