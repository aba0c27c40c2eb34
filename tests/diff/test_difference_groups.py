"""The list of differences between two unrelated models starts with what a
reader looks for: the models' inputs and outputs, then the nodes that
compute; many added (or removed) Constant nodes are one row that lists
them when clicked (bert_small against ppocr_v4_det: 342 added Constant
rows came first before). Nothing is hidden: the count is every difference
and every node is reachable from the list. The window says at its top when
the models share almost nothing; an edited copy gets no such line."""
from types import SimpleNamespace

from PySide6.QtCore import QSettings, Qt

from onnxstudio.core import load
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.model_diff import IoDiff
from onnxstudio.ui.diff.compare_window import CompareWindow
from onnxstudio.ui.diff.difference_list import DIFFERENCE, GROUP, HEAD, KIND, PAGE, DifferenceList

from .test_unrelated_models import BERT, PPOCR, edited_copy


def _texts(rows) -> list:
    return [rows.list.item(i).text() for i in range(rows.list.count())]


def _every_row(rows) -> None:
    """Page through and list every group's members."""
    while not rows.more.isHidden():
        rows.more.click()
    heads = [rows.list.item(i) for i in range(rows.list.count()) if rows.list.item(i).data(KIND) == HEAD]
    for head in heads:
        rows._clicked(head)
        while True:
            more = [rows.list.item(i) for i in range(rows.list.count()) if rows.list.item(i).data(KIND) == "more"]
            if not more:
                break
            rows._clicked(more[0])


def _chosen(rows) -> list:
    return [rows.list.item(i).data(DIFFERENCE) for i in range(rows.list.count())
            if rows.list.item(i).data(DIFFERENCE) is not None]


def test_unrelated_models_list_inputs_outputs_and_computing_nodes_first(qtbot):
    diff = diff_models(load(BERT), load(PPOCR))
    rows = DifferenceList(diff)
    qtbot.addWidget(rows)
    texts = _texts(rows)
    assert texts[0] == "graph input/output added: x"
    assert all(t.startswith("graph input/output") for t in texts[:7])
    first_constant = next(i for i, t in enumerate(texts) if "Constant" in t)
    assert texts[first_constant] == "▸ 342 Constant nodes added in B"
    assert first_constant == 7 + 330           # after the inputs, outputs and B's 330 computing nodes
    # 1,001 differences of the graphs and one of the model: opset ai.onnx 18 -> 12
    assert rows.total == 1002 and rows.count.text() == "841 of 1002 differences"
    _every_row(rows)
    assert rows.count.text() == "1002 differences"
    shown = _chosen(rows)
    assert len(shown) == 1002 and shown[-1] == (None, None)     # the opset's row: no node to show
    assert _texts(rows)[-1] == "opset import ai.onnx: 18 → 12"
    assert {b for a, b in shown if b is not None and a is None} >= set(diff.added)
    assert {a for a, b in shown if a is not None and b is None} >= set(diff.removed)


def _constant(i):
    return SimpleNamespace(name=f"c{i}", op_type="Constant", domain="", graph=None)


def _only_added(nodes):
    return SimpleNamespace(rewrites=[], changed=[], added=nodes, removed=[], weights_changed=[], weights_added=[],
                           weights_removed=[], inputs=IoDiff(), outputs=IoDiff(), renamed_nodes=[], renamed_values=[],
                           model_fields=[], weights_not_compared=[], nodes_not_compared=[])


def test_a_big_group_lists_a_page_at_a_time_and_hides_again(qtbot):
    rows = DifferenceList(_only_added([_constant(i) for i in range(1200)]))
    qtbot.addWidget(rows)
    assert _texts(rows) == ["▸ 1200 Constant nodes added in B"]
    head = rows.list.item(0)
    qtbot.mouseClick(rows.list.viewport(), Qt.LeftButton, pos=rows.list.visualItemRect(head).center())
    assert rows.list.count() == 1 + PAGE + 1
    assert head.text() == "▾ 1200 Constant nodes added in B"
    assert rows.list.item(1).text() == "    added: c0 (Constant)"
    assert rows.list.item(PAGE + 1).text() == "    … 700 more: click to list them"
    more = rows.list.item(PAGE + 1)
    qtbot.mouseClick(rows.list.viewport(), Qt.LeftButton, pos=rows.list.visualItemRect(more).center())
    assert rows.list.count() == 1 + 2 * PAGE + 1
    assert rows.list.item(2 * PAGE).text() == f"    added: c{2 * PAGE - 1} (Constant)"
    assert rows.list.item(2 * PAGE + 1).text() == "    … 200 more: click to list them"
    # Hidden again with one click: only its own row is left.
    qtbot.mouseClick(rows.list.viewport(), Qt.LeftButton, pos=rows.list.visualItemRect(head).center())
    assert _texts(rows) == ["▸ 1200 Constant nodes added in B"]
    assert rows.count.text() == "1200 differences"


def test_enter_lists_a_group_and_a_member_is_chosen_like_any_row(qtbot):
    nodes = [_constant(i) for i in range(6)]
    rows = DifferenceList(_only_added(nodes))
    qtbot.addWidget(rows)
    chosen = []
    rows.chosen.connect(lambda a, b: chosen.append((a, b)))
    rows.show()
    rows.list.setCurrentRow(0)
    assert chosen == []                 # the group's own row is no difference to show
    qtbot.keyClick(rows.list, Qt.Key_Return)
    assert rows.list.count() == 7 and rows.list.item(3).data(GROUP) is rows.list.item(0).data(GROUP)
    rows.list.setCurrentRow(3)
    assert chosen == [(None, nodes[2])]


def test_a_handful_of_constants_are_rows_of_their_own(qtbot):
    rows = DifferenceList(_only_added([_constant(i) for i in range(4)]))
    qtbot.addWidget(rows)
    assert _texts(rows) == [f"added: c{i} (Constant)" for i in range(4)]


def _settled(qtbot, win):
    qtbot.waitUntil(lambda: win.left.settled and win.right.settled and win.left.scene.view_model is not None
                    and win.right.scene.view_model is not None, timeout=120_000)


def test_the_window_says_when_the_models_share_almost_nothing(qtbot):
    win = CompareWindow(diff_models(load(BERT), load(PPOCR)), "bert_small", "ppocr_v4_det")
    qtbot.addWidget(win)
    win.show()
    _settled(qtbot, win)
    assert win.unrelated is not None and win.unrelated.isVisible()
    assert win.unrelated.text() == ("These models share 0 of A's 227 and B's 330 computing nodes: they may not be "
                                    "versions of one model.")
    a, b = edited_copy(BERT)
    related = CompareWindow(diff_models(a, b), "bert_small", "edited")
    qtbot.addWidget(related)
    related.show()
    _settled(qtbot, related)
    assert related.unrelated is None
    # The saved file against its edits (Show Changes Since Save) is one model, whatever the edits did.
    since_save = CompareWindow(diff_models(load(BERT), load(PPOCR)), "saved", "edited", one_model=True)
    qtbot.addWidget(since_save)
    assert since_save.unrelated is None
    assert _texts(related.differences) == [
        "/m/encoder/layer.0/attention/self/Softmax: attributes axis",
        "graph input/output pooler_output: float[1,256] → /m/pooler/dense/Gemm_output_0: float[1,256]",
        "removed: /m/pooler/activation/Tanh (Tanh)"]


def test_repeated_declarations_are_rows(qtbot):
    from .test_repeated_declarations import X, X_INT, Y, W, _model
    rows = DifferenceList(diff_models(_model([X, X_INT], [Y, W]), _model([X], [Y, W])))
    qtbot.addWidget(rows)
    assert _texts(rows) == ["graph input/output declared again in A only: X (position 1)"]



def test_compare_with_opens_a_model_that_shares_nothing(qtbot, tmp_path):
    """File > Compare With… on bert_small and ppocr_v4_det opens the window
    (it said 'nothing in common' and showed nothing before)."""
    from onnxstudio.ui.diff.compare_window import CompareAction
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    main = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(main)
    main.show()
    try:
        import shutil
        shutil.copy(BERT, tmp_path / "a.onnx")          # opened, so a copy: shared models stay untouched
        main.open_path(tmp_path / "a.onnx")
        qtbot.waitUntil(lambda: main.model is not None and main.graph.settled, timeout=120_000)
        action = CompareAction(main)
        action.start(str(PPOCR))
        qtbot.waitUntil(lambda: bool(action.open_windows), timeout=60_000)
        win = action.open_windows[0]
        _settled(qtbot, win)
        assert win.diff.matched == 0 and win.unrelated is not None
        assert win.differences.list.item(0).text() == "graph input/output added: x"
    finally:
        main.shutdown()
