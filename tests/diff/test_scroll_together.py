"""The compare window's two canvases scroll and zoom together: panning or
zooming one side puts the partner of the box in the middle of its view at
the same place of the other view, at the same zoom; nodes only one side has
are passed over; Scroll Together (Ctrl+L) switches it off and is remembered;
the follower's moves never drive the leader back; at the edge of its graph
the follower stops there; a node selected on one side and its partner are
lined up instead of the middle boxes."""
import math

import pytest
from onnx import TensorProto, helper
from PySide6.QtCore import QPointF, QSettings, Qt
from PySide6.QtTest import QTest

from onnxstudio.core import load_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.ui.canvas.items import NodeItem
from onnxstudio.ui.diff.compare_window import CompareWindow
from onnxstudio.ui.settings import Settings

from .models import with_bodies

LAYERS = 20


def ladder(extra: bool = False, fan: int = 0, alpha: float = 0.1, scoped: bool = False):
    """x -> LAYERS times (Relu, LeakyRelu) -> Add -> y. `extra`: a Neg after
    the sixth layer (only this side has it); `fan`: that many parallel Abs
    read x and are summed into the first layer's input (a wide top);
    `scoped`: each layer's nodes named in a scope of their own (a group)."""
    nodes, prev = [], "x"
    if fan:
        nodes += [helper.make_node("Abs", ["x"], [f"f{i}"], name=f"fan{i}") for i in range(fan)]
        nodes.append(helper.make_node("Sum", [f"f{i}" for i in range(fan)], ["fanned"], name="fan_sum"))
        prev = "fanned"
    for i in range(LAYERS):
        scope = f"/layer{i}/" if scoped else ""
        nodes.append(helper.make_node("Relu", [prev], [f"r{i}"], name=f"{scope}relu{i}"))
        nodes.append(helper.make_node("LeakyRelu", [prev], [f"l{i}"], name=f"{scope}leaky{i}",
                                      alpha=alpha if i == 7 else 0.1))
        nodes.append(helper.make_node("Add", [f"r{i}", f"l{i}"], [f"s{i}"], name=f"{scope}add{i}"))
        prev = f"s{i}"
        if extra and i == 5:
            nodes.append(helper.make_node("Neg", [prev], ["extra"], name="extra_neg"))
            prev = "extra"
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info(prev, TensorProto.FLOAT, [3])])
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _settings(tmp_path):
    return Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))


def _open(qtbot, a, b, settings):
    win = CompareWindow(diff_models(a, b), "a.onnx", "b.onnx", settings=settings)
    qtbot.addWidget(win)
    win.resize(1400, 800)
    win.show()
    qtbot.waitUntil(lambda: all(p.settled and p.scene.view_model is not None for p in (win.left, win.right)),
                    timeout=120_000)
    qtbot.wait(50)
    return win


@pytest.fixture
def window(qtbot, tmp_path):
    """A: the ladder; B: the ladder with a Neg after layer 5 (everything below
    it a rank lower) and another alpha on leaky7."""
    a, b = ladder(), ladder(extra=True, alpha=0.3)
    win = _open(qtbot, a, b, _settings(tmp_path))
    win.left.scene.clearSelection()
    win.right.scene.clearSelection()
    return win, a, b


def _box(panel, node) -> NodeItem:
    return panel.scene.item_for_node(node)


def _on_screen(panel, item) -> QPointF:
    """Where `item`'s middle is in its view (viewport pixels)."""
    return panel.view.viewportTransform().map(item.scene_rect().center())


def _apart(p: QPointF, q: QPointF) -> float:
    return math.hypot(p.x() - q.x(), p.y() - q.y())


def _centre_on(panel, node) -> None:
    """Pan `panel` (its scroll bars, as a drag does) so the box showing `node` is in the middle.
    A drag starts with the user's press on that canvas (here a Shift key
    press): that makes it the leading side, and ends the hold a choice in
    the list of differences puts on following (the window chooses the first
    difference when it opens)."""
    view = panel.view
    QTest.keyClick(view, Qt.Key_Shift)
    middle = QPointF(view.viewport().width() / 2, view.viewport().height() / 2)
    shift = _on_screen(panel, _box(panel, node)) - middle
    for bar, d in ((view.horizontalScrollBar(), shift.x()), (view.verticalScrollBar(), shift.y())):
        bar.setValue(bar.value() + round(d))


def _lined_up(win, node_a, tolerance: float = 3.0) -> bool:
    """A's box of `node_a` and B's box of its partner are at the same place of their views."""
    partner = win.diff.partner_of_a(node_a)
    return _apart(_on_screen(win.left, _box(win.left, node_a)),
                  _on_screen(win.right, _box(win.right, partner))) <= tolerance


def test_panning_a_puts_the_partner_of_its_middle_box_at_the_same_place_of_b(qtbot, window):
    win, a, b = window
    add15 = a.graph.find_node("add15")
    partner = win.diff.partner_of_a(add15)
    # B's add15 is a rank lower (the Neg above it): copying A's scroll bars would miss it.
    assert _box(win.right, partner).scene_rect().center().y() - _box(win.left, add15).scene_rect().center().y() > 50
    _centre_on(win.left, add15)
    qtbot.waitUntil(lambda: _lined_up(win, add15), timeout=60_000)
    middle = win.right.view.viewport().height() / 2
    assert abs(_on_screen(win.right, _box(win.right, partner)).y() - middle) <= 3
    # Off the middle too: a pan that leaves add3 nearest lines it up with B's add3.
    add3 = a.graph.find_node("add3")
    _centre_on(win.left, add3)
    win.left.view.verticalScrollBar().setValue(win.left.view.verticalScrollBar().value() + 40)
    qtbot.waitUntil(lambda: _lined_up(win, add3), timeout=60_000)
    # A new layout of B (here: the same level again) lines it up again.
    win.right.start_layout()
    qtbot.waitUntil(lambda: win.right.settled, timeout=60_000)
    qtbot.waitUntil(lambda: _lined_up(win, add3), timeout=60_000)


def test_a_node_clicked_on_a_keeps_its_place_and_its_partner_comes_beside_it(qtbot, window):
    win, a, b = window
    relu6 = a.graph.find_node("relu6")
    _centre_on(win.left, relu6)
    qtbot.waitUntil(lambda: _lined_up(win, relu6), timeout=60_000)
    # add5, a rank above relu6 in A but two in B (the Neg between them):
    # selecting it makes B show its partner (NavigationSync), and B puts it
    # where A shows add5, not where lining up relu6 would leave it.
    add5 = a.graph.find_node("add5")
    before = win.left.view.view_state()       # (scale, middle x, middle y)
    qtbot.mouseClick(win.left.view.viewport(), Qt.LeftButton, pos=_on_screen(win.left, _box(win.left, add5)).toPoint())
    qtbot.waitUntil(lambda: win.right.scene.selectedItems() == [_box(win.right, win.diff.partner_of_a(add5))],
                    timeout=60_000)
    qtbot.waitUntil(lambda: _lined_up(win, add5), timeout=60_000)
    assert not _lined_up(win, relu6, tolerance=30)
    # A stays where it was (the "A and B" dock grows to show the pair: the
    # canvases lose height around their middles).
    assert win.left.view.view_state() == pytest.approx(before, abs=1)


def test_zooming_either_side_zooms_the_other_and_the_side_used_leads(qtbot, window):
    win, a, b = window
    qtbot.keyClick(win.left.view, Qt.Key_Minus)
    qtbot.keyClick(win.left.view, Qt.Key_Minus)
    scale = win.left.view.current_scale()
    qtbot.waitUntil(lambda: abs(win.right.view.current_scale() - scale) < 1e-9, timeout=60_000)
    # Zoomed on B, A follows B.
    qtbot.keyClick(win.right.view, Qt.Key_Minus)
    scale = win.right.view.current_scale()
    assert abs(win.left.view.current_scale() - scale) > 1e-3
    qtbot.waitUntil(lambda: abs(win.left.view.current_scale() - scale) < 1e-9, timeout=60_000)


def test_a_node_only_one_side_has_is_passed_over(qtbot, window):
    win, a, b = window
    # A click on B's empty canvas: B leads from now on (and nothing is selected).
    qtbot.mouseClick(win.right.view.viewport(), Qt.LeftButton, pos=win.right.view.viewport().rect().topLeft()
                     + QPointF(5, 5).toPoint())
    extra = b.graph.find_node("extra_neg")
    assert win.diff.matching.nodes_back.get(extra) is None
    _centre_on(win.right, extra)
    # The oracle: B's box nearest the middle whose node A has too, over every box.
    middle = win.right.view.visible_scene_rect().center()
    paired = [item for item in win.right.scene.node_items.values()
              if item.ref.node is not None and win.diff.matching.nodes_back.get(item.ref.node) is not None]
    nearest = min(paired, key=lambda item: _apart(item.scene_rect().center(), middle))
    node_a = win.diff.matching.nodes_back[nearest.ref.node]
    qtbot.waitUntil(lambda: _lined_up(win, node_a), timeout=60_000)


def test_scroll_together_off_leaves_b_where_it_is_and_is_remembered(qtbot, window, tmp_path):
    win, a, b = window
    assert win.scroll_together.isChecked()
    qtbot.keyClick(win, Qt.Key_L, Qt.ControlModifier)
    assert not win.scroll_together.isChecked()
    assert _settings(tmp_path).scroll_together() is False
    before = (win.right.view.horizontalScrollBar().value(), win.right.view.verticalScrollBar().value(),
              win.right.view.current_scale())
    add15 = a.graph.find_node("add15")
    _centre_on(win.left, add15)
    qtbot.keyClick(win.left.view, Qt.Key_Minus)
    qtbot.wait(100)
    assert (win.right.view.horizontalScrollBar().value(), win.right.view.verticalScrollBar().value(),
            win.right.view.current_scale()) == before
    # Switched on again, B joins A at once.
    win.scroll_together.trigger()
    assert _settings(tmp_path).scroll_together() is True
    qtbot.waitUntil(lambda: _lined_up(win, add15), timeout=60_000)


def test_a_window_opened_after_switching_off_starts_off(qtbot, tmp_path):
    settings = _settings(tmp_path)
    settings.set_scroll_together(False)
    win = _open(qtbot, ladder(), ladder(extra=True), _settings(tmp_path))
    assert not win.scroll_together.isChecked() and not win.scrolling.enabled


def test_a_pan_moves_b_once_and_never_back(qtbot, window):
    win, a, b = window
    moves = {"a": 0, "b": 0}
    win.left.view.viewport_changed.connect(lambda: moves.__setitem__("a", moves["a"] + 1))
    win.right.view.viewport_changed.connect(lambda: moves.__setitem__("b", moves["b"] + 1))
    follows = win.scrolling.follows
    bar = win.left.view.verticalScrollBar()
    QTest.keyClick(win.left.view, Qt.Key_Shift)  # the user's press that starts a drag
    bar.setValue(bar.value() + 120)
    panned = moves["a"]
    assert panned and moves["b"] == 0           # B follows on the next turn of the event loop
    qtbot.wait(300)
    assert win.scrolling.follows == follows + 1
    assert moves["a"] == panned                 # B's move did not drive A
    assert 1 <= moves["b"] <= 4                 # its scroll bar and the minimap's note


def test_at_the_edge_of_its_graph_b_stops_there(qtbot, tmp_path):
    """A has three Abs and a Sum above the ladder: at A's top, the partners
    of A's middle boxes are at B's top, which B cannot scroll above."""
    a, b = ladder(fan=3), ladder()
    win = _open(qtbot, a, b, _settings(tmp_path))
    win.left.scene.clearSelection()
    add18 = a.graph.find_node("add18")
    _centre_on(win.left, add18)
    # A is wider (the fan), B narrower than its view: lined up in height only.
    box_b = _box(win.right, win.diff.partner_of_a(add18))
    qtbot.waitUntil(lambda: abs(_on_screen(win.left, _box(win.left, add18)).y()
                                - _on_screen(win.right, box_b).y()) <= 3, timeout=60_000)
    win.left.view.verticalScrollBar().setValue(win.left.view.verticalScrollBar().minimum())
    bar = win.right.view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.value() == bar.minimum(), timeout=60_000)
    assert win.right.view.current_scale() == win.left.view.current_scale()


def test_inside_bodies_the_two_follow_each_other(qtbot, tmp_path):
    a, b = with_bodies(0.1), with_bodies(0.3)
    win = _open(qtbot, a, b, _settings(tmp_path))
    leaky = dict(a.graph.find_node("choose").subgraphs())["then_branch"].find_node("leaky")
    # It opens at the difference, inside the then-branch on both sides.
    qtbot.waitUntil(lambda: win.left.level.graph is leaky.graph
                    and win.right.level.graph is win.diff.partner_of_a(leaky).graph, timeout=60_000)
    win.left.scene.clearSelection()
    qtbot.keyClick(win.left.view, Qt.Key_Plus)
    bar = win.left.view.verticalScrollBar()
    bar.setValue(bar.value() + 30)
    qtbot.waitUntil(lambda: abs(win.right.view.current_scale() - win.left.view.current_scale()) < 1e-9
                    and _lined_up(win, leaky), timeout=60_000)


def test_collapsed_groups_line_up_with_their_partners(qtbot, tmp_path):
    a, b = ladder(scoped=True), ladder(scoped=True, extra=True)
    win = _open(qtbot, a, b, _settings(tmp_path))
    for panel in (win.left, win.right):
        panel.collapse_all()
    # Every node in a group but B's extra Neg, which has no scope.
    qtbot.waitUntil(lambda: all(p.settled and not any(i.kind == "op" and i.ref.node.name != "extra_neg"
                                                      for i in p.scene.node_items.values())
                                for p in (win.left, win.right)), timeout=60_000)
    win.left.scene.clearSelection()
    relu15 = a.graph.find_node("/layer15/relu15")
    box_a = _box(win.left, relu15)
    assert box_a.kind == "group"          # layer15's box: nothing but groups and the graph's input and output
    box_b = _box(win.right, win.diff.partner_of_a(relu15))
    assert box_b.kind == "group" and box_b is not _box(win.right, win.diff.partner_of_a(a.graph.find_node(
        "/layer14/relu14")))
    _centre_on(win.left, relu15)
    qtbot.waitUntil(lambda: _apart(_on_screen(win.left, box_a), _on_screen(win.right, box_b)) <= 3, timeout=60_000)


def test_a_scroll_together_setting_that_is_not_true_or_false_is_ignored(tmp_path):
    raw = QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)
    raw.setValue("compare/scroll_together", "sometimes")
    raw.sync()
    settings = _settings(tmp_path)
    assert settings.scroll_together() is True
    assert any("compare/scroll_together" in problem for problem in settings.problems)
    assert not any(".invalid" in problem for problem in settings.problems)      # the file is still ours


def test_a_difference_chosen_in_the_list_stays_in_view_on_its_side(qtbot, window):
    """Choosing "added: extra_neg" shows the Neg on B and, on A, the node
    before where it would be. Lining B up with A's node would move the Neg
    (which has no partner) out of view: after a choice in the list neither
    side follows until the user touches a canvas again."""
    win, a, b = window
    _centre_on(win.left, a.graph.find_node("add18"))      # both sides far from the Neg
    qtbot.waitUntil(lambda: _lined_up(win, a.graph.find_node("add18")), timeout=60_000)
    extra = b.graph.find_node("extra_neg")
    win.go_to(None, extra)
    qtbot.waitUntil(lambda: win.right.scene.selectedItems() == [_box(win.right, extra)], timeout=60_000)
    qtbot.wait(200)         # the follows a reveal would start have had their turn
    # B shows the Neg where its reveal put it, at the middle height (across,
    # Qt centres a graph narrower than its view); lined up with A's add5
    # (shown for it on A) it sat 90 px off.
    middle = win.right.view.viewport().rect().center().y()
    assert abs(_on_screen(win.right, _box(win.right, extra)).y() - middle) <= 8
    # The user pans A: following starts again.
    add15 = a.graph.find_node("add15")
    qtbot.mouseClick(win.left.view.viewport(), Qt.LeftButton, pos=win.left.view.viewport().rect().topLeft()
                     + QPointF(5, 5).toPoint())
    _centre_on(win.left, add15)
    qtbot.waitUntil(lambda: _lined_up(win, add15), timeout=60_000)
