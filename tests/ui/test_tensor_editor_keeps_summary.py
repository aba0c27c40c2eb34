"""At 1280x740 the tensor editor took the whole Properties dock but the
form: the summary of the initializer above it (its type, its readers) was
squeezed to nothing, because the editor was given its whole minimum (~560
px) out of a dock counted as at least 600 px tall. The summary keeps its
first lines and the editor scrolls in what is left."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from viewer_helpers import open_model, wait_idle


def _write(path) -> str:
    w = numpy_helper.from_array(np.arange(64 * 64, dtype=np.float32).reshape(64, 64), "W")
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return str(path)


def test_the_summary_keeps_its_first_lines_beside_the_editor(qtbot, window, tmp_path):
    window.resize(1280, 740)
    open_model(qtbot, window, _write(tmp_path / "m.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    wait_idle(qtbot, window)
    height = window.height()
    panel = window.properties
    panel.show_value(window.model.graph.initializers["W"])
    qtbot.waitUntil(lambda: panel.tensor_editor is not None)
    qtbot.waitUntil(lambda: panel.splitter.sizes()[3] > 0)
    summary, form, _values, editor = panel.splitter.sizes()
    lines = panel.browser.fontMetrics().lineSpacing()
    assert summary >= 5 * lines, panel.splitter.sizes()        # "Initializer W", its type, its readers
    assert form > 0 and editor >= 4 * lines
    assert window.height() == height                           # the editor scrolls; the window stays
