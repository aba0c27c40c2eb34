"""Build the PyInstaller one-folder bundle of onnxstudio.

    python packaging/build_bundle.py [--dist DIR] [--work DIR]

The result is DIR/onnxstudio/ (default: dist/onnxstudio/ in the checkout),
started as DIR/onnxstudio/onnxstudio. It needs the package installed in the
running Python (`pip install -e '.[bundle]'` brings PyInstaller too).

What goes in: onnxstudio with every sub-package and data file (commands are
found at run time, so all are collected), PySide6 (QtCore/Gui/Widgets/Svg and
their plugins), numpy, protobuf, ml_dtypes. What stays out: the test oracles
(onnx, onnxruntime) and the optional extras (Pillow, pygraphviz). Graphviz is
not bundled: the bundle runs the `dot` program found on PATH (or named by
$ONNXSTUDIO_DOT), and without it lays out graphs with the built-in layout.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
NAME = "onnxstudio"
# The package as setup.py lays it out (core/ and ui/ install inside onnxstudio).
# PyInstaller cannot follow an editable install's import hook, so the sources
# are staged in that shape first.
PACKAGE_DIRS = {"onnxstudio": "onnxstudio", "onnxstudio/core": "core",
                "onnxstudio/ui": "ui", "onnxstudio/resources": "resources"}
# Imported lazily by the app (oracles, optional extras) or pulled in by
# PyInstaller's hooks without being needed; none is wanted in the bundle.
EXCLUDED = ["onnx", "onnxruntime", "PIL", "pygraphviz", "graphviz", "tkinter", "matplotlib",
            "scipy", "pandas", "IPython", "pytest", "hypothesis", "setuptools", "pip",
            "PySide6.QtNetwork", "PySide6.QtQml", "PySide6.QtQuick", "PySide6.QtOpenGL",
            "PySide6.QtDBus", "PySide6.QtPrintSupport"]


def stage_sources(work: pathlib.Path) -> pathlib.Path:
    stage = work / "src"
    if stage.exists():
        shutil.rmtree(stage)
    for target, source in PACKAGE_DIRS.items():
        shutil.copytree(ROOT / source, stage / target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
    return stage


def pyinstaller_args(dist: pathlib.Path, work: pathlib.Path, stage: pathlib.Path) -> list[str]:
    args = [str(HERE / "entry.py"), "--name", NAME, "--onedir", "--noconfirm", "--clean",
            "--paths", str(stage),
            "--log-level", "WARN", "--distpath", str(dist), "--workpath", str(work),
                    "--specpath", str(work),
            "--copy-metadata", "onnxstudio", "--hidden-import", "PySide6.QtSvg"]
    # Every module, listed from the staged tree: kernels and sub-commands are
    # imported by name at run time, which no import analysis can see (and
    # PyInstaller's collect-submodules misses core/ui under an editable install).
    for path in sorted(stage.rglob("*.py")):
        parts = path.relative_to(stage).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        args += ["--hidden-import", ".".join(parts)]
    # Data files (sample model, icons, styles, operator schemas), as setup.py's
    # package_data ships them; Python sources are compiled in by the analysis.
    for path in sorted(stage.rglob("*")):
        if path.is_file() and path.suffix not in (".py", ".pyc", ".md", ".pyi"):
            args += ["--add-data", f"{path}{os.pathsep}{path.parent.relative_to(stage).as_posix()}"]
    for name in EXCLUDED:
        args += ["--exclude-module", name]
    return args


def build(dist: pathlib.Path, work: pathlib.Path) -> pathlib.Path:
    try:
        import PyInstaller.__main__ as pyinstaller
    except ImportError:
        raise SystemExit("build_bundle: PyInstaller is not installed; "
                         "run `pip install -e '.[bundle]'` (or `pip install pyinstaller`)") from None
    try:
        import onnxstudio  # noqa: F401
    except ImportError:
        raise SystemExit("build_bundle: onnxstudio is not installed in this Python; "
                         "run `pip install -e .` in the checkout first") from None
    stage = stage_sources(work)
    pyinstaller.run(pyinstaller_args(dist, work, stage))
    return dist / NAME


def folder_size(path: pathlib.Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dist", type=pathlib.Path, default=ROOT / "dist",
                        help="where the bundle folder goes (default: dist/)")
    parser.add_argument("--work", type=pathlib.Path, default=ROOT / "build" / "pyinstaller",
                        help="PyInstaller's scratch folder (default: build/pyinstaller/)")
    args = parser.parse_args(argv)
    start = time.monotonic()
    bundle = build(args.dist.resolve(), args.work.resolve())
    seconds = time.monotonic() - start
    exe = bundle / NAME
    if not exe.is_file():
        print(f"build_bundle: PyInstaller finished but {exe} is missing", file=sys.stderr)
        return 1
    print(f"bundle: {bundle} ({folder_size(bundle) / 2**20:.0f} MB, built in {seconds:.0f} s); "
          f"run {exe}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
