"""Keyboard, drag-and-drop, cancel, search index and the headless render command."""
from __future__ import annotations

import argparse

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent

from viewer_helpers import open_model, shared_models, wait_idle
from loop_model import BODY_NODE, write_loop_model


def _model(name):
    return next(p for p in shared_models() if p.parent.name == name)


def test_zoom_keys_and_fit(qtbot, window):
    open_model(qtbot, window, _model("bert_small"))
    view = window.graph.view
    view.setFocus()
    before = view.current_scale()
    qtbot.keyClick(view, Qt.Key_Plus)
    assert view.current_scale() > before
    qtbot.keyClick(view, Qt.Key_Minus)
    qtbot.keyClick(view, Qt.Key_Minus)
    assert view.current_scale() < before
    # bert_small is a tall column (fitted whole: 4 % of the width): F fits its width and shows its top (issue 14).
    qtbot.keyClick(view, Qt.Key_F)
    graph_rect = window.graph.scene.itemsBoundingRect()
    assert graph_rect.width() * view.current_scale() >= 0.5 * view.viewport().width() \
        or view.current_scale() >= 1.5 - 1e-6
    visible = view.visible_scene_rect()
    assert visible.left() <= graph_rect.left() + 5 and visible.right() >= graph_rect.right() - 5
    assert visible.top() <= graph_rect.top() + 5
    item = next(iter(window.graph.scene.node_items.values()))
    item.setSelected(True)
    view.zoom_to_selection()
    assert view.visible_scene_rect().contains(item.sceneBoundingRect().center())


def test_drop_a_file_opens_it(qtbot, window, tmp_path):
    path = write_loop_model(tmp_path / "dropped.onnx")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(QPointF(10, 10), Qt.CopyAction, mime, Qt.LeftButton, Qt.NoModifier)
    window.dropEvent(event)
    wait_idle(qtbot, window)
    assert window.path == path and window.model is not None
    assert "dropped.onnx" in window.windowTitle()


def test_cancel_layout_keeps_window_usable(qtbot, window):
    open_model(qtbot, window, _model("bert_12layer_narrow"))
    boxes = len(window.graph.scene.node_items)
    window.graph.expand_all()
    assert window.cancel_button.isVisibleTo(window)
    window.cancel_work()
    wait_idle(qtbot, window)
    assert not window.cancel_button.isVisibleTo(window)
    assert len(window.graph.scene.node_items) == boxes     # the old picture stays


def test_search_index_covers_values_initializers_and_bodies(tmp_path):
    from onnxstudio import core
    from onnxstudio.ui.search import build_index, search
    model = core.load(write_loop_model(tmp_path / "loop.onnx"))
    index = build_index(model)
    hit = search(index, BODY_NODE)[0]
    assert hit.kind == "node" and hit.obj.name == BODY_NODE and "Loop" in hit.where
    assert search(index, "step")[0].kind == "initializer"
    assert any(h.kind == "value" and h.text == "acc_sum" for h in search(index, "acc_sum"))
    assert [h.obj.op_type for h in search(index, "relu")] == ["Relu"]
    assert search(index, "no-such-thing") == []


def test_search_with_several_words_finds_what_holds_them_all():
    """"layer.2 softmax": the words may fall in a node's name and op type
    (QA: one substring found nothing)."""
    from onnx import TensorProto, helper
    from onnxstudio import core
    from onnxstudio.ui.search import build_index, search
    nodes = [helper.make_node("Softmax", ["x"], ["a"], name="/enc/layer.2/attention/Softmax"),
             helper.make_node("Softmax", ["a"], ["b"], name="/enc/layer.3/attention/Softmax"),
             helper.make_node("Relu", ["b"], ["y"], name="/enc/layer.2/Relu")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = core.load_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    index = build_index(m)
    assert [h.obj.name for h in search(index, "layer.2 softmax")] == ["/enc/layer.2/attention/Softmax"]
    assert [h.obj.name for h in search(index, "  RELU   layer.2 ")] == ["/enc/layer.2/Relu"]
    assert search(index, "layer.2 conv") == []


def test_render_command_writes_svg_and_png(tmp_path):
    from onnxstudio.commands import render
    parser = argparse.ArgumentParser()
    render.configure(parser)
    for name in ("g.svg", "g.png"):
        out = tmp_path / name
        args = parser.parse_args([str(_model("silero_vad")), "-o", str(out), "--depth", "1"])
        assert render.run(args) == 0
        assert out.stat().st_size > 1000
    assert "If" in (tmp_path / "g.svg").read_text()


def test_render_command_rejects_bad_output(tmp_path):
    import pytest
    from onnxstudio.commands import render
    from onnxstudio.errors import UserError
    parser = argparse.ArgumentParser()
    render.configure(parser)
    args = parser.parse_args([str(_model("silero_vad")), "-o", str(tmp_path / "x.jpg")])
    with pytest.raises(UserError, match="x.jpg"):
        render.run(args)


def test_far_zoom_draws_batched_overview(qtbot, window):
    open_model(qtbot, window, _model("bert_12layer_narrow"))
    graph = window.graph
    graph.expand_all()
    wait_idle(qtbot, window)
    scene, view = graph.scene, graph.view
    batches = scene.overview()
    assert sum(len(rects) for _, rects in batches.rects_by_colour.values()) == len(scene.node_items)
    assert len(batches.lines) == len(scene.edge_items)
    view.fit_all()
    view.zoom_by(0.05 / view.current_scale())
    image = view.viewport().grab().toImage()
    background = scene.theme.background.rgb()
    centre = view.mapFromScene(next(iter(scene.node_items.values())).scene_rect().center())
    assert view.current_scale() < 0.12
    assert image.pixel(centre.x(), centre.y()) != background


def test_app_main_opens_the_demo(qtbot, monkeypatch):
    from PySide6.QtWidgets import QApplication
    from onnxstudio import app as gui
    from onnxstudio.ui.main_window import MainWindow
    seen, shown = {}, []
    original_show = MainWindow.show
    monkeypatch.setattr(MainWindow, "show", lambda self: (shown.append(self), original_show(self)))

    def run_until_drawn():
        # Stands in for the real event loop (a nested exec()/exit() would leave
        # pytest-qt's waits unable to deliver queued signals afterwards).
        win = shown[-1]
        qtbot.waitUntil(lambda: not win.busy and win.graph.scene.view_model is not None, timeout=60_000)
        seen["title"] = win.windowTitle()
        seen["boxes"] = len(win.graph.scene.node_items)
        seen["dark"] = win.graph.scene.theme.dark
        win.close()
        return 0

    monkeypatch.setattr(QApplication.instance(), "exec", run_until_drawn)
    assert gui.main(["--demo", "--theme", "dark"]) == 0
    assert seen["title"].startswith("demo.onnx") and seen["boxes"] > 5 and seen["dark"]


def test_double_click_on_function_call_opens_its_body(qtbot, window):
    from onnxstudio.resources import sample_path
    open_model(qtbot, window, sample_path("demo.onnx"))
    graph = window.graph
    call = next(item for item in graph.scene.node_items.values()
                if item.ref.function_key is not None)
    function = window.model.functions[call.ref.function_key]
    graph.activate(call)
    wait_idle(qtbot, window)
    assert graph.level.graph is function.graph
    assert graph.level.title.endswith(function.name)
    assert len(graph.scene.node_items) >= len(function.graph.nodes)
    graph.go_to_level(0)
    wait_idle(qtbot, window)
    assert graph.level.graph is window.model.graph


def test_value_link_in_properties_selects_its_edges(qtbot, window):
    open_model(qtbot, window, _model("silero_vad"))
    graph = window.graph
    value = window.model.graph.inputs[0]
    window.properties.navigate.emit(value)       # a value link clicked in Properties
    wait_idle(qtbot, window)
    selected = graph.scene.selectedItems()
    assert selected and all(getattr(item.ref, "value", None) is value for item in selected)
    assert value.name in window.properties.browser.toPlainText()
