"""File > Compare With…: B opens beside A; choosing a difference shows it
on both canvases; selecting or entering a body on one side follows on the
other; statuses are drawn; an unreadable B is a message, not a window."""
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QMessageBox

from onnxstudio.core import save
from onnxstudio.core.diff import diff_models
from onnxstudio.ui.diff.compare_window import CompareWindow
from onnxstudio.ui.diff.status_marks import INSIDE, StatusFrame
from onnxstudio.ui.diff.sync import selected_object
from shared_models import SHARED_MODELS

from .models import edited_bert, rename_everything, with_bodies


def _settled(qtbot, win):
    qtbot.waitUntil(lambda: win.left.settled and win.right.settled and win.left.scene.view_model is not None
                    and win.right.scene.view_model is not None, timeout=120_000)


@pytest.fixture
def bodies_window(qtbot):
    a, b = with_bodies(0.1), rename_everything(with_bodies(0.3))
    win = CompareWindow(diff_models(a, b), "a.onnx", "b.onnx")
    qtbot.addWidget(win)
    win.show()
    _settled(qtbot, win)
    # It opens inside the body at the first difference: back to the main graphs.
    win.left.show_graph(a.graph)
    qtbot.waitUntil(lambda: win.left.level.graph is a.graph and win.right.level.graph is win.right.model.graph,
                    timeout=60_000)
    _settled(qtbot, win)
    return win, a, b


def _frames(panel) -> dict:
    return {key: child.status for key, item in panel.scene.node_items.items()
            for child in item.childItems() if isinstance(child, StatusFrame) and child.isVisible()}


def test_choosing_a_difference_inside_a_body_shows_it_on_both_sides(qtbot, bodies_window):
    win, a, b = bodies_window
    # The If holding the changed body is marked on both canvases before anything is opened.
    assert INSIDE in _frames(win.left).values() and INSIDE in _frames(win.right).values()
    rows = win.differences.list
    texts = [rows.item(i).text() for i in range(rows.count())]
    assert "alpha" in texts[0]
    assert all(t.startswith("graph input/output") for t in texts[1:4])     # renamed x0, cond and y
    # then every other node and value, all renamed
    assert texts[4:] and all(t.startswith(("renamed: ", "value renamed: ")) for t in texts[4:])
    qtbot.mouseClick(rows.viewport(), Qt.LeftButton, pos=rows.visualItemRect(rows.item(0)).center())
    _settled(qtbot, win)
    leaky_a = dict(a.graph.find_node("choose").subgraphs())["then_branch"].find_node("leaky")
    qtbot.waitUntil(lambda: selected_object(win.left) is leaky_a and
                    selected_object(win.right) is win.diff.partner_of_a(leaky_a), timeout=60_000)
    assert win.left.level.graph is leaky_a.graph
    assert win.right.level.graph is win.diff.partner_of_a(leaky_a).graph
    assert "changed" in _frames(win.left).values()
    text = win.properties.toPlainText()
    assert "alpha" in text and "0.1" in text and "0.3" in text


def test_selecting_on_one_side_follows_on_the_other(qtbot, bodies_window):
    win, a, b = bodies_window
    pre_b = win.diff.partner_of_a(a.graph.find_node("pre"))
    item = win.right.scene.item_for_node(pre_b)
    item.setSelected(True)
    qtbot.waitUntil(lambda: selected_object(win.left) is a.graph.find_node("pre"), timeout=30_000)
    # Entering a body on the right enters the partner's body on the left.
    choose_b = win.diff.partner_of_a(a.graph.find_node("choose"))
    win.right.enter_graph(dict(choose_b.subgraphs())["else_branch"])
    else_a = dict(a.graph.find_node("choose").subgraphs())["else_branch"]
    qtbot.waitUntil(lambda: win.left.level.graph is else_a and win.left.settled, timeout=30_000)


@pytest.mark.slow
def test_file_compare_with_opens_b_beside_a(qtbot, tmp_path, monkeypatch):
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    a, b, touched = edited_bert(SHARED_MODELS / "bert_small" / "model.onnx")
    save(a, tmp_path / "a.onnx")
    save(b, tmp_path / "b.onnx")
    (tmp_path / "broken.onnx").write_bytes(b"not a model")
    main = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(main)
    main.show()
    try:
        assert any(act.text().replace("&", "") == "Compare With…" for act in main.file_menu.actions())
        main.open_path(tmp_path / "a.onnx")
        qtbot.waitUntil(lambda: main.model is not None and main.graph.settled, timeout=120_000)
        from onnxstudio.ui.diff.compare_window import CompareAction
        action = CompareAction(main)
        action.start(str(tmp_path / "b.onnx"))
        qtbot.waitUntil(lambda: bool(action.open_windows), timeout=60_000)
        win = action.open_windows[0]
        _settled(qtbot, win)
        assert win.diff.matched == 290
        texts = [win.differences.list.item(i).text() for i in range(win.differences.list.count())]
        assert "added: inserted_relu (Relu)" in texts
        row = texts.index("added: inserted_relu (Relu)")
        qtbot.mouseClick(win.differences.list.viewport(), Qt.LeftButton,
                         pos=win.differences.list.visualItemRect(win.differences.list.item(row)).center())
        inserted = b.graph.find_node("inserted_relu")
        qtbot.waitUntil(lambda: selected_object(win.right) is not None
                        and selected_object(win.right).name == "inserted_relu", timeout=60_000)
        assert inserted is not None
        # B that cannot be read: a message naming it, no window.
        shown = []
        monkeypatch.setattr(QMessageBox, "warning", lambda parent, title, message: shown.append(message))
        action.start(str(tmp_path / "broken.onnx"))
        qtbot.waitUntil(lambda: bool(shown), timeout=30_000)
        assert "broken.onnx" in shown[0] and len(action.open_windows) == 1
    finally:
        main.shutdown()


@pytest.fixture
def one_change_window(qtbot):
    """A model and its copy with one attribute changed inside an If body."""
    a, b = with_bodies(0.1), with_bodies(0.3)
    win = CompareWindow(diff_models(a, b), "a.onnx", "b.onnx")
    qtbot.addWidget(win)
    win.show()
    _settled(qtbot, win)
    return win, a, b


def test_the_window_opens_at_the_first_difference(qtbot, one_change_window):
    win, a, b = one_change_window
    leaky_a = dict(a.graph.find_node("choose").subgraphs())["then_branch"].find_node("leaky")
    # Nothing is clicked: the first difference is chosen and both canvases go there.
    assert win.differences.list.currentRow() == 0
    qtbot.waitUntil(lambda: selected_object(win.left) is leaky_a and
                    selected_object(win.right) is win.diff.partner_of_a(leaky_a), timeout=60_000)
    assert "alpha" in win.properties.toPlainText()


def test_a_and_b_shows_a_hint_until_something_is_chosen_and_fits_its_content(qtbot):
    same = CompareWindow(diff_models(with_bodies(0.1), with_bodies(0.1)), "a.onnx", "b.onnx")
    qtbot.addWidget(same)
    same.show()
    _settled(qtbot, same)
    qtbot.wait(50)
    assert same.properties.toPlainText() == "Click a difference to see A and B side by side"
    # One line of hint: the dock does not take a fifth of the window.
    assert same.properties_dock.height() < same.height() // 10


def test_a_and_b_grows_to_show_the_chosen_pair(qtbot, one_change_window):
    win, _, _ = one_change_window
    qtbot.waitUntil(lambda: "alpha" in win.properties.toPlainText(), timeout=30_000)
    qtbot.wait(50)
    scroll = win.properties.verticalScrollBar()
    assert scroll.maximum() == 0                   # every row in view, none scrolled off
    assert win.properties_dock.height() <= win.height() // 3


def test_long_difference_texts_keep_their_end_and_have_the_whole_text_as_tooltip(qtbot, one_change_window):
    win, _, _ = one_change_window
    rows = win.differences.list
    item = rows.item(0)
    assert item.toolTip() == item.text() and item.text().endswith("attributes alpha")
    assert rows.textElideMode() == Qt.ElideMiddle
    win.resizeDocks([win.findChild(type(win.properties_dock), "Differences")], [120], Qt.Horizontal)
    qtbot.wait(50)
    # Too narrow for the text: elided in place, not scrolled off to the right.
    assert rows.fontMetrics().horizontalAdvance(item.text()) > rows.viewport().width()
    assert rows.horizontalScrollBar().maximum() == 0


def test_the_count_of_differences_is_singular_for_one(qtbot, one_change_window):
    win, _, _ = one_change_window
    assert win.differences.total == 1
    assert win.differences.count.text() == "1 difference"
    assert win.differences.count_text(3, 3) == "3 differences"
    assert win.differences.count_text(500, 1200) == "500 of 1200 differences"


def test_a_removed_node_is_chosen_on_a_and_b_shows_where_it_would_be(qtbot):
    """'removed: Tanh' (bert's pooler activation, whose Gemm's output took the
    graph output's name in B): A selects the Tanh, B shows and selects the
    Gemm it followed. B showed nothing new: the Tanh's input has no partner
    (renamed away), only its producer has. And B's Gemm, revealed after A's
    Tanh, made A select the Gemm too (selection follows partners)."""
    a, b, _ = edited_bert(SHARED_MODELS / "bert_small" / "model.onnx")
    win = CompareWindow(diff_models(a, b), "a.onnx", "b.onnx")
    qtbot.addWidget(win)
    win.resize(1400, 800)
    win.show()
    _settled(qtbot, win)
    tanh = a.graph.find_node("/m/pooler/activation/Tanh")
    gemm_b = win.sync.partner(win.left, a.graph.find_node("/m/pooler/dense/Gemm"))
    assert win.sync.partner(win.left, tanh) is None and gemm_b is not None
    win.go_to(tanh, None)
    qtbot.waitUntil(lambda: selected_object(win.right) is gemm_b, timeout=60_000)
    _settled(qtbot, win)
    assert selected_object(win.left) is tanh
    box = win.right.scene.item_for_node(gemm_b)
    assert win.right.view.visible_scene_rect().contains(box.scene_rect().center())
