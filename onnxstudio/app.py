"""GUI bootstrap: `onnxstudio [FILE]` and `onnxstudio --demo`."""
from __future__ import annotations

import argparse
import os
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="onnxstudio", description="Open the onnxstudio viewer.")
    parser.add_argument("file", nargs="?", help="ONNX model to open")
    parser.add_argument("--demo", action="store_true", help="open the bundled sample model")
    parser.add_argument("--theme", choices=("system", "light", "dark"),
                        help="colour theme for this session (default: the saved choice)")
    return parser


def create_application(argv: list[str] | None = None):
    """The QApplication, created once; offscreen when there is no display."""
    from PySide6.QtWidgets import QApplication
    app = QApplication.instance()
    if app is not None:
        return app
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or
                                                 os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication(["onnxstudio", *(argv or [])])
    app.setApplicationName("onnxstudio")
    app.setOrganizationName("onnxstudio")
    return app


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    app = create_application()
    from onnxstudio.ui.main_window import MainWindow
    window = MainWindow()
    if args.theme:
        window.apply_theme(args.theme)
    window.show()
    if args.demo:
        window.open_demo()
    elif args.file:
        window.open_path(args.file)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
