"""The tensor editor of a shared initializer fits the Properties dock when
its readers have long names: on a torch BERT export (readers named
'LayerNormalization "/m/embeddings/LayerNorm/LayerNormalization"') the
reader chooser asked for the width of its longest name, the editor grew
wider than the dock, and the "Shared: read by 15 nodes ...; an edit here
changes all of them" warning was cut off at the dock's edge behind a
horizontal scroll bar."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from viewer_helpers import open_model


def _long_named_readers(path) -> str:
    scope = "/m/encoder/layer.11/attention/output/LayerNorm/very_long_module_name_from_an_exporter"
    nodes = [helper.make_node("Mul", ["x", "gamma"], ["y0"], name=f"{scope}/Mul_0"),
             helper.make_node("Mul", ["y0", "gamma"], ["y1"], name=f"{scope}/Mul_1")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                              [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [4])],
                              [numpy_helper.from_array(np.array([1.5, 2, 3, 4], np.float32), "gamma")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), str(path))
    return str(path)


def test_the_editor_of_a_shared_tensor_fits_the_dock(qtbot, window, tmp_path):
    window.resize(1400, 900)
    open_model(qtbot, window, _long_named_readers(tmp_path / "m.onnx"))
    window.properties.show_value(window.model.graph.get_value("gamma"))
    editor = window.properties.tensor_editor
    assert editor.copy_row.isVisible()
    holder = window.properties.tensor_slot.holder
    qtbot.waitUntil(lambda: holder.viewport().width() > 0)
    assert editor.minimumSizeHint().width() <= holder.viewport().width()
    assert not holder.horizontalScrollBar().isVisible()
