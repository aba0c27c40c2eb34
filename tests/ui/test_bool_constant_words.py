"""A folded bool constant reads as the tensor editor and Properties show
bools: "cond = true", not Python's "True" (the Loop of
scripted_loop_legacy_op17 read "cond = True" on the canvas, "true" in the
editor)."""
from __future__ import annotations

from viewer_helpers import open_model


def _write(path):
    import onnx
    from onnx import TensorProto, helper
    graph = helper.make_graph(
        [helper.make_node("And", ["x", "flags"], ["y"], name="and")], "g",
        [helper.make_tensor_value_info("x", TensorProto.BOOL, [2])],
        [helper.make_tensor_value_info("y", TensorProto.BOOL, [2])],
        initializer=[helper.make_tensor("flags", TensorProto.BOOL, [2], [True, False])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


def test_folded_bools_read_lowercase(qtbot, window, tmp_path):
    open_model(qtbot, window, _write(tmp_path / "bools.onnx"))
    node = window.model.graph.nodes[0]
    box = window.graph.scene.item_for_node(node)
    assert "B = [true, false]" in box.lines
