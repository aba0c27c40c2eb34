"""Grouped and depthwise convolutions (conv.py's _grouped_shift for stride 1,
the window view otherwise) against onnxruntime and against each other."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.exec import Session
from onnxstudio.core.exec.kernels import conv as conv_module

ort = pytest.importorskip("onnxruntime")

_CASES = [   # x shape, w shape, attributes
    ((1, 192, 20, 20), (192, 1, 5, 5), dict(group=192, pads=[2, 2, 2, 2])),            # depthwise 5x5
    ((2, 16, 40, 33), (16, 1, 3, 3), dict(group=16, pads=[1, 1, 1, 1])),                # batch 2, odd width
    ((1, 24, 30, 30), (48, 2, 3, 3), dict(group=12, pads=[1, 0, 2, 1])),               # 2 in, 4 out a group
    ((1, 8, 32, 32), (8, 1, 3, 3), dict(group=8, dilations=[2, 2], pads=[2, 2, 2, 2])),  # dilated
    ((1, 8, 31, 29), (8, 1, 3, 3), dict(group=8)),                                      # unpadded
    ((1, 12, 300), (12, 1, 7), dict(group=12, pads=[3, 3])),                            # 1-D
    ((1, 4, 9, 10, 11), (4, 1, 3, 3, 3), dict(group=4, pads=[1] * 6)),                  # 3-D
    ((1, 384, 10, 10), (384, 1, 5, 5), dict(group=384, pads=[2, 2, 2, 2])),            # small map, many channels
    ((1, 32, 40, 40), (32, 1, 3, 3), dict(group=32, pads=[1, 1, 1, 1], strides=[2, 2])),  # stride 2: windows
    ((1, 8, 6, 6), (8, 1, 3, 3), dict(group=8, pads=[1, 1, 1, 1])),                     # small: windows
]


def _model(xs, ws, attrs, w, b):
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(xs))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("xs,ws,attrs", _CASES)
def test_grouped_conv_agrees_with_onnxruntime(xs, ws, attrs):
    rng = np.random.default_rng(sum(xs))
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    b = rng.standard_normal(ws[0]).astype(np.float32)
    model = _model(xs, ws, attrs, w, b)
    want = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    s = Session(core.load_bytes(model.SerializeToString()))
    for _ in range(3):      # first run, prepared run, merged run
        got = s.run({"x": x})["y"]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("xs,ws,attrs", _CASES[:8])
def test_long_run_columns_equal_the_window_view(xs, ws, attrs, monkeypatch):
    """The stride-1 form and the window form give the same products."""
    from onnxstudio.core.exec.kernels._nn_util import spatial_pads
    rng = np.random.default_rng(7)
    x = rng.standard_normal(xs).astype(np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    begin, end, out, strides, dilations = spatial_pads(xs[2:], list(ws[2:]), attrs.get("strides"),
                                                       attrs.get("dilations"), attrs.get("pads"), "NOTSET")
    calls = []
    shift = conv_module._grouped_shift
    monkeypatch.setattr(conv_module, "_grouped_shift", lambda *a: calls.append(1) or shift(*a))
    got = conv_module.conv_core(x, w, attrs["group"], strides, dilations, begin, end, out)
    assert calls                                     # the long-run form was taken
    monkeypatch.setattr(conv_module, "_SHIFT_COLS_MIN", 1 << 60)
    want = conv_module.conv_core(x, w, attrs["group"], strides, dilations, begin, end, out)
    assert len(calls) == 1
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
