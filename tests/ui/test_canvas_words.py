"""The few English words core.layout puts in box labels ("not defined",
"from enclosing graph", "constant", "12 nodes", the "⟨unused constants⟩"
group) are drawn in the UI's language, and every box is measured from the
text it draws: in zh_CN the Chinese words, sized for them; in English the
labels are exactly core's."""
from __future__ import annotations

import re

import pytest

from viewer_helpers import open_model, wait_idle

CJK = re.compile(r"[\u3400-\u9fff]")


def _words_model(path):
    """An input nothing defines (x_missing), two scopes (/enc, /dec), two
    Constants nothing reads, an If whose branches read `b` from the main
    graph, and an initializer listed as a graph output (a constant output)."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    f = TensorProto.FLOAT
    then_body = helper.make_graph([helper.make_node("Identity", ["b"], ["t"], name="then_id")], "then",
                                  [], [helper.make_tensor_value_info("t", f, None)])
    else_body = helper.make_graph([helper.make_node("Neg", ["b"], ["e"], name="else_neg")], "else",
                                  [], [helper.make_tensor_value_info("e", f, None)])
    nodes = [
        helper.make_node("Relu", ["x_missing"], ["r"], name="relu1"),
        helper.make_node("Add", ["x", "r"], ["a"], name="/enc/add"),
        helper.make_node("Neg", ["a"], ["b"], name="/enc/neg"),
        helper.make_node("Abs", ["b"], ["y1"], name="/dec/abs"),
        helper.make_node("Relu", ["y1"], ["y"], name="/dec/relu"),
        helper.make_node("Constant", [], ["k1"], name="k1", value_float=1.0),
        helper.make_node("Constant", [], ["k2"], name="k2", value_float=2.0),
        helper.make_node("If", ["cond"], ["z"], name="choose", then_branch=then_body, else_branch=else_body),
    ]
    graph = helper.make_graph(
        nodes, "words",
        [helper.make_tensor_value_info("x", f, [1, 3]), helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", f, [1, 3]), helper.make_tensor_value_info("z", f, None),
         helper.make_tensor_value_info("c", f, [2])],
        initializer=[numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "c")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


@pytest.fixture
def zh_CN(qapp):
    """The app in Chinese (asked before `window`, so the window is built in it)."""
    from onnxstudio.ui import i18n
    assert i18n.install("zh_CN") == "zh_CN"
    yield
    i18n.install("en")


def _items(scene, kind=None):
    return [i for i in scene.node_items.values() if kind is None or i.kind == kind]


def _io_item(scene, name):
    return next(i for i in scene.node_items.values()
                if i.kind in ("input", "output") and i.ref.value is not None and i.ref.value.name == name)


def _group_item(scene, last):
    return next(i for i in _items(scene, "group") if i.ref.group[-1] == last)


def assert_sized_for_what_they_draw(scene):
    """Each box is exactly the size its drawn title and lines ask for: not
    too small (text cut or wrapped), not too large (measured in English)."""
    from onnxstudio.ui.canvas.items import card_size
    from onnxstudio.ui.canvas.scene import IO_MIN_WIDTH
    for item in scene.node_items.values():
        width, height = card_size(item.title, item.lines)
        if item.kind in ("input", "output"):
            width = max(IO_MIN_WIDTH, width + height * 0.5)
        assert abs(item.rect.width() - width) < 0.6, (item.title, item.lines, item.rect.width(), width)
        assert abs(item.rect.height() - height) < 0.6, (item.title, item.lines, item.rect.height(), height)


def test_shown_label_translates_only_cores_words(zh_CN):
    from onnxstudio.core.layout.view import GROUP, INPUT, OP, OUTPUT, NodeLabel
    from onnxstudio.ui.canvas.words import group_path_text, shown_label
    assert shown_label(NodeLabel(INPUT, "x", ("float32[1, 3]", "not defined"))).lines == ("float32[1, 3]", "未定义")
    assert shown_label(NodeLabel(INPUT, "b", ("from enclosing graph",))).lines == ("来自上层图",)
    assert shown_label(NodeLabel(OUTPUT, "c", ("float32[2]", "constant"))).lines == ("float32[2]", "常量")
    group = shown_label(NodeLabel(GROUP, "⟨unused constants⟩", ("12 nodes", "Constant ×12")))
    assert group == NodeLabel(GROUP, "⟨未使用的常量⟩", ("12 个节点", "Constant ×12"))
    assert shown_label(NodeLabel(GROUP, "layer.3", ("1 nodes", "MatMul ×1"))).lines == ("1 个节点", "MatMul ×1")
    # Names from the model stay as they are, wherever they sit.
    op = NodeLabel(OP, "Constant", ("value = constant", "not defined"))
    assert shown_label(op) is op
    named = NodeLabel(INPUT, "not defined", ("float32[2]",))
    assert shown_label(named) is named
    scope = NodeLabel(GROUP, "12 nodes", ("constant",))
    assert shown_label(scope) is scope
    assert group_path_text(("enc", "⟨unused constants⟩")) == "enc/⟨未使用的常量⟩"


def test_shown_label_in_english_is_cores_label(qapp):
    from onnxstudio.core.layout.view import GROUP, INPUT, OUTPUT, NodeLabel
    from onnxstudio.ui.canvas.words import shown_label
    for label in (NodeLabel(INPUT, "x", ("float32[1, 3]", "not defined")),
                  NodeLabel(INPUT, "b", ("from enclosing graph",)),
                  NodeLabel(OUTPUT, "c", ("float32[2]", "constant")),
                  NodeLabel(GROUP, "⟨unused constants⟩", ("12 nodes", "Constant ×12"))):
        assert shown_label(label) == label


def test_the_canvas_in_chinese_shows_cores_words_in_chinese(qtbot, zh_CN, window, tmp_path):
    model = _words_model(tmp_path / "words.onnx")
    open_model(qtbot, window, model)
    scene = window.graph.scene
    missing = _io_item(scene, "x_missing")
    assert missing.lines[-1] == "未定义" and missing.ref.label.lines[-1] == "not defined"   # core keeps English
    constant = _io_item(scene, "c")
    assert constant.lines[-1] == "常量"
    unused = _group_item(scene, "⟨unused constants⟩")
    assert unused.title == "⟨未使用的常量⟩" and unused.lines == ["2 个节点", "Constant ×2"]
    assert "⟨未使用的常量⟩" in unused.toolTip()
    assert_sized_for_what_they_draw(scene)
    # The properties panel says what the box says.
    window.properties.show_group(unused.ref)
    text = window.properties.browser.toPlainText()
    assert "⟨未使用的常量⟩" in text and "2 个节点" in text and "nodes" not in text

    # Closed scope groups: "N 个节点", op lines as they are.
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    enc = _group_item(scene, "enc")
    assert enc.lines[0] == "2 个节点" and enc.ref.label.lines[0] == "2 nodes"
    assert set(enc.lines[1:]) == {"Add ×1", "Neg ×1"}
    assert_sized_for_what_they_draw(scene)

    # Open groups: each frame's title in Chinese, the frame as wide as its tab.
    from onnxstudio.ui.canvas.items import GroupTitle
    window.graph.expand_all()
    wait_idle(qtbot, window)
    titles = {path[-1]: frame.title for path, frame in scene.group_frames.items()}
    assert titles["enc"] == "enc  （2 个节点）"
    assert titles["⟨unused constants⟩"] == "⟨未使用的常量⟩  （2 个节点）"
    for frame in scene.group_frames.values():
        assert frame.rect.width() >= GroupTitle.tab_width(frame.title) - 0.5, frame.title
    assert_sized_for_what_they_draw(scene)

    # Inside the If: the value read from the main graph.
    if_node = next(n for n in window.model.graph.nodes if n.op_type == "If")
    window.graph.enter_graph(if_node.subgraphs()[0][1])
    wait_idle(qtbot, window)
    outer = _io_item(window.graph.scene, "b")
    assert outer.lines[-1] == "来自上层图" and outer.ref.label.lines[-1] == "from enclosing graph"
    assert_sized_for_what_they_draw(window.graph.scene)


def test_an_edit_keeps_the_chinese_boxes_it_does_not_move(qtbot, zh_CN, window, tmp_path):
    """After a structural edit the canvas keeps the items of unmoved boxes:
    it compares them with what it would draw (Chinese), not with core's
    English, which would rebuild every translated box after every edit."""
    from onnxstudio.core.edits import insert_on_edge
    open_model(qtbot, window, _words_model(tmp_path / "words.onnx"))
    scene = window.graph.scene
    translated = {"x_missing": _io_item(scene, "x_missing"), "c": _io_item(scene, "c"),
                  "unused": _group_item(scene, "⟨unused constants⟩")}
    rects = {k: i.scene_rect() for k, i in translated.items()}
    assert window.qdoc.apply(insert_on_edge(window.model, "y1", "Neg", name="/dec/neg_new"))
    wait_idle(qtbot, window)
    assert any(i.ref.node is not None and i.ref.node.name == "/dec/neg_new" for i in _items(scene, "op"))
    now = {"x_missing": _io_item(scene, "x_missing"), "c": _io_item(scene, "c"),
           "unused": _group_item(scene, "⟨unused constants⟩")}
    unmoved = [k for k in now if now[k].scene_rect() == rects[k]]
    assert unmoved, "every translated box moved: the test needs another edit"
    for k in unmoved:
        assert now[k] is translated[k], f"{k}: an unmoved box was rebuilt"
    assert now["x_missing"].lines[-1] == "未定义" and now["c"].lines[-1] == "常量"
    assert now["unused"].lines[0] == "2 个节点"
    assert_sized_for_what_they_draw(scene)


def test_the_demo_in_chinese(qtbot, zh_CN, window):
    """The demo: closed groups, open frames, and the If branch reading logits."""
    window.open_demo()
    wait_idle(qtbot, window)
    scene = window.graph.scene
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    groups = _items(scene, "group")
    assert groups and all(re.fullmatch(r"\d+ 个节点", g.lines[0]) for g in groups)
    assert_sized_for_what_they_draw(scene)
    window.graph.expand_all()
    wait_idle(qtbot, window)
    assert scene.group_frames and all("个节点）" in f.title and "nodes" not in f.title
                                      for f in scene.group_frames.values())
    if_node = next(n for n in window.model.graph.nodes if n.op_type == "If")
    window.graph.enter_graph(if_node.subgraphs()[0][1])
    wait_idle(qtbot, window)
    logits = _io_item(window.graph.scene, "logits")
    assert logits.lines[-1] == "来自上层图"
    assert not any("enclosing" in line or "defined" in line
                   for i in window.graph.scene.node_items.values() for line in i.lines)
    assert_sized_for_what_they_draw(window.graph.scene)


def test_the_canvas_in_english_shows_cores_labels(qtbot, window, tmp_path):
    from onnxstudio.ui import i18n
    assert i18n.install("en") == "en"
    open_model(qtbot, window, _words_model(tmp_path / "words.onnx"))
    scene = window.graph.scene
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    for item in scene.node_items.values():
        assert (item.title, item.lines) == (item.ref.label.title, list(item.ref.label.lines))
        assert not any(CJK.search(line) for line in item.lines)
    assert _io_item(scene, "x_missing").lines[-1] == "not defined"
    assert _io_item(scene, "c").lines[-1] == "constant"
    assert _group_item(scene, "enc").lines[0] == "2 nodes"
    unused = _group_item(scene, "⟨unused constants⟩")
    assert (unused.title, unused.lines[0]) == ("⟨unused constants⟩", "2 nodes")
    assert_sized_for_what_they_draw(scene)
    window.graph.expand_all()
    wait_idle(qtbot, window)
    titles = {path[-1]: frame.title for path, frame in scene.group_frames.items()}
    assert titles["enc"] == "enc  (2 nodes)"
    assert titles["⟨unused constants⟩"] == "⟨unused constants⟩  (2 nodes)"
    if_node = next(n for n in window.model.graph.nodes if n.op_type == "If")
    window.graph.enter_graph(if_node.subgraphs()[0][1])
    wait_idle(qtbot, window)
    assert _io_item(window.graph.scene, "b").lines[-1] == "from enclosing graph"


def _one_node_group_model(path):
    """Group "one" holds a single node, "two" holds two. (A scope of one
    node is no group; scope /one has two, but its Constant nothing reads
    goes to the ⟨unused constants⟩ group, leaving the Relu alone.)"""
    import onnx
    from onnx import TensorProto, helper
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="/one/relu"),
             helper.make_node("Constant", [], ["k1"], name="/one/k1", value_float=1.0),
             helper.make_node("Constant", [], ["k2"], name="k2", value_float=2.0),
             helper.make_node("Neg", ["a"], ["b"], name="/two/neg"),
             helper.make_node("Abs", ["b"], ["y"], name="/two/abs")]
    graph = helper.make_graph(nodes, "one", [helper.make_tensor_value_info("x", f, [1, 3])],
                              [helper.make_tensor_value_info("y", f, [1, 3])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _single_node_group_texts(qtbot, window, path):
    """(closed box's first line, open frame title) of /one and of /two."""
    open_model(qtbot, window, _one_node_group_model(path))
    scene = window.graph.scene
    window.graph.collapse_all()
    wait_idle(qtbot, window)
    one, two = _group_item(scene, "one"), _group_item(scene, "two")
    assert one.ref.label.lines[0] == "1 node" and two.ref.label.lines[0] == "2 nodes"    # core's English
    closed = (one.lines[0], two.lines[0])
    assert_sized_for_what_they_draw(scene)
    window.graph.expand_all()
    wait_idle(qtbot, window)
    titles = {path[-1]: frame.title for path, frame in scene.group_frames.items()}
    assert_sized_for_what_they_draw(scene)
    return closed, (titles["one"], titles["two"])


def test_a_single_node_group_reads_1_node_in_english(qtbot, window, tmp_path):
    from onnxstudio.ui import i18n
    assert i18n.install("en") == "en"
    closed, titles = _single_node_group_texts(qtbot, window, tmp_path / "one.onnx")
    assert closed == ("1 node", "2 nodes")
    assert titles == ("one  (1 node)", "two  (2 nodes)")


def test_a_single_node_group_in_chinese(qtbot, zh_CN, window, tmp_path):
    closed, titles = _single_node_group_texts(qtbot, window, tmp_path / "one.onnx")
    assert closed == ("1 个节点", "2 个节点")
    assert titles == ("one  （1 个节点）", "two  （2 个节点）")


def test_counts_read_singular_for_one(qapp):
    from onnxstudio.core.layout.labels import group_label
    from onnxstudio.ui import i18n
    from onnxstudio.ui.canvas.scene import group_title_text
    from onnxstudio.ui.canvas.words import node_count_line
    from collections import Counter
    assert group_label(("g",), Counter(Relu=1), 1).lines[0] == "1 node"
    assert group_label(("g",), Counter(Relu=5), 5).lines[0] == "5 nodes"
    assert i18n.install("en") == "en"
    assert [node_count_line(t) for t in ("1 node", "1 nodes", "0 nodes", "12 nodes")] == \
        ["1 node", "1 node", "0 nodes", "12 nodes"]
    assert group_title_text("g", 1) == "g  (1 node)" and group_title_text("g", "3") == "g  (3 nodes)"
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        assert [node_count_line(t) for t in ("1 node", "12 nodes")] == ["1 个节点", "12 个节点"]
        assert group_title_text("g", 1) == "g  （1 个节点）"
    finally:
        i18n.install("en")
