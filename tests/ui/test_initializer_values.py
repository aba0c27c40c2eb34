import numpy as np

from onnxstudio.core.exec.tensor_stats import tensor_stats
from onnxstudio.ui.panels.summaries import stat_rows
from onnxstudio.ui.panels.initializer_values import InitializerValues


def test_properties_stats_are_cores_over_finite_elements():
    """The panel's statistics are core's (core/exec/tensor_stats.py), as the
    tensor editor and the run inspector show: its own copy used to take
    NaN-ignoring min/max over infinities and say nothing of them."""
    rows = dict(stat_rows(tensor_stats(np.arange(12, dtype=np.float16).reshape(3, 4))))
    assert rows == {"min": "0", "max": "11", "mean": "5.5", "std": f"{np.arange(12).std():.6g}"}
    assert stat_rows(tensor_stats(np.array([], dtype=np.float32))) == []
    assert stat_rows(tensor_stats(np.array([b"a"], dtype=object))) == []
    assert stat_rows(None) == []
    assert dict(stat_rows(tensor_stats(np.array([True, False]))))["mean"] == "0.5"
    rows = dict(stat_rows(tensor_stats(np.array([1.0, np.nan, np.inf, 3.0], np.float32))))
    assert (rows["min"], rows["max"], rows["NaN"], rows["+Inf"]) == ("1", "3", "1", "1")


class _Dense:
    def __init__(self, array):
        self.array = array

    def numpy(self):
        return self.array


def test_the_properties_viewer_shows_values_in_the_shared_slicing_table(qtbot):
    """The panel's viewer is the run inspector's table (ui/tensor_view.py):
    a 3-d tensor shows its last two axes with axis 0 fixed; a 0-d one is one
    cell, a 1-d one a column, as the panel's own 2-D slicer did."""
    view = InitializerValues()
    qtbot.addWidget(view)
    a = np.arange(24).reshape(2, 3, 4)
    view.set_tensor(_Dense(a), "w")
    assert not view.table.isVisibleTo(view)
    view.show_values()
    model = view.table.model
    assert (model.rowCount(), model.columnCount()) == (3, 4)
    view.table.set_fixed(0, 1)
    assert model.data(model.index(2, 1)) == str(a[1, 2, 1])
    view.set_tensor(_Dense(np.array(5)), "s")
    view.show_values()
    assert (model.rowCount(), model.columnCount()) == (1, 1)
    view.set_tensor(_Dense(np.arange(3)), "v")
    view.show_values()
    assert (model.rowCount(), model.columnCount()) == (3, 1)
