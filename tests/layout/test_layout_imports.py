"""core/layout stays plain Python: no Qt, no ui, no onnx/onnxruntime at runtime."""
from __future__ import annotations

import ast
import pathlib

import onnxstudio.core.layout as layout_pkg

FORBIDDEN = ("PySide6", "PyQt5", "PyQt6", "shiboken6", "onnx", "onnxruntime", "onnxstudio.ui")


def imported_modules(path: pathlib.Path):
    tree = ast.parse(path.read_text("utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def test_no_forbidden_imports():
    folder = pathlib.Path(layout_pkg.__file__).parent
    files = sorted(folder.glob("*.py"))
    assert len(files) > 5
    for path in files:
        for module in imported_modules(path):
            root = module.split(".")[0]
            assert root not in FORBIDDEN and not module.startswith("onnxstudio.ui"), (path.name, module)
