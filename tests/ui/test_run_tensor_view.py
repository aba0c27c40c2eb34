"""The reusable tensor widgets: N-d slicing table, histogram, image view, statistics."""
import ml_dtypes
import numpy as np
import pytest
from PySide6.QtCore import Qt

from onnxstudio.core.exec.tensor_stats import has_nonfinite, histogram, tensor_stats
from onnxstudio.ui.tensor_view import (HistogramWidget, ImageView, TensorTable, format_element,
                                       guess_layout, image_planes, parse_element, stats_text)


def cell(table, r, c):
    m = table.model
    return m.data(m.index(r, c), Qt.DisplayRole)


def test_stats_count_nan_and_inf_apart():
    s = tensor_stats(np.array([1, np.nan, np.inf, -np.inf, 3, 0], np.float32))
    assert (s.min, s.max, s.mean, s.nan, s.posinf, s.neginf, s.zeros) == (0, 3, 4 / 3, 1, 1, 1, 1)
    assert "1 NaN" in s.summary() and s.nonfinite
    b = tensor_stats(np.array([1, 2, 4], ml_dtypes.bfloat16))
    assert (b.min, b.max) == (1, 4)
    assert tensor_stats(np.array(["a", "b"], object)).numeric is False
    assert tensor_stats(np.array([True, False, True])).mean == pytest.approx(2 / 3)
    assert tensor_stats(np.array([3 + 4j])).max == 5
    assert tensor_stats(np.zeros((0, 3), np.float32)).summary() == "empty"
    assert has_nonfinite([np.ones(2), {"k": np.array([np.inf])}])
    assert not has_nonfinite(np.arange(4))


def test_histogram_integers_get_one_bar_each():
    counts, edges = histogram(np.array([0, 1, 1, 2, 2, 2]))
    assert counts.tolist() == [1, 2, 3] and edges.tolist() == [-0.5, 0.5, 1.5, 2.5]
    counts, _ = histogram(np.array([np.nan, 1.0, 2.0, np.inf]), bins=4)
    assert counts.sum() == 2


def test_table_slices_any_two_axes(qtbot):
    a = np.arange(2 * 3 * 4).reshape(2, 3, 4)
    t = TensorTable()
    qtbot.addWidget(t)
    t.set_array(a)
    # The last two axes first, as numpy prints an array (an NCHW image shows H x W).
    assert (t.model.rowCount(), t.model.columnCount()) == (3, 4)
    assert list(t.spins) == [0]
    t.set_fixed(0, 1)
    assert cell(t, 2, 3) == str(a[1, 2, 3])
    t.set_axes(0, 1)
    assert (t.model.rowCount(), t.model.columnCount()) == (2, 3)
    assert list(t.spins) == [2]
    t.set_fixed(2, 3)
    assert cell(t, 1, 2) == str(a[1, 2, 3])
    t.set_axes(2, 0)            # rows = axis 2, columns = axis 0, axis 1 fixed
    assert (t.model.rowCount(), t.model.columnCount()) == (4, 2)
    assert list(t.spins) == [1]
    t.set_fixed(1, 2)
    assert cell(t, 3, 1) == str(a[1, 2, 3])


@pytest.mark.parametrize("array,text", [
    (np.array([1.5], ml_dtypes.bfloat16), "1.5"),
    (np.array([0.5], ml_dtypes.float8_e4m3fn), "0.5"),
    (np.array([-3], ml_dtypes.int4), "-3"),
    (np.array([True]), "true"),
    (np.array(["héllo"], object), "héllo"),
    (np.array([b"raw"], object), "raw"),
    (np.array([1 + 2j], np.complex64), "1+2j"),
    (np.array([{"a": 1}], object), "{'a': 1}"),
    (np.array(7, np.int64), "7"),
])
def test_table_shows_every_dtype(qtbot, array, text):
    t = TensorTable()
    qtbot.addWidget(t)
    t.set_array(array)
    assert cell(t, 0, 0) == text


def test_editable_hook_parses_and_reports(qtbot):
    a = np.zeros((2, 2), np.float32)
    a.setflags(write=False)          # like a weight mapped from the file
    t = TensorTable(editable=True)
    qtbot.addWidget(t)
    t.set_array(a)
    seen, refused = [], []
    t.edited.connect(lambda idx, v: seen.append((idx, float(v))))
    t.model.refused.connect(refused.append)
    assert t.model.setData(t.model.index(1, 0), "2.5")
    assert seen == [((1, 0), 2.5)] and t.array[1, 0] == 2.5 and a[1, 0] == 0
    assert not t.model.setData(t.model.index(0, 0), "abc")
    assert refused and "float32" in refused[0]
    ro = TensorTable()
    qtbot.addWidget(ro)
    ro.set_array(a)
    assert not ro.model.flags(ro.model.index(0, 0)) & Qt.ItemIsEditable
    with pytest.raises(ValueError, match="does not fit"):
        parse_element("300", np.dtype(np.int8))


def test_histogram_paints(qtbot):
    h = HistogramWidget()
    qtbot.addWidget(h)
    h.resize(300, 120)
    h.set_array(np.random.default_rng(0).standard_normal(1000))
    assert h.counts.sum() == 1000
    image = h.grab().toImage()
    assert image.width() == 300
    assert h.bar_at(150) is not None


def test_image_view_layouts(qtbot):
    assert guess_layout((1, 3, 32, 48)) == "NCHW"
    assert guess_layout((1, 32, 48, 3)) == "NHWC"
    assert guess_layout((1, 768)) is None
    rgb = np.zeros((1, 3, 4, 5), np.float32)
    rgb[0, 0] = 1.0            # red everywhere
    planes = image_planes(rgb, "NCHW")
    assert planes.shape == (3, 4, 5)
    v = ImageView()
    qtbot.addWidget(v)
    v.resize(200, 200)
    assert v.set_array(rgb)
    assert (v.image.width(), v.image.height()) == (5, 4)
    assert v.image.pixelColor(0, 0).red() == 255 and v.image.pixelColor(0, 0).blue() == 0
    v.channel_box.setCurrentIndex(2)      # channel 1 in grey
    v.refresh()
    assert v.image.isGrayscale()
    assert not v.set_array(np.zeros(10))


def test_a_feature_map_is_shown_a_channel_at_a_time(qtbot):
    """32 channels are no picture: no RGB choice (its first three channels
    as colours would look like one), channel 0 in grey first."""
    v = ImageView()
    qtbot.addWidget(v)
    features = np.random.default_rng(0).standard_normal((1, 32, 6, 7)).astype(np.float32)
    assert v.set_array(features)
    choices = [v.channel_box.itemData(i) for i in range(v.channel_box.count())]
    assert choices == list(range(32))
    assert v.image.isGrayscale() and (v.image.width(), v.image.height()) == (7, 6)
    rgba = np.zeros((1, 4, 2, 2), np.float32)
    assert v.set_array(rgba) and v.channel_box.itemData(0) is None    # an RGBA picture keeps RGB


def test_format_and_stats_text():
    assert format_element(np.float32(1 / 3)) == "0.333333"
    assert format_element("x" * 300).endswith("…")
    assert "1 NaN" in stats_text(tensor_stats(np.array([np.nan, 1.0])))
