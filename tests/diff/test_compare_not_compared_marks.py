"""The compare window's canvases mark the nodes that read values which were
not compared (a weight, or a Constant's tensor, whose data file is missing
on a side): the difference list says "values not compared" there, and an
unmarked box looked the same. The frame is dotted and blue, never the
frame of a difference; a node that differs keeps its own; the legend names
it only when something was not compared."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import load
from onnxstudio.core.diff import CHANGED, diff_models
from onnxstudio.ui.diff.compare_window import CompareWindow
from onnxstudio.ui.diff.status_marks import NOT_COMPARED, Legend, StatusFrame


def _model(folder, *, readable: bool, as_constant: bool = False, relu_alpha: float | None = None,
           scope: str = ""):
    """x + w -> s -> (LeakyRelu with `relu_alpha`, else Relu) -> y -> (* v) -> z;
    w (float[4]) in w.bin beside the model, which is written only when
    `readable`, or with `as_constant` a Constant node's value stored there.
    With `scope`, the Add and the Relu are named in that scope (a group on
    the canvas) and the Mul in another, with a Neg after it."""
    folder.mkdir(parents=True)
    w = TensorProto(name="" if as_constant else "w", data_type=TensorProto.FLOAT, dims=[4],
                    data_location=TensorProto.EXTERNAL)
    e = w.external_data.add()
    e.key, e.value = "location", "w.bin"
    if readable:
        (folder / "w.bin").write_bytes(np.ones(4, np.float32).tobytes())
    nodes = [helper.make_node("Constant", [], ["w"], name="const", value=w)] if as_constant else []
    nodes.append(helper.make_node("Add", ["x", "w"], ["s"], name="add"))
    if relu_alpha is None:
        nodes.append(helper.make_node("Relu", ["s"], ["y"], name="relu"))
    else:
        nodes.append(helper.make_node("LeakyRelu", ["s"], ["y"], name="relu", alpha=relu_alpha))
    # A second weight, readable on both sides and the same: its reader stays unmarked.
    inits = [numpy_helper.from_array(np.full(4, 2, np.float32), "v")]
    nodes.append(helper.make_node("Mul", ["y", "v"], ["z"], name="mul"))
    if scope:
        for n in nodes:
            n.name = f"/{scope}/{n.name}" if n.name in ("add", "relu") else f"/tail/{n.name}"
        nodes.append(helper.make_node("Neg", ["z"], ["n"], name="/tail/neg"))
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [4]) for n in ("x", "n" if scope else "z")]
    g = helper.make_graph(nodes, "g", info[:1], info[1:], ([] if as_constant else [w]) + inits)
    path = folder / "model.onnx"
    path.write_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    return path


def _window(qtbot, a, b):
    win = CompareWindow(diff_models(load(a), load(b)), "a.onnx", "b.onnx")
    qtbot.addWidget(win)
    win.show()
    qtbot.waitUntil(lambda: win.left.settled and win.right.settled and win.left.scene.view_model is not None
                    and win.right.scene.view_model is not None, timeout=120_000)
    return win


def _frames(panel) -> dict:
    """{node name: status of its visible frame}."""
    vm = panel.scene.view_model
    names = {box: vnode.node.name for box, vnode in vm.nodes.items() if vnode.node is not None}
    return {names.get(key, key): child.status for key, item in panel.scene.node_items.items()
            for child in item.childItems() if isinstance(child, StatusFrame) and child.isVisible()}


@pytest.mark.parametrize("unreadable", ["a", "b"])
def test_the_reader_of_a_weight_not_compared_is_marked_on_both_sides(qtbot, tmp_path, unreadable):
    win = _window(qtbot, _model(tmp_path / "a", readable=unreadable != "a"),
                  _model(tmp_path / "b", readable=unreadable != "b"))
    assert win.diff.uncertain and not win.diff.differs
    assert _frames(win.left) == {"add": NOT_COMPARED}
    assert _frames(win.right) == {"add": NOT_COMPARED}
    assert NOT_COMPARED in win.findChild(Legend).swatches


def test_a_constant_not_compared_and_its_reader_are_marked(qtbot, tmp_path):
    win = _window(qtbot, _model(tmp_path / "a", readable=False, as_constant=True),
                  _model(tmp_path / "b", readable=True, as_constant=True))
    for panel in (win.left, win.right):
        frames = _frames(panel)
        assert frames.get("add") == NOT_COMPARED and "relu" not in frames and "mul" not in frames
        assert set(frames.values()) == {NOT_COMPARED}


def test_a_changed_node_keeps_its_frame_and_the_legend_leaves_out_what_is_not_needed(qtbot, tmp_path):
    win = _window(qtbot, _model(tmp_path / "a", readable=False), _model(tmp_path / "b", readable=True,
                                                                          relu_alpha=0.2))
    # The Relu became a LeakyRelu: changed, and the Add still not compared.
    assert _frames(win.left) == {"add": NOT_COMPARED, "relu": CHANGED}
    same = _window(qtbot, _model(tmp_path / "c", readable=True), _model(tmp_path / "d", readable=True))
    assert _frames(same.left) == {} and NOT_COMPARED not in same.findChild(Legend).swatches


def test_a_collapsed_group_holding_such_a_reader_is_marked_so(qtbot, tmp_path):
    win = _window(qtbot, _model(tmp_path / "a", readable=False, scope="blk"),
                  _model(tmp_path / "b", readable=True, scope="blk"))
    assert _frames(win.left) == {"/blk/add": NOT_COMPARED}
    win.left.collapse_group(("blk",))

    def groups():
        return [box for box, vnode in win.left.scene.view_model.nodes.items() if vnode.group is not None]
    qtbot.waitUntil(lambda: win.left.settled and bool(groups()), timeout=60_000)
    [group] = groups()
    # Not "changed inside": nothing in the group is known to differ.
    assert _frames(win.left) == {group: NOT_COMPARED}
