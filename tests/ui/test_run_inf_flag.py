"""A node whose outputs hold infinities but no NaN is flagged "Inf", one
with a NaN "NaN": every flag said "NaN", so bert_small's attention masks
(-inf by design) were flagged like a real NaN bug (QA)."""
from __future__ import annotations

import numpy as np

from viewer_helpers import open_model, wait_idle
from onnxstudio.core.exec.tensor_stats import has_nan
from onnxstudio.ui.run.overlay import NodeMark


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("Log", ["x"], ["a"], name="log"),          # log(0) = -inf
         helper.make_node("Sub", ["a", "a"], ["b"], name="sub")],    # -inf - -inf = NaN
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, [3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def test_has_nan_tells_nan_from_inf():
    assert has_nan(np.array([1.0, np.nan], np.float32))
    assert not has_nan(np.array([-np.inf, np.inf], np.float32))
    assert has_nan([np.zeros(2), np.array([np.nan])]) and not has_nan(np.arange(3))


def test_the_flag_says_inf_or_nan(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "m.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    r = window.run_ui
    r.inputs.set_source("x", "constant", value=0.0)
    r.run_all()
    assert r.controller.wait(60_000)
    wait_idle(qtbot, window)
    scene = window.graph.scene
    words = {}
    for node in window.model.graph.nodes:
        rect = scene.item_for_node(node).scene_rect()
        words[node.name] = [m.nonfinite_word for m in r.overlay.items
                            if isinstance(m, NodeMark) and m.nonfinite and m.rect == rect]
    assert words == {"log": ["Inf"], "sub": ["NaN"]}
