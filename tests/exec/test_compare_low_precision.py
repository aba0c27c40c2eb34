"""Values of 16-bit floats are compared with tolerances of at least a few of
their type's epsilons (core.exec.compare.LOW_PRECISION_FLOOR): torch's float16
exports of mobilenet_v3_small and resnet18 differed from onnxruntime by one or
two epsilons per node, and with float32's tolerances every node after the
first Conv was called divergent and `run --compare-onnxruntime` exited 1."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from onnxstudio import cli
from onnxstudio.core import load
from onnxstudio.core.exec.compare import ATOL, LOW_PRECISION_FLOOR, RTOL, compare_value, compare_with_onnxruntime

EPS16 = float(np.finfo(np.float16).eps)


def _float16_pair():
    """A reference in float16 and the same values two epsilons off (relative),
    as a run rounding at each step of a formula gives them."""
    ref = np.linspace(-4, 4, 101, dtype=np.float16)
    return (ref.astype(np.float64) * (1 + 2 * EPS16)).astype(np.float16), ref


def test_float16_values_an_epsilon_or_two_apart_agree_and_say_with_what():
    ours, ref = _float16_pair()
    assert not np.array_equal(ours, ref)
    diff = compare_value("y", ours, ref)
    assert diff.agrees
    assert diff.rtol == diff.atol == LOW_PRECISION_FLOOR[np.dtype(np.float16)] == 8 * EPS16


def test_the_same_error_in_float32_still_disagrees():
    ours, ref = _float16_pair()
    diff = compare_value("y", ours.astype(np.float32), ref.astype(np.float32))
    assert not diff.agrees
    assert (diff.rtol, diff.atol) == (RTOL, ATOL)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_a_real_divergence_in_16_bit_floats_is_still_found(dtype):
    ref = np.linspace(1, 4, 50).astype(dtype)
    ours = (ref.astype(np.float32) * 1.1).astype(dtype)           # a wrong epsilon or scale: 10%
    diff = compare_value("y", ours, ref)
    assert not diff.agrees and diff.rel > 0.05


def test_tolerances_asked_above_the_floor_are_kept():
    ours, ref = _float16_pair()
    diff = compare_value("y", ours, ref, rtol=0.05, atol=0.01)
    assert diff.agrees and (diff.rtol, diff.atol) == (0.05, 0.01)


def _float16_conv_hardswish(path):
    """Conv then HardSwish in float16, as in torch's float16 mobilenet_v3: their
    kernels round differently in onnxruntime and here (by an epsilon or two)."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(3)
    weight = (rng.standard_normal((16, 8, 3, 3)) * 0.3).astype(np.float16)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
         helper.make_node("HardSwish", ["c"], ["h"], name="hardswish"),
         helper.make_node("Conv", ["h", "w2"], ["y"], name="conv2")],
        "fp16", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 8, 24, 24])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)],
        [numpy_helper.from_array(weight, "w"),
         numpy_helper.from_array((rng.standard_normal((8, 16, 1, 1)) * 0.3).astype(np.float16), "w2")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    return {"x": (rng.standard_normal((1, 8, 24, 24)) * 2).astype(np.float16)}


def test_a_float16_model_agrees_with_onnxruntime_node_by_node(tmp_path):
    pytest.importorskip("onnxruntime")
    feeds = _float16_conv_hardswish(tmp_path / "m.onnx")
    report = compare_with_onnxruntime(load(tmp_path / "m.onnx"), feeds)
    assert report.agrees and report.first_divergence is None
    assert all(n.agrees for n in report.nodes)
    assert report.values["y"].rtol == LOW_PRECISION_FLOOR[np.dtype(np.float16)]


def test_the_command_line_says_which_values_were_judged_with_more(tmp_path, capsys):
    pytest.importorskip("onnxruntime")
    feeds = _float16_conv_hardswish(tmp_path / "m.onnx")
    np.savez(tmp_path / "inputs.npz", **feeds)
    code = cli.main(["run", str(tmp_path / "m.onnx"), "--load-inputs", str(tmp_path / "inputs.npz"),
                     "--compare-onnxruntime"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "3 values of 16-bit floats with atol and rtol at least float16 0.0078125, bfloat16 0.03125" in out
    assert "first divergent node: none" in out
