"""Resize with both a scales and a sizes input: torchvision's detection and
segmentation models (legacy exporter, opsets 11-12) give every Resize an
empty scales tensor beside its sizes, as Resize-11 requires (scales is not
optional there), and the checker called each one an error ("takes either
scales or sizes; the node gives scales and sizes"), on models onnx and
onnxruntime accept and run. An empty tensor stands for "not given"; only two
lists that both hold entries are refused. Measured on both oracles for each
form below, at opsets 11, 12, 13, 18 and 19."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracle_verdicts import onnx_accepts, our_errors
from onnxstudio import core
from onnxstudio.core.check import ERROR, check

FORMS = ("empty Constant", "empty initializer", "scales with entries", "no scales")


def _model(opset: int, form: str):
    nodes = []
    inits = [numpy_helper.from_array(np.array([1, 1, 8, 8], np.int64), "sizes"),
             numpy_helper.from_array(np.zeros(0, np.float32), "roi")]
    if form == "empty Constant":
        empty = numpy_helper.from_array(np.zeros(0, np.float32))
        nodes.append(helper.make_node("Constant", [], ["scales"], value=empty))
    elif form == "empty initializer":
        inits.append(numpy_helper.from_array(np.zeros(0, np.float32), "scales"))
    elif form == "scales with entries":
        inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
    scales = "" if form == "no scales" else "scales"
    nodes.append(helper.make_node("Resize", ["x", "roi", scales, "sizes"], ["y"], name="up", mode="nearest"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 8, 8])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _onnxruntime_runs(model) -> bool:
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.ones((1, 1, 4, 4), np.float32)})
    except Exception:  # noqa: BLE001 - any refusal is the verdict
        return False
    return True


@pytest.mark.parametrize("opset", [11, 12, 13, 18, 19])
@pytest.mark.parametrize("form", FORMS[:3])
def test_an_empty_scales_beside_sizes_is_no_error(tmp_path, opset, form):
    model = _model(opset, form)
    found = [d for d in our_errors(model, tmp_path) if d.code == "node.inputs-exclusive"]
    if form == "scales with entries":
        # onnxruntime fails to run it (at 11-12 only when it runs: onnx's checker lets it pass there)
        assert not _onnxruntime_runs(model) and (opset < 13 or not onnx_accepts(model))
        assert [d.path for d in found] == ['graph/node[0] Resize "up"']
        assert "both hold entries" in found[0].message and "leave scales empty" in found[0].message
    else:
        assert onnx_accepts(model) and _onnxruntime_runs(model)
        assert not our_errors(model, tmp_path)


def test_the_file_check_leaves_both_named_to_inference(tmp_path):
    """Without inference (`check(path)`, `onnxstudio check --no-infer`) the
    lengths are unknown, so both named is no finding; neither named still is."""
    for form in FORMS[:3]:
        assert not [d for d in check(_model(13, form)) if d.code == "node.inputs-exclusive"], form
    neither = _model(13, "no scales")
    neither.graph.node[-1].input[3] = ""
    found = [d for d in check(neither) if d.severity == ERROR and d.code == "node.inputs-exclusive"]
    assert found and "gives neither" in found[0].message
    path = tmp_path / "neither.onnx"
    path.write_bytes(neither.SerializeToString())
    assert any(d.code == "node.inputs-exclusive" for d in check(core.load(path)))
