"""How dims read on screen: a size inference made up a name for (`?41`,
which read like a typo) shows as `?` on edge labels and in Properties, the
name kept in the type and shown on hover; long exporter dim names keep the
tail that tells them apart (`…dim_0`, `…dim_1`), the full name on hover."""
from __future__ import annotations

import re
from types import SimpleNamespace

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from onnxstudio.core.infer.dims import compact_dim
from onnxstudio.core.ir.types import TensorType
from onnxstudio.ui.panels.html import short_dims, short_type
from viewer_helpers import open_model

LONG0, LONG1 = "LayerNormalizationlast_hidden_state_dim_0", "LayerNormalizationlast_hidden_state_dim_1"


def _model(path):
    from onnx import TensorProto, helper, save
    nz = helper.make_node("NonZero", ["x"], ["nz_out"], name="nz")
    ident = helper.make_node("Identity", ["nz_out"], ["idx"], name="id")
    relu = helper.make_node("Relu", ["h"], ["h_out"], name="r")
    graph = helper.make_graph(
        [nz, ident, relu], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("h", TensorProto.FLOAT, [LONG0, LONG1, 128])],
        [helper.make_tensor_value_info("idx", TensorProto.INT64, None),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [LONG0, LONG1, 128])])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    return path


def test_made_up_names_read_as_a_question_mark_and_expressions_stay():
    assert compact_dim("?41") == "?" and compact_dim(None) == "?"
    assert compact_dim("x.2") == "x.2" and compact_dim("batch") == "batch" and compact_dim(3) == "3"


def test_long_names_keep_the_tail_that_tells_them_apart():
    assert short_dims([LONG0, LONG1, "batch"]) == {LONG0: "…dim_0", LONG1: "…dim_1"}
    links = {}
    html = short_type(SimpleNamespace(own_type=TensorType(1, (LONG0, LONG1, 128))), {}, links, "")
    assert ">…dim_0</a>,<a" in html and ">…dim_1</a>,128]" in html
    assert sorted(links.values()) == [LONG0, LONG1]
    links = {}
    html = short_type(SimpleNamespace(own_type=TensorType(1, ("?41", 1))), {}, links, "")
    assert html.startswith("float[<a href='dim:dim0'") and ">?</a>,1]" in html and "?41" not in html
    assert "?41" in links["dim0"]


def _edge_from(window, value_name):
    return next(e for e in window.graph.scene.edge_items.values()
                if e.ref.value is not None and e.ref.value.name == value_name)


def test_the_canvas_and_properties_show_question_marks_and_short_tails(qtbot, window, tmp_path):
    open_model(qtbot, window, _model(tmp_path / "m.onnx"))
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    qtbot.waitUntil(lambda: _edge_from(window, "nz_out").label == "int64[1,?]", timeout=30_000)
    edge = _edge_from(window, "nz_out")
    assert re.search(r"int64\[1, ?\?\d+\]", edge.tooltip_text())          # the made-up name on hover
    # Click the Relu on the canvas: Properties lists its output with short tails.
    scene, view = window.graph.scene, window.graph.view
    relu = next(n for n in window.model.graph.nodes if n.name == "r")
    item = scene.item_for_node(relu)
    view.centerOn(item)
    QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier,
                     view.mapFromScene(item.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: "…dim_1" in window.properties.browser.toPlainText(), timeout=10_000)
    text = window.properties.browser.toPlainText()
    assert "float[…dim_0,…dim_1,128]" in text and "LayerNo" not in text
    # The Identity after NonZero: its input reads int64[1,?].
    ident = scene.item_for_node(next(n for n in window.model.graph.nodes if n.name == "id"))
    view.centerOn(ident)
    QTest.mouseClick(view.viewport(), Qt.LeftButton, Qt.NoModifier,
                     view.mapFromScene(ident.sceneBoundingRect().center()))
    qtbot.waitUntil(lambda: "int64[1,?]" in window.properties.browser.toPlainText(), timeout=10_000)
    window.properties.grab().save(str(tmp_path / "properties.png"))
