"""Fonts used on the canvas, and the text measurer handed to core.layout.

Layout sizes node boxes from the same fonts the items paint with, so labels
always fit their boxes.
"""
from __future__ import annotations

import threading
from functools import lru_cache

from PySide6.QtGui import QFont, QFontMetricsF

TITLE_POINT_SIZE = 10
BODY_POINT_SIZE = 8


@lru_cache(maxsize=None)
def title_font() -> QFont:
    font = QFont()
    font.setPointSizeF(TITLE_POINT_SIZE)
    font.setBold(True)
    return font


@lru_cache(maxsize=None)
def body_font() -> QFont:
    font = QFont()
    font.setPointSizeF(BODY_POINT_SIZE)
    return font


_local = threading.local()


def _metrics(bold: bool) -> QFontMetricsF:
    # core.layout calls the measurer from a worker thread; font metrics objects
    # are reentrant, not thread-safe, so each thread keeps its own pair.
    cache = getattr(_local, "metrics", None)
    if cache is None:
        cache = _local.metrics = {True: QFontMetricsF(QFont(title_font())),
                                  False: QFontMetricsF(QFont(body_font()))}
    return cache[bold]


def text_width(text: str, bold: bool = False) -> float:
    return _metrics(bold).horizontalAdvance(text)


def title_width(text: str) -> float:
    """Room a bold title needs on one line: its advance or its inked extent,
    whichever is wider (bold glyphs overhang the advance by a pixel or so),
    plus a hair for rounding. Boxes sized by the bare advance were a pixel
    short, and any wrapping text drawer then broke the title inside a word
    ("TreeEnsembleRegress / or")."""
    metrics = _metrics(True)
    return max(metrics.horizontalAdvance(text), metrics.boundingRect(text).width()) + 2.0


def line_height(bold: bool = False) -> float:
    return _metrics(bold).height()


def elide(text: str, width: float, bold: bool = False) -> str:
    from PySide6.QtCore import Qt
    return _metrics(bold).elidedText(text, Qt.ElideMiddle, width)
