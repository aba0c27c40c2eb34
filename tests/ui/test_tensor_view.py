import numpy as np

from onnxstudio.ui.panels.tensor_view import TensorView, tensor_stats


def test_stats_match_numpy():
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    stats = tensor_stats(a)
    assert stats == {"min": 0.0, "max": 11.0, "mean": 5.5, "std": float(np.arange(12).std())}
    assert tensor_stats(np.array([], dtype=np.float32)) == {}
    assert tensor_stats(np.array([b"a"], dtype=object)) == {}
    assert tensor_stats(np.array([True, False]))["mean"] == 0.5


class _Dense:
    def __init__(self, array):
        self.array = array

    def numpy(self):
        return self.array


def test_the_properties_viewer_shows_values_in_the_shared_slicing_table(qtbot):
    """The panel's viewer is the run inspector's table (ui/tensor_view.py):
    a 3-d tensor shows axes 0 and 1 with axis 2 fixed; a 0-d one is one
    cell, a 1-d one a column, as the panel's own 2-D slicer did."""
    view = TensorView()
    qtbot.addWidget(view)
    a = np.arange(24).reshape(2, 3, 4)
    view.set_tensor(_Dense(a), "w")
    assert not view.table.isVisibleTo(view)
    view.show_values()
    model = view.table.model
    assert (model.rowCount(), model.columnCount()) == (2, 3)
    view.table.set_fixed(2, 1)
    assert model.data(model.index(1, 2)) == str(a[1, 2, 1])
    view.set_tensor(_Dense(np.array(5)), "s")
    view.show_values()
    assert (model.rowCount(), model.columnCount()) == (1, 1)
    view.set_tensor(_Dense(np.arange(3)), "v")
    view.show_values()
    assert (model.rowCount(), model.columnCount()) == (3, 1)
