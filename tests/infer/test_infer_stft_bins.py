"""STFT's onesided output holds floor(frame_length/2)+1 frequency bins. With
a window of symbolic length `w` we said w bins, a dim that no run has (w=16
gives 9), and left the frame count unknown; both are now expressions in w
that equal onnxruntime's float run at every window length tried."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.infer import infer
from onnxstudio.core.infer.dims import dim_add, dim_floordiv, dim_sub

F = TensorProto.FLOAT


def _stft(onesided: int):
    g = helper.make_graph([helper.make_node("STFT", ["signal", "step", "window"], ["y"], onesided=onesided)], "g",
                          [helper.make_tensor_value_info("signal", F, [1, 128, 1]),
                           helper.make_tensor_value_info("window", F, ["w"])],
                          [helper.make_tensor_value_info("y", F, None)],
                          [numpy_helper.from_array(np.array(8, np.int64), "step")])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("onesided", [1, 0])
def test_stft_bins_and_frames_with_a_symbolic_window(onesided):
    m = _stft(onesided)
    shape = infer(core.load_bytes(m.SerializeToString()))["y"].shape
    frames = dim_add(dim_floordiv(dim_sub(128, "w"), 8), 1)
    bins = dim_add(dim_floordiv("w", 2), 1) if onesided else "w"
    assert shape == (1, frames, bins, 2)
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    for w in (16, 17, 30):
        (real,) = sess.run(None, {"signal": np.zeros((1, 128, 1), np.float32), "window": np.ones(w, np.float32)})
        assert real.shape == (1, (128 - w) // 8 + 1, w // 2 + 1 if onesided else w, 2)
