"""GUI bootstrap: `onnxstudio [FILE]` and `onnxstudio --demo`."""
from __future__ import annotations

import argparse
import contextlib
import os
import sys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="onnxstudio", description="Open the onnxstudio viewer.")
    parser.add_argument("file", nargs="?", help="ONNX model to open")
    parser.add_argument("--demo", action="store_true", help="open the bundled sample model")
    parser.add_argument("--theme", choices=("system", "light", "dark"),
                        help="colour theme for this session (default: the saved choice)")
    parser.add_argument("--lang", choices=("system", "en", "zh_CN"),
                        help="language of the app for this session (default: the saved choice, "
                             "else the system's)")
    return parser


def _import_qt_free_parts() -> None:
    """Import the Qt-free modules the window needs before PySide6 is imported.
    Once it is, PySide6 reads the source of every module imported after it
    (its `__feature__` import hook looks for "PySide6" in the text), which
    cost ~0.1 s of a 1.2 s start; modules already loaded are not read."""
    import numpy  # noqa: F401
    from onnxstudio.core import document, edits, layout, schemas  # noqa: F401
    from onnxstudio.core.infer import dims  # noqa: F401


def create_application(argv: list[str] | None = None):
    """The QApplication, created once; offscreen when there is no display."""
    if "PySide6.QtCore" not in sys.modules:
        _import_qt_free_parts()
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


def no_display_reason() -> str:
    """Why a window could not be seen here, or "". On Linux without X or
    Wayland, Qt would fall back to drawing offscreen: the window would be
    invisible and the event loop never end. An explicit QT_QPA_PLATFORM is
    the user's choice (offscreen for scripts, xcb/wayland given a display)."""
    if not sys.platform.startswith("linux") or os.environ.get("QT_QPA_PLATFORM"):
        return ""
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return ""
    return ("onnxstudio: no display found (neither DISPLAY nor WAYLAND_DISPLAY is set), so the app "
            "cannot open a window; run it in a desktop session or with `xvfb-run`, or use the "
            "headless commands (onnxstudio --help)")


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    reason = no_display_reason()
    if reason:
        print(reason, file=sys.stderr)
        return 2
    with contextlib.ExitStack() as start:
        start.enter_context(start_pause())
        app, window = start_window(args)
        open_requested(window, args)
        pause = start.pop_all()
    end_when_drawn(window, pause)
    try:
        return app.exec()
    finally:
        pause.close()               # the app quit before its first picture


def start_pause():
    """The cyclic collector held off while the app starts (core/gc_policy.py):
    imports, the window and the opened model make long-lived objects and
    next to no garbage, and ~90 collections walked them for nothing (20-80 ms
    before the first paint of bert_12layer_narrow). The collection that
    follows the pause comes after the first picture (end_when_drawn)."""
    # Importing the submodule loads nothing else of core (core/__init__.py).
    from onnxstudio.core import gc_policy
    return gc_policy.paused()


def end_when_drawn(window, pause: contextlib.ExitStack) -> None:
    """Close `pause` once the opened model is painted, or as soon as the
    window has nothing to draw (no file, a failed open, a recovery question)."""
    from PySide6.QtCore import QTimer
    idle = QTimer(window)
    idle.setInterval(50)

    def end(*_args):
        idle.stop()
        pause.close()           # a second call does nothing
    window.graph.view.first_paint.connect(end)
    idle.timeout.connect(lambda: None if window.busy else end())
    idle.start()


def start_window(args: argparse.Namespace):
    """The QApplication and the shown main window, in the user's settings,
    language and theme (benchmarks/open.py starts the app through here)."""
    app = create_application()
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui import i18n
    settings = Settings()
    # Before any widget exists: texts are translated when they are built.
    i18n.install(args.lang or settings.language(), app)
    early = None
    if args.file and not args.demo:
        # Read and laid out while the window is built (ui/early_open.py).
        from onnxstudio.ui.early_open import start_early_open
        early = start_early_open(args.file, settings)
    from onnxstudio.ui.main_window import MainWindow
    window = MainWindow(settings, theme_choice=args.theme, early_open=early)
    window.show()
    return app, window


def open_requested(window, args: argparse.Namespace) -> None:
    """What the command line asked to see, unless a crashed session's edits
    are recovered instead."""
    early, window.early_open = window.early_open, None
    if window.recovery.offer():
        pass                        # the recovered model is opening
    elif args.demo:
        window.open_demo()
    elif args.file:
        window.open_path(args.file, early=early)
        return
    if early is not None:
        early.cancel()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
