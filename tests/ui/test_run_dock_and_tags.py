"""The Run dock beside the canvas (long symbolic dim names, Cancel and the
keyboard focus, numbers in the inputs' settings) and the value tags on the
canvas (clear of each other and of the type labels; which ones a re-run
after an edit computed again). pytest-qt, offscreen."""
import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractSpinBox, QApplication

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle
from onnxstudio.core.edits import SetAttribute
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.inputs_panel import short_dim_names
from onnxstudio.ui.run.overlay import ValueTag, fresh_text


def finish(qtbot, win):
    assert win.run_ui.controller.wait(300_000)
    wait_idle(qtbot, win)


def tags(win):
    return [i for i in win.run_ui.overlay.items if isinstance(i, ValueTag)]


# -- the inputs panel ---------------------------------------------------------------------------

def test_long_dim_names_are_shortened_apart():
    paddle = ["p2o.DynamicDimension.0", "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]
    assert list(short_dim_names(paddle).values()) == ["…Dimension.0", "…Dimension.1", "…Dimension.2"]
    assert short_dim_names(["batch", "seq"]) == {"batch": "batch", "seq": "seq"}
    assert short_dim_names(["x.2", "x.3"]) == {"x.2": "x.2", "x.3": "x.3"}
    long = ["encoder_sequence_length", "decoder_sequence_length"]
    shown = short_dim_names(long)
    assert len(set(shown.values())) == 2 and all(len(s) <= 14 for s in shown.values())


def test_ppocr_dims_leave_the_canvas_its_third(qtbot, window):
    """Paddle's p2o.DynamicDimension.N: short distinct labels (the full name
    in the tooltip), and the Run dock takes no more than a third of a
    1400 px window, the canvas at least a third."""
    window.resize(1400, 900)
    open_model(qtbot, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    r = window.run_ui
    r.run_dock.show()
    qtbot.waitUntil(lambda: r.run_dock.isVisible() and r.run_dock.width() > 0)
    qtbot.wait(50)                         # the main window lays the docks out
    layout = r.inputs.dims_layout
    labels = {}
    for name, spin in r.inputs.dim_spins.items():
        index = layout.indexOf(spin)
        row, column, _, _ = layout.getItemPosition(index)
        label = layout.itemAtPosition(row, column - 1).widget()
        labels[label.text()] = label.toolTip()
    assert labels == {f"…Dimension.{i}": f"p2o.DynamicDimension.{i}" for i in range(3)}
    third = window.width() / 3
    assert r.dock_widget.minimumSizeHint().width() <= third
    assert r.run_dock.width() <= third, (r.run_dock.width(), window.width())
    assert window.graph.width() >= third, (window.graph.width(), window.width())


def test_cancel_leaves_the_keyboard_focus_out_of_the_size_boxes(qtbot, window):
    """Cancel clicked, then pressed with the space bar: when the button is
    disabled at the end of the run, its focus goes to the canvas, not to a
    size box where the arrow keys and the wheel would change a size."""
    open_model(qtbot, window, SHARED_MODELS / "bert_12layer_narrow" / "model.onnx")
    r = window.run_ui
    r.inputs.set_dim("batch", 8)
    r.inputs.set_dim("seq", 256)
    seen = []
    r.controller.progressed.connect(lambda i, n, name: seen.append(i))
    button = r.dock_widget.cancel_button
    for press in (lambda: qtbot.mouseClick(button, Qt.LeftButton),
                  lambda: (button.setFocus(Qt.TabFocusReason), qtbot.keyClick(button, Qt.Key_Space))):
        seen.clear()
        r.controller.debug.values.clear()           # a whole run, long enough to cancel
        r.run_all()
        qtbot.waitUntil(lambda: len(seen) >= 2, timeout=120_000)
        press()
        finish(qtbot, window)
        assert "cancelled" in r.dock_widget.status.text()
        focus = QApplication.focusWidget()
        assert not isinstance(focus, QAbstractSpinBox), focus
        assert focus is window.graph.view


def test_numbers_in_the_settings_read_as_numbers(qtbot, window):
    """silero_vad's sample rate (int64, a constant) reads 16000 in its box,
    not 16000.0000; a float constant 0.5, not 0.5000."""
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    r = window.run_ui
    names = [v.name for v in r.inputs.inputs]
    r.inputs.table.setCurrentCell(names.index("sr"), 0)
    boxes = r.inputs.details.findChildren(QAbstractSpinBox)
    assert [b.text() for b in boxes] == ["16000"]
    r.inputs.set_source("input", "constant", value=0.5)
    assert [b.text() for b in r.inputs.details.findChildren(QAbstractSpinBox)] == ["0.5"]
    assert "all 0.5" in r.inputs.table.item(names.index("input"), 3).text()


# -- value tags -----------------------------------------------------------------------------------

def write_chain(path):
    """x[batch,seq,4] -> Relu -> Neg -> Add(x) -> Sigmoid -> y: short edges,
    each with a symbolic type label beside it."""
    import onnx
    from onnx import TensorProto, helper
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="relu"),
             helper.make_node("Neg", ["a"], ["b"], name="neg"),
             helper.make_node("Add", ["b", "x"], ["c"], name="add"),
             helper.make_node("Sigmoid", ["c"], ["y"], name="sig")]
    typed = [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["batch", "seq", 4]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "chain", typed[:1], typed[1:])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return path


def assert_tags_clear(win):
    """No two tags overlap, and no tag covers an edge's type label."""
    placed = [(t, t.mapRectToScene(t.rect)) for t in tags(win)]
    labels = [(e, e._label_rect) for e in win.graph.scene.edge_items.values()
              if getattr(e, "_label_rect", None) is not None]
    for i, (tag, rect) in enumerate(placed):
        others = [o.name for o, r in placed[i + 1:] if r.intersects(rect)]
        assert not others, f"the tag of {tag.name} covers the tags of {others}"
        covered = [e.full_label for e, label in labels if label.intersects(rect)]
        assert not covered, f"the tag of {tag.name} covers the type labels {covered}"
    return placed


def test_value_tags_keep_clear_of_each_other_and_the_type_labels(qtbot, window, tmp_path):
    for path in (sample_path("demo.onnx"), write_chain(tmp_path / "chain.onnx")):
        open_model(qtbot, window, path)
        window.graph.view.setFocus()
        qtbot.keyClick(window.graph.view, Qt.Key_R, Qt.ControlModifier)      # Run Model
        finish(qtbot, window)
        assert not window.run_ui.controller.last_error
        assert len(assert_tags_clear(window)) >= 5


def test_a_rerun_after_an_edit_marks_the_values_it_computed(qtbot, window):
    """After an edit, Run computes only the values downstream of it: their
    tags are drawn apart (amber) and say so, the kept ones say they were
    kept; a run that computed everything marks none."""
    open_model(qtbot, window, sample_path("demo.onnx"))
    r = window.run_ui
    r.run_all()
    finish(qtbot, window)
    assert tags(window) and all(t.fresh is None for t in tags(window))
    nodes = list(r.controller.model.graph.nodes)
    assert window.qdoc.apply(SetAttribute(nodes[5].name, "kernel_shape", AttrType.INTS, [4, 4]))
    wait_idle(qtbot, window)
    r.run_all()
    finish(qtbot, window)
    assert "5 nodes computed" in r.dock_widget.status.text()
    by_name = {t.name: t for t in tags(window)}
    again = {v.name for n in nodes[5:] for v in n.outputs} & set(by_name)
    kept = {v.name for n in nodes[:5] for v in n.outputs} & set(by_name)
    assert again and kept
    assert all(by_name[n].fresh is True and fresh_text(True) in by_name[n].detail() for n in again)
    assert all(by_name[n].fresh is False and fresh_text(False) in by_name[n].detail() for n in kept)
    assert_tags_clear(window)
    r.controller.debug.values.clear()
    r.run_all()                                         # everything computed: nothing set apart
    finish(qtbot, window)
    assert all(t.fresh is None for t in tags(window))
    assert np.isfinite(r.controller.debug.values[nodes[-1].outputs[0].name]).all()


def test_a_step_keeps_the_tags_whose_values_it_left_alone(qtbot, window):
    """A step adds its outputs' tags and keeps the others' items (making all
    of them again made most of a step's pause on a large model); a refresh
    with nothing new changes nothing; an edit takes the dropped values' tags away."""
    open_model(qtbot, window, sample_path("demo.onnx"))
    r = window.run_ui
    for _ in range(3):
        r.step_action.trigger()            # Step Over (F10): the canvas stays on the main graph
        finish(qtbot, window)
    before = {t.name: t for t in tags(window)}
    r.step_action.trigger()
    finish(qtbot, window)
    after = {t.name: t for t in tags(window)}
    assert set(before) < set(after)
    assert all(after[name] is tag for name, tag in before.items())
    items = list(r.overlay.items)
    r.overlay.refresh()
    assert r.overlay.items == items and all(i.scene() is window.graph.scene for i in items)
    nodes = list(r.controller.model.graph.nodes)
    assert window.qdoc.apply(SetAttribute(nodes[2].name, "kernel_shape", AttrType.INTS, [4, 4]))
    wait_idle(qtbot, window)
    r.overlay.refresh()
    left = {t.name for t in tags(window)}
    dropped = set(after) - left
    assert dropped and all(after[name].scene() is None for name in dropped)
    assert_tags_clear(window)
