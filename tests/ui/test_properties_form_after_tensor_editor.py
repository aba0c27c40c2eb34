"""The Properties form keeps room for its rows around the tensor editor
(issue 25): opening an initializer's values gave the form a fixed 14 % of
the dock (the value form's rows hidden behind a scroll bar), and closing the
editor left the form whatever share Qt handed out. Now the form gets what
its rows need (up to a third beside the editor, half after it), and closing
the editor gives the summary and form their room back."""
from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from edit_helpers import open_conv_model


def _click(qtbot, window, item):
    view = window.graph.view
    at = item.sceneBoundingRect().center()
    view.centerOn(at)
    qtbot.mouseClick(view.viewport(), Qt.LeftButton, pos=view.mapFromScene(at))


def _all_rows_shown(props) -> bool:
    """The form under the summary needs no vertical scrolling."""
    return props.editor_area.verticalScrollBar().maximum() == 0


@pytest.fixture
def shots(request):
    """A folder to keep the screenshots in (ONNXSTUDIO_SHOTS), else none."""
    import os
    import pathlib
    folder = os.environ.get("ONNXSTUDIO_SHOTS")
    return pathlib.Path(folder) if folder else None


def test_form_keeps_room_for_its_rows_around_the_tensor_editor(qtbot, window, tmp_path, shots):
    window.resize(1600, 1000)
    open_conv_model(qtbot, window, tmp_path)
    qtbot.waitUntil(lambda: window.graph.settled, timeout=20_000)
    props = window.properties
    nodes = {n.name: n for n in window.model.graph.nodes}

    def shot(name):
        if shots is not None:
            props.grab().save(str(shots / name))

    _click(qtbot, window, window.graph.scene.item_for_node(nodes["relu1"]))
    qtbot.waitUntil(lambda: getattr(props.editor, "node", None) is nodes["relu1"])
    # The weight W in the tensor editor, opened from its link in the summary.
    props.show_value(window.model.graph.get_value("W"))
    qtbot.waitUntil(lambda: props.tensor_editor is not None)
    qtbot.wait(50)
    shot("properties_tensor_editor_open.png")
    assert _all_rows_shown(props), props.splitter.sizes()
    assert props.splitter.sizes()[3] >= sum(props.splitter.sizes()) // 2     # the values keep most
    # Another node: the editor closes, the form has room for all its rows.
    _click(qtbot, window, window.graph.scene.item_for_node(nodes["sig1"]))
    qtbot.waitUntil(lambda: getattr(props.editor, "node", None) is nodes["sig1"] and props.tensor_editor is None)
    qtbot.wait(50)
    shot("properties_after_tensor_editor.png")
    assert _all_rows_shown(props), props.splitter.sizes()


def test_a_form_shown_the_first_time_has_room_for_its_rows(qtbot, window, tmp_path):
    """Before the tensor editor was ever used, the first node form got the
    ~60 px Qt's first split left under a tall summary (QA: only "name" of a
    LayerNormalization's form visible, epsilon behind a scroll bar)."""
    window.resize(1500, 950)
    open_conv_model(qtbot, window, tmp_path)
    qtbot.waitUntil(lambda: window.graph.settled, timeout=20_000)
    props = window.properties
    nodes = {n.name: n for n in window.model.graph.nodes}
    conv = next(n for n in nodes.values() if n.op_type == "Conv")
    _click(qtbot, window, window.graph.scene.item_for_node(conv))
    qtbot.waitUntil(lambda: getattr(props.editor, "node", None) is conv)
    qtbot.wait(50)
    assert _all_rows_shown(props), props.splitter.sizes()
    # A split the user dragged wider for the form stays as it is.
    sizes = props.splitter.sizes()
    wider = [sizes[0] - 40, sizes[1] + 40] + sizes[2:]
    props.splitter.setSizes(wider)
    _click(qtbot, window, window.graph.scene.item_for_node(nodes["relu1"]))
    qtbot.waitUntil(lambda: getattr(props.editor, "node", None) is nodes["relu1"])
    qtbot.wait(50)
    assert props.splitter.sizes()[1] >= wider[1] - 2
