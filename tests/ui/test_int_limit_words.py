"""Integers that mean "no limit" are shown by name: a Slice's ends of
9223372036854775807 ("to the end") read INT64_MAX on its box and in
Properties, which keeps the exact number beside the name. One rule
(core/layout/labels.int_limit_named) for both."""
from __future__ import annotations

import pytest

from onnxstudio.core.layout.labels import (attribute_text, constant_text, int_limit_named, limits_legend,
                                           limits_named_in)

INT64_MAX, INT64_MIN = 2**63 - 1, -2**63


def test_the_rule_names_the_four_limits_and_nothing_else():
    assert int_limit_named(INT64_MAX) == "INT64_MAX"
    assert int_limit_named(INT64_MIN) == "INT64_MIN"
    assert int_limit_named(2**31 - 1) == "INT32_MAX"
    assert int_limit_named(-2**31) == "INT32_MIN"
    for plain in (0, -1, 2**31, 2**63 - 2, 1.0, float(INT64_MAX), True, "9223372036854775807", None):
        assert int_limit_named(plain) is None
    assert limits_named_in(["ends = [INT64_MAX, 2]", "starts = INT32_MIN"]) == {"INT64_MAX", "INT32_MIN"}
    assert limits_named_in(["name = MY_INT64_MAXIMUM", "axis = 1"]) == set()
    assert limits_legend({"INT32_MIN", "INT64_MAX"}) == "INT64_MAX = 9223372036854775807, INT32_MIN = -2147483648"


def _write(path):
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    ends = numpy_helper.from_array(np.array([INT64_MAX, 2], np.int64), "ends")
    graph = helper.make_graph(
        [helper.make_node("Slice", ["x", "starts", "ends"], ["s"], name="to_the_end"),
         helper.make_node("Slice", ["s"], ["y"], name="old_slice", domain="legacy",
                          starts=[0, INT64_MIN], ends=[INT64_MAX, 5]),
         helper.make_node("TopK", ["y", "k"], ["v", "i"], name="topk", axis=-1)],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])],
        [helper.make_tensor_value_info("v", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("i", TensorProto.INT64, None)],
        initializer=[numpy_helper.from_array(np.array([1, 0], np.int64), "starts"), ends,
                     numpy_helper.from_array(np.array([2**31 - 1], np.int64), "k")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                    helper.make_opsetid("legacy", 1)])
    onnx.save(model, str(path))
    return path


def test_box_lines_name_the_limits(tmp_path):
    from onnxstudio.core.serde.io import load
    model = load(str(_write(tmp_path / "slice.onnx")))
    old = next(n for n in model.graph.nodes if n.name == "old_slice")
    assert attribute_text(old.attributes["ends"]) == "ends = INT64_MAX, 5"
    assert attribute_text(old.attributes["starts"]) == "starts = 0, INT64_MIN"
    ends = model.graph.initializers["ends"]
    assert constant_text("ends", ends, ends.const) == "ends = [INT64_MAX, 2]"


@pytest.mark.usefixtures("qtbot")
def test_canvas_and_properties_name_them_and_keep_the_number(qtbot, window, tmp_path):
    from viewer_helpers import open_model
    open_model(qtbot, window, _write(tmp_path / "slice.onnx"))
    nodes = {n.name: n for n in window.model.graph.nodes}
    old_box = window.graph.scene.item_for_node(nodes["old_slice"])
    assert "ends = INT64_MAX, 5" in old_box.lines
    modern_box = window.graph.scene.item_for_node(nodes["to_the_end"])
    assert "ends = [INT64_MAX, 2]" in modern_box.lines
    assert modern_box.toolTip().endswith("\nINT64_MAX = 9223372036854775807")     # the number, on hover
    assert "INT64_MIN = -9223372036854775808" in old_box.toolTip()
    topk_box = window.graph.scene.item_for_node(nodes["topk"])        # K folded: [INT32_MAX]
    assert "K = [INT32_MAX]" in topk_box.lines and topk_box.toolTip() == "topk\nTopK\nINT32_MAX = 2147483647"
    window.properties.show_node(nodes["old_slice"])
    text = window.properties.browser.toPlainText()
    assert "[INT64_MAX, 5] (INT64_MAX = 9223372036854775807)" in text
    assert "[0, INT64_MIN] (INT64_MIN = -9223372036854775808)" in text
    window.properties.show_node(nodes["topk"])
    text = window.properties.browser.toPlainText()
    assert "-1 int" in text and "INT" not in text.split("axis")[1]     # other ints stay numbers
