"""The viewer opened on real models: scene geometry, groups, search, panels."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from viewer_helpers import open_model, shared_models, wait_idle
from loop_model import BODY_NODE, write_loop_model
from scene_checks import check_scene


@pytest.mark.parametrize("path", shared_models(), ids=lambda p: p.parent.name)
def test_every_shared_model_opens_with_a_clean_scene(qtbot, window, path):
    open_model(qtbot, window, path)
    counts = check_scene(window.graph.scene)
    assert counts["boxes"] >= 2
    # The status bar names the level and the engine that drew it.
    assert "boxes" in window.status_label.text()


@pytest.mark.slow
@pytest.mark.parametrize("path", shared_models(), ids=lambda p: p.parent.name)
def test_every_shared_model_fully_expanded(qtbot, window, path):
    open_model(qtbot, window, path)
    window.graph.expand_all()
    wait_idle(qtbot, window, timeout=300_000)
    scene = window.graph.scene
    assert not any(item.kind == "group" for item in scene.node_items.values())
    view_model = scene.view_model
    for node in window.model.graph.nodes:
        box_id = view_model.box_for(node)
        assert box_id in scene.node_items, f"{node.path} is not on the canvas"
        if node.op_type not in ("Constant", "Identity"):
            # Only constants (and Identity copies of them) fold into a consumer.
            assert scene.node_items[box_id].ref.node is node, f"{node.path} has no box of its own"
    check_scene(scene)


def _first_group_box(scene):
    for key, item in scene.node_items.items():
        if item.kind == "group":
            return key, item.ref.group
    return None, None


def test_groups_collapse_and_expand(qtbot, window):
    path = next(p for p in shared_models() if p.parent.name == "bert_small")
    open_model(qtbot, window, path)
    graph = window.graph
    graph.collapse_all()
    wait_idle(qtbot, window)
    key, group = _first_group_box(graph.scene)
    assert group is not None, "a scoped transformer must show collapsed groups"
    collapsed_boxes = len(graph.scene.node_items)
    graph.expand_group(group)
    wait_idle(qtbot, window)
    assert group in graph.scene.group_frames, "an expanded group is drawn as a frame"
    assert all(item.ref.group != group for item in graph.scene.node_items.values()
               if item.kind == "group")
    assert len(graph.scene.node_items) > collapsed_boxes
    check_scene(graph.scene)
    graph.collapse_group(group)
    wait_idle(qtbot, window)
    assert group not in graph.scene.group_frames
    assert any(item.kind == "group" and item.ref.group == group
               for item in graph.scene.node_items.values())


def test_double_click_on_group_expands_it(qtbot, window):
    path = next(p for p in shared_models() if p.parent.name == "bert_small")
    open_model(qtbot, window, path)
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    key, group = _first_group_box(window.graph.scene)
    window.graph.activate(window.graph.scene.node_items[key])
    wait_idle(qtbot, window)
    assert group in window.graph.scene.group_frames


def test_search_finds_node_in_loop_body_and_goes_there(qtbot, window, tmp_path):
    model_path = write_loop_model(tmp_path / "loop.onnx")
    open_model(qtbot, window, model_path)
    main_graph = window.graph.level.graph
    window.show_search()
    qtbot.keyClicks(window.search.edit, BODY_NODE)
    assert window.search.results.count() >= 1
    qtbot.keyClick(window.search.edit, Qt.Key_Return)
    wait_idle(qtbot, window)
    graph = window.graph
    assert len(graph.levels) == 2 and graph.level.graph is not main_graph
    assert graph.level.graph.parent_node.op_type == "Loop"
    selected = graph.scene.selectedItems()
    assert len(selected) == 1 and selected[0].ref.node.name == BODY_NODE
    assert graph.breadcrumbs.isVisible()
    check_scene(graph.scene)
    graph.go_back()
    wait_idle(qtbot, window)
    assert graph.level.graph is main_graph and len(graph.levels) == 1
    # Double-clicking the Loop (one body) goes straight into it.
    loop_item = next(item for item in graph.scene.node_items.values()
                     if item.ref.node is not None and item.ref.node.op_type == "Loop")
    graph.activate(loop_item)
    wait_idle(qtbot, window)
    assert graph.level.graph.parent_node is loop_item.ref.node


def test_double_click_enters_if_branch_and_escape_returns(qtbot, window):
    path = next(p for p in shared_models() if p.parent.name == "silero_vad")
    open_model(qtbot, window, path)
    graph = window.graph
    if_item = next(item for item in graph.scene.node_items.values()
                   if item.ref.node is not None and item.ref.node.op_type == "If")
    # Two branches: a double-click offers a menu; open the first one directly.
    bodies = if_item.ref.node.subgraphs()
    assert len(bodies) == 2
    graph.enter_graph(bodies[0][1])
    wait_idle(qtbot, window)
    assert graph.level.graph is bodies[0][1]
    check_scene(graph.scene)
    qtbot.keyClick(graph.view, Qt.Key_Escape)
    wait_idle(qtbot, window)
    assert len(graph.levels) == 1


def test_selecting_a_node_fills_properties(qtbot, window):
    path = next(p for p in shared_models() if p.parent.name == "ppocr_v4_det")
    open_model(qtbot, window, path)
    scene = window.graph.scene
    conv = next(item for item in scene.node_items.values()
                if item.ref.node is not None and item.ref.node.op_type == "Conv")
    conv.setSelected(True)
    html = window.properties.browser.toHtml()
    assert "onnx.ai/onnx/operators/onnx__Conv.html" in html
    assert "kernel_shape" in html
    # This exporter stores weights as Constant nodes: their tensor is shown too.
    weight = next(v for v in conv.ref.node.inputs if v is not None and v.producer is not None
                  and v.producer.op_type == "Constant")
    window.properties.show_value(weight)
    text = window.properties.browser.toPlainText()
    assert "mean" in text and "std" in text
    # ... in the tensor editor (which took the read-only tensor view's place)
    editor = window.properties.tensor_editor
    assert editor is not None and editor.isVisibleTo(window.properties)
    assert editor.table.array.shape == tuple(weight.producer.attributes["value"].value.shape)


def test_initializer_statistics_and_slices(qtbot, window):
    import numpy as np
    path = next(p for p in shared_models() if p.parent.name == "bert_small")
    open_model(qtbot, window, path)
    graph = window.model.graph
    weight = next(v for v in graph.initializers.values() if len(v.const.shape) == 2)
    window.properties.show_value(weight)
    text = window.properties.browser.toPlainText()
    array = np.asarray(weight.const.numpy(), dtype=np.float64)
    assert f"{array.mean():.6g}" in text and f"{array.std():.6g}" in text
    assert f"{array.min():.6g}" in text and str(list(weight.const.shape)) in text
    view = window.properties.initializer_values
    view.show_values()
    assert view.table.model.rowCount() == weight.const.shape[0]
    assert view.table.model.columnCount() == weight.const.shape[1]
    cell = view.table.model.index(1, 2)
    assert view.table.model.data(cell) == f"{float(array[1, 2]):.6g}"


def test_unreadable_file_names_the_file(qtbot, window, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"\x0a\xff\xff\xff this is not protobuf")
    window.open_path(bad)
    wait_idle(qtbot, window)
    assert "broken.onnx" in window.last_error
    assert "Traceback" not in window.last_error
    assert window.model is None


def test_recent_files_and_theme(qtbot, window, tmp_path):
    path = write_loop_model(tmp_path / "loop.onnx")
    open_model(qtbot, window, path)
    assert window.settings.recent_files()[0] == str(path.resolve())
    assert window.recent_menu.actions()[0].text().endswith(str(path.resolve()))
    window.set_theme("dark")
    assert window.graph.scene.theme.dark and window.settings.theme() == "dark"
    window.set_theme("light")
    assert not window.graph.scene.theme.dark


def test_export_whole_graph_and_view(qtbot, window, tmp_path):
    from PySide6.QtGui import QImage
    from onnxstudio.ui.export import export_scene
    path = next(p for p in shared_models() if p.parent.name == "silero_vad")
    open_model(qtbot, window, path)
    svg = export_scene(window.graph.scene, tmp_path / "g.svg")
    text = svg.read_text()
    assert "<svg" in text and "Equal" in text
    png = export_scene(window.graph.scene, tmp_path / "v.png", window.graph.view.visible_scene_rect())
    image = QImage(str(png))
    assert image.width() > 100 and image.height() > 100


def test_long_attribute_lists_are_capped(qtbot, window):
    path = next(p for p in shared_models() if p.parent.name == "skl_gbr")
    open_model(qtbot, window, path)
    node = next(n for n in window.model.graph.nodes if n.op_type == "TreeEnsembleRegressor")
    window.properties.show_node(node)
    text = window.properties.browser.toPlainText()
    ids = node.attributes["nodes_featureids"].value
    assert len(ids) > 64 and f"… ({len(ids)} items)]" in text
    assert "nodes_featureids" in text and "n_targets" in text


def test_fit_on_a_tall_graph_fits_its_width(qtbot, window):
    """ppocr_v4_det is ~25x taller than wide: fitted whole it was a thin
    column using ~3 % of the width. F fits the width and shows the top."""
    from shared_models import SHARED_MODELS
    open_model(qtbot, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    view = window.graph.view
    graph_rect = window.graph.scene.itemsBoundingRect()
    view.zoom_by(0.1)
    view.fit_all()
    shown_width = graph_rect.width() * view.current_scale()
    assert shown_width >= 0.5 * view.viewport().width() or view.current_scale() >= 1.5 - 1e-6
    visible = view.visible_scene_rect()
    assert visible.top() <= graph_rect.top() + 1 and visible.bottom() < graph_rect.bottom()
    # A graph that is not tall is still fitted whole.
    window.open_demo()
    wait_idle(qtbot, window)
    view.fit_all()
    assert view.visible_scene_rect().contains(window.graph.scene.itemsBoundingRect().adjusted(5, 5, -5, -5))


def test_status_bar_says_where_without_the_graphs_own_sentence(qtbot, window):
    from shared_models import SHARED_MODELS
    open_model(qtbot, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    text = window.status_label.text()
    assert "PaddlePaddle" not in text and text.startswith("332 boxes, 379 edges in the main graph"), text


def test_group_titles_are_whole_and_above_the_edges(qtbot, window):
    """The demo's "backbone" and "stage1" titles had the input's edge running
    through their text, and a group narrower than its title clipped it."""
    from onnxstudio.ui.canvas import fonts
    from PySide6.QtCore import QRectF
    from onnxstudio.ui.canvas.items import GroupFrame, GroupTitle
    window.open_demo()
    wait_idle(qtbot, window)
    scene = window.graph.scene
    titles = [i for i in scene.items() if isinstance(i, GroupTitle)]
    assert {t.path for t in titles} == set(scene.group_frames) and titles
    top_edge = max(e.zValue() for e in scene.edge_items.values())
    for t in titles:
        assert t.zValue() > top_edge
        assert t.title_rect().width() >= fonts.text_width(t.text) + 8
        assert window.graph.view.itemAt(window.graph.view.mapFromScene(t.title_rect().center())) is t
    narrow = GroupFrame("g", QRectF(0, 0, 40, 200), "intermediate  (7 nodes)")
    title = GroupTitle(narrow)
    assert title.title_rect().width() >= fonts.text_width("▾ intermediate  (7 nodes)")
    assert narrow.titled_apart


def test_double_click_on_a_group_title_tab_collapses_the_group(qtbot, window):
    window.open_demo()
    wait_idle(qtbot, window)
    graph = window.graph
    path = ("backbone", "stage1")
    frame = graph.scene.group_frames[path]
    from onnxstudio.ui.canvas.items import GroupTitle
    title = next(i for i in graph.scene.items() if isinstance(i, GroupTitle) and i.frame is frame)
    pos = graph.view.mapFromScene(title.title_rect().center())
    qtbot.mouseDClick(graph.view.viewport(), Qt.LeftButton, pos=pos)
    wait_idle(qtbot, window)
    assert path not in graph.scene.group_frames


def test_f_again_shows_the_whole_tall_graph_bottom_included(qtbot, window):
    """F on a tall graph fits its width; F again must show all of it (the
    whole-graph fit used to leave the bottom under the scroll bar)."""
    from shared_models import SHARED_MODELS
    open_model(qtbot, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    view = window.graph.view
    graph_rect = window.graph.scene.itemsBoundingRect()
    view.zoom_by(2.0)
    view.fit_all()
    assert view.visible_scene_rect().bottom() < graph_rect.bottom()
    view.fit_all()
    assert view.visible_scene_rect().contains(graph_rect), (view.visible_scene_rect(), graph_rect)
    # A third F goes back to the width fit; scrolling in between starts over.
    view.fit_all()
    assert view.visible_scene_rect().bottom() < graph_rect.bottom()
    view.verticalScrollBar().setValue(view.verticalScrollBar().value() + 300)
    view.fit_all()
    assert view.visible_scene_rect().bottom() < graph_rect.bottom()


@pytest.mark.parametrize("size", [(1200, 800), (700, 1000), (1600, 900)])
def test_whole_fit_holds_the_whole_scene(qtbot, window, size):
    window.resize(*size)
    window.open_demo()
    wait_idle(qtbot, window)
    view = window.graph.view
    view.zoom_by(4.0)
    rect = window.graph.scene.itemsBoundingRect()
    view.fit_whole(rect)
    assert view.visible_scene_rect().contains(rect)


def test_edge_labels_show_compact_dims_and_the_full_expression_on_hover(qtbot):
    from types import SimpleNamespace
    from onnxstudio.core.infer import dims
    from onnxstudio.core.ir import Value
    from onnxstudio.core.ir.types import TensorType
    from onnxstudio.ui.canvas.scene import _new_edge_item, compact_type_text
    d = dims.dim_floordiv(dims.dim_add("H", 15), 16)
    value = Value("feat", TensorType(1, (1, 32, d, None)))
    assert compact_type_text(value) == "float[1,32,⌈H/16⌉,?]"
    item = _new_edge_item("e", SimpleNamespace(value=value, source="a", target="b"),
                          [(0, 0), (0, 10), (0, 20), (0, 30)], None)
    assert item.label == "float[1,32,⌈H/16⌉,?]"
    assert "floor((H+15)/16)" in item.toolTip() and item.toolTip().startswith("feat")
    item.place_label(None)
    assert "floor((H+15)/16)" in item.toolTip()


@pytest.mark.parametrize("name", ["demo", "bert_small"])
def test_every_group_frame_is_as_wide_as_its_title(qtbot, window, name):
    """A group narrower than its title had the tab poking out past the frame:
    the layout now keeps every frame at least as wide as its title tab."""
    from shared_models import SHARED_MODELS
    from onnxstudio.ui.canvas.items import GroupTitle
    if name == "demo":
        window.open_demo()
        wait_idle(qtbot, window)
    else:
        open_model(qtbot, window, SHARED_MODELS / name / "model.onnx")
    window.graph.expand_all()
    wait_idle(qtbot, window, timeout=300_000)
    frames = window.graph.scene.group_frames
    assert frames
    for path, frame in frames.items():
        assert frame.rect.width() >= GroupTitle.tab_width(frame.title) - 0.5, (path, frame.rect, frame.title)


def _shown_labels(scene):
    from onnxstudio.ui.canvas.items import LOD_EDGE_LABEL  # noqa: F401 - labels are painted from _label_rect
    return {key: item._label_rect for key, item in scene.edge_items.items()
            if item.label and item._label_rect is not None}


@pytest.mark.parametrize("name", ["demo", "bert_small"])
def test_edge_labels_never_overlap_and_a_fanned_out_value_is_labelled_once(qtbot, window, name):
    """At the top of bert_small's encoder the hidden state's edges to the
    Q/K/V projections and the residual each printed "float[1,128,256]",
    stacked on top of one another: one label per value, near its producer."""
    from shared_models import SHARED_MODELS
    if name == "demo":
        window.open_demo()
        wait_idle(qtbot, window)
    else:
        open_model(qtbot, window, SHARED_MODELS / name / "model.onnx")
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)   # shapes come from inference
    scene = window.graph.scene
    shown = _shown_labels(scene)
    assert len(shown) >= 10
    keys = sorted(shown)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            inter = shown[a].intersected(shown[b])
            assert inter.width() <= 0.5 or inter.height() <= 0.5, (a, b)
    per_value = {}
    for key in shown:
        item = scene.edge_items[key]
        per_value.setdefault((item.src_key, id(item.ref.value)), []).append(key)
    assert all(len(v) == 1 for v in per_value.values()), [v for v in per_value.values() if len(v) > 1][:3]
    # A fanned-out value's label sits by its producer.
    fans = {}
    for item in scene.edge_items.values():
        fans.setdefault((item.src_key, id(item.ref.value)), []).append(item)
    near = 0
    for (src, _), items in fans.items():
        labelled = [it for it in items if it.key in shown]
        if len(items) > 1 and labelled:
            box = scene.node_items[src].scene_rect()
            assert shown[labelled[0].key].center().y() - box.bottom() < 80, src
            near += 1
    assert near >= 1


@pytest.mark.parametrize("name", ["demo", "skl_gbr", "skl_logreg_pipeline"])
def test_node_titles_fit_on_one_line_without_breaking_a_word(qtbot, window, name):
    """skl_gbr's "TreeEnsembleRegressor" was drawn as "TreeEnsembleRegress /
    or": boxes sized by the title's advance were a pixel narrower than its
    inked glyphs. Every title must fit its text area on one line even for a
    text drawer that wraps."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QFontMetricsF
    from shared_models import SHARED_MODELS
    from onnxstudio.ui.canvas import fonts
    from onnxstudio.ui.canvas.items import PAD_X
    if name == "demo":
        window.open_demo()
        wait_idle(qtbot, window)
    else:
        open_model(qtbot, window, SHARED_MODELS / name / "model.onnx")
    metrics = QFontMetricsF(fonts.title_font())
    one_line = fonts.line_height(True) + 0.5
    items = list(window.graph.scene.node_items.values())
    assert items
    for item in items:
        pad = 0.0 if item.kind in ("input", "output") else PAD_X
        area = QRectF(0, 0, item.rect.width() - 2 * pad, 1000)
        wrapped = metrics.boundingRect(area, int(Qt.AlignHCenter | Qt.TextWrapAnywhere), item.title)
        assert wrapped.height() <= one_line, (item.title, item.rect.width())
        # Room for the inked glyphs too, not just the advance (bold overhangs).
        inked = max(metrics.horizontalAdvance(item.title), metrics.boundingRect(item.title).width())
        assert area.width() >= inked + 1, (item.title, area.width(), inked)


def test_one_open_layer_is_drawn_below_the_closed_layers_before_it(qtbot, window):
    """Opening one bert_12layer_narrow layer drew it beside layers 0-2 (its
    mask branch starts at the top of the graph, and it was one dot call with
    them): a big open group among closed siblings is now a piece of its own,
    stacked in order."""
    from shared_models import SHARED_MODELS
    open_model(qtbot, window, SHARED_MODELS / "bert_12layer_narrow" / "model.onnx")
    graph = window.graph
    layer = ("encoder", "layer.3")
    inner = [p for p in graph.scene.view_model.groups if p[:2] == layer]
    graph.level.expanded = set(graph.level.expanded or ()) | {p[:d] for p in inner for d in range(1, len(p) + 1)}
    graph.start_layout()
    wait_idle(qtbot, window, timeout=300_000)
    scene = graph.scene
    frame = scene.group_frames[layer].scene_rect()
    layer_of = {n.id: n.group[1] for n in scene.view_model.request.nodes
                if len(n.group) >= 2 and n.group[0] == "encoder"}
    above = [scene.node_items[k] for k, name in layer_of.items() if name in ("layer.0", "layer.1", "layer.2")]
    below = [scene.node_items[k] for k, name in layer_of.items() if name in ("layer.4", "layer.11")]
    assert len(above) >= 3 and len(below) >= 2
    assert all(b.scene_rect().bottom() < frame.top() for b in above)
    assert all(b.scene_rect().top() > frame.bottom() for b in below)
    check_scene(scene)
