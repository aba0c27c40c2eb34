"""The app tells the user a MatMulInteger differs only because onnxruntime's
uint8 x int8 kernel saturates (tests/exec/test_reference_quirks.py has the
recognition itself): the Compare dock says so and colours no culprit, and
the Run dock's status line does not blame the node."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from exact_integer import int16_pair_saturated_matmul
from onnxstudio.core import load
from onnxstudio.core.exec.other_references import compare_with_golden


def _operands(rng, m=6, k=33, n=5):
    """u8 x s8 operands large enough that some neighbouring pair sums pass int16."""
    a = rng.integers(200, 256, (m, k)).astype(np.uint8)
    b = rng.integers(100, 128, (k, n)).astype(np.int8)
    b[:, 1::2] = rng.integers(-20, 20, (k, n // 2)).astype(np.int8)    # columns that never saturate
    return a, b


def _quantized_model(path, b) -> None:
    nodes = [helper.make_node("MatMulInteger", ["a", "w"], ["p"], name="mm"),
             helper.make_node("Cast", ["p"], ["f"], to=TensorProto.FLOAT, name="cast"),
             helper.make_node("Relu", ["f"], ["y"], name="relu")]
    graph = helper.make_graph(nodes, "q", [helper.make_tensor_value_info("a", TensorProto.UINT8, [6, 33])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 5])],
                              initializer=[numpy_helper.from_array(b, "w")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)


def test_the_compare_dock_says_so_and_colours_no_culprit(qtbot, tmp_path):
    from onnxstudio.ui.run.compare_view import CompareView
    from onnxstudio.ui.run.compare_work import shown_error
    a, b = _operands(np.random.default_rng(3))
    path = tmp_path / "q.onnx"
    _quantized_model(path, b)
    p = int16_pair_saturated_matmul(a, None, b, None).astype(np.int32)
    golden = {"p": p, "f": p.astype(np.float32), "y": np.maximum(p, 0).astype(np.float32)}
    report = compare_with_golden(load(path), {"a": a}, golden)
    view = CompareView()
    qtbot.addWidget(view)
    view.set_report(report, "onnxruntime")
    assert "1 node differs without being wrong" in view.summary.text()
    mm = next(nd for nd in report.nodes if nd.node.name == "mm")
    flags = [view.table.item(r, 6) for r in range(view.table.rowCount())]
    flag = next(f for f in flags if f.toolTip() == mm.explained)
    assert flag.text() == "onnxruntime's"
    assert shown_error(mm, "own") == (0.0, True) and shown_error(mm, "total")[1] is False


def test_the_run_docks_status_line_does_not_blame_the_node(qtbot, window, tmp_path, monkeypatch):
    """The app's Compare with onnxruntime, its onnxruntime stood in for by the saturating model."""
    from viewer_helpers import open_model
    from onnxstudio.ui.run import compare_work
    _, b = _operands(np.random.default_rng(4))
    path = tmp_path / "q.onnx"
    _quantized_model(path, b)
    open_model(qtbot, window, path)

    def saturating_onnxruntime(model, ours, feeds, reference_model=None, **_):
        a = np.full((6, 33), 250, np.uint8)             # large enough to saturate whatever the inputs panel made
        p = int16_pair_saturated_matmul(a, None, b, None).astype(np.int32)
        golden = {"p": p, "f": p.astype(np.float32), "y": np.maximum(p, 0).astype(np.float32)}
        return compare_with_golden(model, {"a": a}, golden), golden
    monkeypatch.setattr(compare_work, "compare_against_onnxruntime", saturating_onnxruntime)
    said = []
    r = window.run_ui
    r.controller.message.connect(lambda kind, text: said.append(text))
    assert r.controller.compare_onnxruntime()
    assert r.controller.wait(60_000)
    qtbot.waitUntil(lambda: any("first divergent node" in t for t in said), timeout=60_000)
    line = next(t for t in said if "first divergent node" in t)
    assert "MatMulInteger" in line and "not the model's" in line
