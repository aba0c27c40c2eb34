"""A node whose op_type the file holds as invalid UTF-8 (a damaged file)
opens with U+FFFD in its place; the Problems dock lists both findings on
it, the damaged text and the unknown operator, in the words of
`onnxstudio check`, and badges the node; setting the op_type anew clears
both."""
from __future__ import annotations

from edit_helpers import open_editable
from viewer_helpers import wait_idle

from onnxstudio.core.check import check
from onnxstudio.core.edits import SetNodeField


def _write_damaged_op_type(path) -> str:
    """x -> Relu "act" -> y, its op_type's last byte replaced by 0xcc."""
    from onnx import TensorProto, helper
    node = helper.make_node("Relu", ["x"], ["y"], name="act")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    assert data.count(b"Relu") == 1
    path.write_bytes(data.replace(b"Relu", b"Rel\xcc"))
    return str(path)


def _rows(problems) -> list:
    tree = problems.tree
    return [tuple(tree.topLevelItem(i).text(c) for c in range(tree.columnCount()))
            for i in range(tree.topLevelItemCount())]


def test_a_damaged_op_type_is_listed_and_badged(qtbot, window, tmp_path):
    path = _write_damaged_op_type(tmp_path / "damaged.onnx")
    open_editable(qtbot, window, path)
    problems = window.edit_actions.problems
    node = window.model.graph.nodes[0]
    assert node.op_type == "Rel\ufffd"
    want = {d.code: d.message for d in check(path)}
    assert set(want) == {"text.invalid-utf8", "node.unknown-op"}
    qtbot.waitUntil(lambda: {r[2] for r in _rows(problems)} >= set(want), timeout=10_000)
    for code, message in want.items():
        row = next(r for r in _rows(problems) if r[2] == code)
        assert message in row, row
    wait_idle(qtbot, window)
    qtbot.waitUntil(lambda: window.graph.scene.item_for_node(node).badge is not None, timeout=60_000)
    window.qdoc.apply(SetNodeField("act", "op_type", "Relu"))
    qtbot.waitUntil(lambda: not {r[2] for r in _rows(problems)} & set(want), timeout=10_000)


def test_a_save_in_place_ends_the_damaged_text_finding(qtbot, window, tmp_path):
    """The save writes U+FFFD where the file had invalid UTF-8: after it the
    file is not damaged, and the Problems dock stops saying so (it kept the
    finding, read from the source messages the IR keeps). The unknown
    operator stays: the saved file has it too."""
    path = _write_damaged_op_type(tmp_path / "damaged.onnx")
    open_editable(qtbot, window, path)
    problems = window.edit_actions.problems
    qtbot.waitUntil(lambda: "text.invalid-utf8" in {r[2] for r in _rows(problems)}, timeout=10_000)
    window.document.save()
    assert {d.code for d in check(path)} == {"node.unknown-op"}
    qtbot.waitUntil(lambda: {r[2] for r in _rows(problems)} == {"node.unknown-op"}, timeout=10_000)
    assert {d.code for d in window.document.diagnostics} == {"node.unknown-op"}
