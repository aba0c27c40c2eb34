"""`onnxstudio [FILE]` opens the app; `onnxstudio COMMAND ...` works headless."""
from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    # Layout may use worker processes (pygraphviz engine); frozen builds need
    # this, and only they (multiprocessing's import is not free).
    if getattr(sys, "frozen", False):
        import multiprocessing
        multiprocessing.freeze_support()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("--install-desktop", "--uninstall-desktop"):
        from . import desktop     # menu entry, *.onnx type, icons for this user
        return desktop.main(argv)
    from . import cli

    if cli.is_command(argv):
        return cli.main(argv)
    problem = cli.not_a_file_or_command(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    return main_gui(argv)


def main_gui(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from . import app   # imports Qt: only when the GUI is wanted

    return app.main(argv)


if __name__ == "__main__":
    sys.exit(main())
