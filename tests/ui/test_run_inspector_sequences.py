"""The Tensor Inspector inside sequences and maps: a classifier's
probabilities (ZipMap: a sequence of maps) and SplitToSequence's tensors
were shown as "sequence of N" with nothing to look at. Now a chooser picks
the element or key, the part is shown with the tensor views, and a map of
one number per key is a column of values labelled by its keys."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper
from PySide6.QtWidgets import QComboBox, QSpinBox

from viewer_helpers import open_model
from onnxstudio.ui.run.inspector import TensorInspector


def _inspector(qtbot) -> TensorInspector:
    inspector = TensorInspector()
    qtbot.addWidget(inspector)
    return inspector


def _probabilities(rows) -> list:
    return [{0: np.float32(p), 1: np.float32(1 - p)} for p in rows]


def test_a_sequence_of_maps_shows_each_map_as_values_by_key(qtbot, tmp_path):
    inspector = _inspector(qtbot)
    inspector.show_value("probs", _probabilities([0.25, 0.875]))
    spin, = inspector.parts.findChildren(QSpinBox)
    assert spin.value() == 0 and spin.maximum() == 1
    assert "probs[0]" in inspector.title.text() and "map of 2" in inspector.title.text()
    assert "float" in inspector.title.text() and "double" not in inspector.title.text()
    np.testing.assert_array_equal(inspector.array, np.float32([0.25, 0.75]))
    table = inspector.table.model
    assert [table.headerData(i, 2) for i in range(2)] == ["0", "1"]       # Qt.Vertical: the keys

    spin.setValue(1)                                 # the second row's probabilities
    np.testing.assert_array_equal(inspector.array, np.float32([0.875, 0.125]))
    assert "probs[1]" in inspector.title.text()

    path = tmp_path / "probs.npy"
    assert inspector.export(path)
    saved = np.load(path)
    assert list(saved["key"]) == [0, 1] and list(saved["value"]) == [0.875, 0.125]


def test_string_keys_label_the_rows_and_are_chosen_by_name(qtbot):
    inspector = _inspector(qtbot)
    inspector.show_value("scores", {"cat": np.float32(0.5), "dog": np.float32(0.25)})
    assert inspector.parts.isHidden()                # a map of scalars is one part: nothing to choose
    assert [inspector.table.model.headerData(i, 2) for i in range(2)] == ["cat", "dog"]
    np.testing.assert_array_equal(inspector.array, np.float32([0.5, 0.25]))

    inspector.show_value("tensors", {"a": np.zeros((2, 2)), "b": np.ones(3)})   # a map of tensors
    box, = inspector.parts.findChildren(QComboBox)
    assert [box.itemText(i) for i in range(box.count())] == ["a", "b"]
    box.activated.emit(1)
    np.testing.assert_array_equal(inspector.array, np.ones(3))
    assert "tensors{'b'}" in inspector.title.text()


def test_the_element_chosen_stays_across_runs_while_it_exists(qtbot):
    inspector = _inspector(qtbot)
    seq = [np.arange(6, dtype=np.float32).reshape(2, 3), np.full(4, 7, np.int64), np.zeros(1, np.float32)]
    inspector.show_value("pieces", seq)
    np.testing.assert_array_equal(inspector.array, seq[0])
    inspector.parts.findChildren(QSpinBox)[0].setValue(2)
    np.testing.assert_array_equal(inspector.array, seq[2])

    inspector.show_value("pieces", [s + 1 for s in seq])      # the next step: same place, new value
    np.testing.assert_array_equal(inspector.array, seq[2] + 1)
    inspector.show_value("pieces", seq[:2])                   # element 2 is gone: the first is shown
    np.testing.assert_array_equal(inspector.array, seq[0])
    inspector.parts.findChildren(QSpinBox)[0].setValue(1)
    inspector.show_value("other", seq)                        # another value starts at its first element
    np.testing.assert_array_equal(inspector.array, seq[0])


def test_empty_parts_say_so_and_export_nothing(qtbot):
    inspector = _inspector(qtbot)
    inspector.show_value("seq", [])
    assert inspector.array is None and not inspector.export_button.isEnabled()
    assert "empty" in inspector.stats.text()
    inspector.show_value("opt", None)
    assert inspector.array is None and "optional" in inspector.stats.text()
    inspector.show_value("nested", [[], [np.ones(2)]])         # the first element is empty
    assert "nested[0]" in inspector.title.text() and inspector.array is None
    inspector.parts.findChildren(QSpinBox)[0].setValue(1)
    np.testing.assert_array_equal(inspector.array, np.ones(2))


def test_a_part_is_compared_with_the_same_part_of_the_other_run(qtbot):
    inspector = _inspector(qtbot)
    ours = _probabilities([0.25, 0.125])
    theirs = _probabilities([0.25, 0.125])
    theirs[1] = {1: np.float32(0.875), 0: np.float32(0.25)}   # keys in another order, key 0 off by 0.125
    inspector.show_value("probs", ours, other=theirs, other_label="onnxruntime")
    assert inspector.tabs.isTabEnabled(3) and "agrees" in inspector.compare_text.text()
    inspector.parts.findChildren(QSpinBox)[0].setValue(1)
    assert "differs" in inspector.compare_text.text() and "{0}" in inspector.compare_text.text()
    # The difference per element lines the other run's entries up by key (0.125 and 0),
    # not by position (0.75 and 0.625).
    assert sum(inspector.diff_histogram.counts) == 2
    assert inspector.diff_histogram.edges[-1] <= 0.125 + 1e-6

    inspector.show_value("probs", ours, other=[theirs[0]], other_label="onnxruntime")   # no element 1 there
    assert inspector.other is None and not inspector.tabs.isTabEnabled(3)


def _split_model(path) -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [5, 2])
    pieces = helper.make_tensor_sequence_value_info("pieces", TensorProto.FLOAT, None)
    split = helper.make_tensor("split", TensorProto.INT64, [2], [2, 3])
    node = helper.make_node("SplitToSequence", ["x", "split"], ["pieces"], axis=0)
    graph = helper.make_graph([node], "g", [x], [pieces], initializer=[split])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), path)


def test_the_app_shows_a_split_to_sequence_piece_by_piece(qtbot, window, tmp_path):
    path = tmp_path / "split.onnx"
    _split_model(path)
    open_model(qtbot, window, path)
    r = window.run_ui
    r.run_all()
    assert r.controller.wait(60_000)
    feeds = r.inputs.make_feeds()
    assert r.inspect(window.model.graph.outputs[0])
    np.testing.assert_array_equal(r.inspector.array, feeds["x"][:2])
    r.inspector.parts.findChildren(QSpinBox)[0].setValue(1)
    np.testing.assert_array_equal(r.inspector.array, feeds["x"][2:])
