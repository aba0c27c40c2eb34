"""Export a scene (the whole graph or the visible part) to SVG or PNG.

Used by the window's File › Export and by the headless `onnxstudio render`.
"""
from __future__ import annotations

import pathlib

from PySide6.QtCore import QCoreApplication, QRectF, QSize, Qt
from PySide6.QtGui import QImage, QPainter

MAX_PNG_SIDE = 16000   # QImage and viewers choke beyond this; bigger graphs are scaled down
MARGIN = 20.0


def export_scene(scene, path, rect: QRectF | None = None, scale: float = 2.0) -> pathlib.Path:
    """Write `rect` of `scene` (default: everything) to `path` (.svg or .png)."""
    path = pathlib.Path(path)
    source = QRectF(rect) if rect is not None else scene.itemsBoundingRect().adjusted(
        -MARGIN, -MARGIN, MARGIN, MARGIN)
    if source.isEmpty():
        source = QRectF(0, 0, 100, 100)
    suffix = path.suffix.lower()
    if suffix == ".svg":
        _write_svg(scene, path, source)
    elif suffix == ".png":
        _write_png(scene, path, source, scale)
    else:
        raise ValueError(QCoreApplication.translate("Export", "{path}: choose a .svg or .png file name")
                         .format(path=path))
    return path


def _write_svg(scene, path: pathlib.Path, source: QRectF) -> None:
    from PySide6.QtSvg import QSvgGenerator
    generator = QSvgGenerator()
    generator.setFileName(str(path))
    generator.setSize(QSize(int(source.width()), int(source.height())))
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle(path.stem)
    painter = QPainter(generator)
    painter.fillRect(QRectF(0, 0, source.width(), source.height()), scene.theme.background)
    scene.render(painter, QRectF(0, 0, source.width(), source.height()), source)
    painter.end()
    if not path.exists():
        raise OSError(_not_written(path))


def _write_png(scene, path: pathlib.Path, source: QRectF, scale: float) -> None:
    scale = min(scale, MAX_PNG_SIDE / max(source.width(), 1), MAX_PNG_SIDE / max(source.height(), 1))
    width, height = max(1, int(source.width() * scale)), max(1, int(source.height() * scale))
    image = QImage(width, height, QImage.Format_ARGB32_Premultiplied)
    image.fill(scene.theme.background)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    painter.setRenderHint(QPainter.TextAntialiasing)
    scene.render(painter, QRectF(0, 0, width, height), source, Qt.KeepAspectRatio)
    painter.end()
    if not image.save(str(path)):
        raise OSError(_not_written(path))


def _not_written(path) -> str:
    return QCoreApplication.translate("Export", "{path}: could not be written").format(path=path)
