"""A model with one weight whose external data reference leaves the
model's folder opens in the app (it was refused whole): the Problems dock
names the initializer, and selecting it shows why its data cannot be read
(no statistics, no "not read yet"), in the Properties summary and in the
tensor editor. The file outside is never read."""
from __future__ import annotations

from edit_helpers import open_editable

from onnxstudio.core.check import check

from unreadable_models import constant_without_location, weight_outside


def _rows(problems) -> list:
    tree = problems.tree
    return [tuple(tree.topLevelItem(i).text(c) for c in range(tree.columnCount()))
            for i in range(tree.topLevelItemCount())]


def _opens_with_the_finding_pinned(qtbot, window, path, place: str, shown: str) -> None:
    """`path` opens in the window, and the Problems dock shows the
    checker's tensor.external-location finding, whose path is `place`, with
    the checker's words and a cell naming `shown`."""
    open_editable(qtbot, window, path)
    want = [d for d in check(path) if d.code == "tensor.external-location"]
    assert [d.path for d in want] == [place]
    problems = window.edit_actions.problems
    qtbot.waitUntil(lambda: any(r[2] == "tensor.external-location" for r in _rows(problems)), timeout=10_000)
    row = next(r for r in _rows(problems) if r[2] == "tensor.external-location")
    assert want[0].message in row and any(shown in cell for cell in row), row


def test_it_opens_and_the_problems_dock_names_the_initializer(qtbot, window, tmp_path):
    path = weight_outside(tmp_path)
    _opens_with_the_finding_pinned(qtbot, window, path, 'graph/initializer "w"', 'initializer "w"')
    assert [n.name for n in window.model.graph.nodes] == ["add"]


def test_an_attribute_tensor_opens_and_the_problems_dock_names_the_attribute(qtbot, window, tmp_path):
    path = constant_without_location(tmp_path)
    _opens_with_the_finding_pinned(qtbot, window, path, 'graph/node[0] Constant "k"/attribute "value"',
                                   'Constant "k"/attribute "value"')
    window.properties.show_value(window.model.graph.get_value("k"))     # shown like an initializer
    text = window.properties.browser.toPlainText()
    assert 'cannot be read: graph/node[0] Constant "k"/attribute "value": external data without a' in text


def test_selecting_it_says_why_its_data_cannot_be_read(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui.panels import summaries as properties, tensor_editor
    monkeypatch.setattr(properties, "STATS_NOW_BYTES", 1)      # w counts as large: no "not read yet" either
    monkeypatch.setattr(tensor_editor, "LOAD_NOW_BYTES", 1)
    open_editable(qtbot, window, weight_outside(tmp_path))
    window.properties.show_value(window.model.graph.get_value("w"))
    text = window.properties.browser.toPlainText()
    assert "cannot be read: tensor 'w': external data location '../secret.bin' leaves the model's folder" in text
    assert "not read yet" not in text and "min" not in text.split()
    editor = window.properties.tensor_editor
    assert editor.array is None
    assert editor.message.text().startswith("w: cannot read the values: tensor 'w': ")
    assert "not changed" not in editor.message.text()       # nothing was being changed
