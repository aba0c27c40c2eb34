"""Right-click and double-click on a box offer the same bodies in the same
words: the context menu of a call of a model-local function said "Open
function body" where double-click's menu said "Open function AddRelu" (each
gesture built its own list)."""
from __future__ import annotations

from test_function_body_call_types import write_two_calls
from viewer_helpers import open_model
from onnxstudio.ui.canvas.actions import bodies_of, context_menu


def _entries(menu) -> list[str]:
    return [a.text() for a in menu.actions() if a.text().startswith("Open ")]


def test_context_menu_names_the_function_as_double_click_does(qtbot, window, tmp_path):
    open_model(qtbot, window, write_two_calls(tmp_path / "calls.onnx", [7]))
    panel = window.graph
    call = next(n for n in window.model.graph.nodes if n.name == "call_a")
    item = panel.scene.item_for_node(call)
    menu = context_menu(panel, item)
    names = [name for name, _graph in bodies_of(panel, item.ref)]
    assert names == ["function AddRelu"]
    assert _entries(menu) == ["Open function AddRelu"]
    menu.actions()[[a.text() for a in menu.actions()].index("Open function AddRelu")].trigger()
    body = window.model.functions.snapshot()[("local", "AddRelu", "")].graph
    assert panel.level.graph is body
