"""Pooling windows wider than the (padded) input: onnx's inference and
onnxruntime round the output length toward zero, so a 2x2 MaxPool with
stride 2 over a 1x1 input gives 1x1 (the max of what the window holds),
where the spec's floor gave 0x0. A model whose input was set to a small
size (QA: the demo at 1x1) then ran to all-NaN logits through an empty
GlobalAveragePool. Our executor and inference follow onnxruntime; shapes
and float values compared with it (pools hold no integer arithmetic)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec import run
from onnxstudio.core.infer import Inference

ort = pytest.importorskip("onnxruntime")

CASES = [
    (op, size, k, s, pads, ceil, auto)
    for op in ("MaxPool", "AveragePool", "LpPool")
    for size, k, s in [(1, 2, 2), (1, 3, 2), (1, 3, 3), (2, 3, 2), (2, 3, 1), (1, 2, 1), (3, 2, 2)]
    for pads, ceil, auto in [(0, 0, "NOTSET"), (1, 0, "NOTSET"), (0, 1, "NOTSET"), (0, 0, "VALID")]
    if not (op == "LpPool" and ceil)       # LpPool has no ceil_mode
]

def _model(op, k, s, pads, ceil, auto):
    attrs = dict(kernel_shape=[k, k], strides=[s, s])
    if auto != "NOTSET":
        attrs["auto_pad"] = auto
    else:
        attrs["pads"] = [pads] * 4
    if ceil:
        attrs["ceil_mode"] = 1
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "c", "h", "w"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 18)])

@pytest.mark.parametrize("op,size,k,s,pads,ceil,auto", CASES)
def test_small_inputs_pool_as_onnxruntime(op, size, k, s, pads, ceil, auto, tmp_path):
    model = _model(op, k, s, pads, ceil, auto)
    x = (np.arange(2 * size * size, dtype=np.float32).reshape(1, 2, size, size) - 3) / 2
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        want = session.run(None, {"x": x})[0]
    except Exception:  # noqa: BLE001 - onnxruntime refuses this geometry: nothing to follow
        pytest.skip("onnxruntime refuses this window")
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    ours = core.load(path)
    got = run(ours, {"x": x})["y"]
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    fixed = model.graph.input[0].type.tensor_type.shape
    for d, n in zip(fixed.dim, x.shape):
        d.ClearField("dim_param")
        d.dim_value = n
    path.write_bytes(model.SerializeToString())
    inferred = Inference(core.load(path)).run()["y"]
    assert tuple(inferred.shape) == want.shape

def test_the_demo_at_one_pixel_runs_as_onnxruntime(tmp_path):
    """The QA case: the bundled demo set to [batch,3,h,w] and run at 1x1."""
    import onnx
    from onnxstudio.resources import sample_path
    m = onnx.load(sample_path())
    dims = m.graph.input[0].type.tensor_type.shape.dim
    for d, name in zip(dims, ["batch", "c", "h", "w"]):
        if name != "c":
            d.ClearField("dim_value")
            d.dim_param = name
    for vi in m.graph.value_info:
        vi.type.tensor_type.ClearField("shape")
    path = tmp_path / "d.onnx"
    onnx.save(m, path)
    feeds = {i.name: (np.full((1, 3, 1, 1), 0.5, np.float32) if i.name == m.graph.input[0].name
                      else np.array(True)) for i in m.graph.input}
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)
    got = run(core.load(path), feeds)
    for out, w in zip(m.graph.output, want):
        assert np.isfinite(got[out.name]).all()
        np.testing.assert_allclose(got[out.name], w, rtol=1e-4, atol=1e-5)
