"""Render resources/icons/onnxstudio.svg to the PNG sizes desktops look for
(hicolor NxN/apps); the SVG stays the source. Run after editing the SVG."""
import pathlib
import sys

SIZES = (32, 48, 64, 128, 256)


def main() -> int:
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # noqa: F841 - fonts, image formats
    icons = pathlib.Path(__file__).resolve().parent.parent / "resources" / "icons"
    renderer = QSvgRenderer(str(icons / "onnxstudio.svg"))
    for size in SIZES:
        image = QImage(size, size, QImage.Format_ARGB32)
        image.fill(Qt.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        out = icons / f"onnxstudio-{size}.png"
        image.save(str(out))
        print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
