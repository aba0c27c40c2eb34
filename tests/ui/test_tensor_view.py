import numpy as np

from onnxstudio.ui.panels.tensor_view import slice_2d, tensor_stats


def test_stats_match_numpy():
    a = np.arange(12, dtype=np.float16).reshape(3, 4)
    stats = tensor_stats(a)
    assert stats == {"min": 0.0, "max": 11.0, "mean": 5.5, "std": float(np.arange(12).std())}
    assert tensor_stats(np.array([], dtype=np.float32)) == {}
    assert tensor_stats(np.array([b"a"], dtype=object)) == {}
    assert tensor_stats(np.array([True, False]))["mean"] == 0.5


def test_slices():
    a = np.arange(24).reshape(2, 3, 4)
    assert slice_2d(a, (1,)).tolist() == a[1].tolist()
    assert slice_2d(np.array(5), ()).shape == (1, 1)
    assert slice_2d(np.arange(3), ()).shape == (3, 1)
