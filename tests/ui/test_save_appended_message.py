"""Ctrl+S over a model with external data appends what its data file lacks
instead of rewriting it: the status bar says how much the data file grew
(it only grows), and says nothing of it when nothing was appended."""
from __future__ import annotations

import numpy as np

from edit_helpers import open_editable


def _write_model(path):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.arange(4096, dtype=np.float32).reshape(64, 64), "W")   # 16 KB
    graph = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location=path.name + ".data", size_threshold=1024)
    return path


def test_the_status_bar_names_what_a_save_appended(qtbot, window, tmp_path):
    from onnxstudio.core.edits import SetInitializer, SetMetadata
    path = open_editable(qtbot, window, _write_model(tmp_path / "ext.onnx"))
    data = tmp_path / "ext.onnx.data"
    size = data.stat().st_size
    window.qdoc.apply(SetInitializer("W", np.ones((64, 64), np.float32)))
    assert window.edit_actions.files.save()
    grew = data.stat().st_size - size
    assert grew >= 16384
    message = window.statusBar().currentMessage()
    assert message.startswith(f"Saved {path}; appended ") and f"{grew / 1024:.1f} KB to ext.onnx.data" in message
    window.qdoc.apply(SetMetadata("k", "v"))
    assert window.edit_actions.files.save()
    assert data.stat().st_size == size + grew
    assert window.statusBar().currentMessage() == f"Saved {path}"
