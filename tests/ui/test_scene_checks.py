"""The geometric checks must themselves catch bad scenes."""
from PySide6.QtCore import QRectF

from scene_checks import distance_to_border, overlapping_pairs


def test_overlap_detection():
    rects = {"a": QRectF(0, 0, 10, 10), "b": QRectF(5, 5, 10, 10), "c": QRectF(30, 0, 5, 5),
             "d": QRectF(10, 0, 5, 5)}     # d only touches a
    assert overlapping_pairs(rects) == [("a", "b")]


def test_distance_to_border():
    rect = QRectF(0, 0, 10, 10)
    assert distance_to_border(10, 5, rect) == 0
    assert distance_to_border(5, 5, rect) == 5
    assert distance_to_border(13, 14, rect) == 5
