"""Architecture rules: core has no Qt; the app needs neither onnx nor onnxruntime."""
import ast
import pathlib
import subprocess
import sys
import textwrap

REPO = pathlib.Path(__file__).resolve().parent.parent
QT_OR_UI = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "onnxstudio.ui", "ui")
ORACLES = ("onnx", "onnxruntime")


def _imports(path: pathlib.Path):
    """(module name, is at module level, relative level) for every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top_level = {id(n) for n in tree.body}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, id(node) in top_level, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", id(node) in top_level, node.level


def _root(name: str) -> str:
    return name.split(".")[0]


def test_core_never_imports_qt_ui_or_the_app_shell():
    offenders = []
    for path in (REPO / "core").rglob("*.py"):
        depth = len(path.relative_to(REPO / "core").parts)   # core/x.py -> 1
        for name, _, level in _imports(path):
            if level and level > depth:
                offenders.append(f"{path}: relative import escapes core ({'.' * level}{name})")
            elif not level and (name in QT_OR_UI or _root(name) in QT_OR_UI or name.startswith("onnxstudio")
                                and not name.startswith("onnxstudio.core")):
                offenders.append(f"{path}: imports {name}")
    assert not offenders, "\n".join(offenders)


def test_no_oracle_imports_at_module_level_in_the_app():
    offenders = []
    for folder in ("core", "ui", "onnxstudio"):
        for path in (REPO / folder).rglob("*.py"):
            for name, top, level in _imports(path):
                if not level and top and _root(name) in ORACLES:
                    offenders.append(f"{path}: imports {name} at module level")
    assert not offenders, "\n".join(offenders)


def test_core_works_without_onnx_onnxruntime_and_qt():
    script = textwrap.dedent(f"""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("onnx", "onnxruntime", "PySide6", "shiboken6"):
                    raise ImportError("blocked for this test: " + name)
        sys.meta_path.insert(0, Block())
        import numpy as np
        from onnxstudio import core
        from onnxstudio.core.exec import run
        m = core.load({str(REPO / 'resources' / 'samples' / 'demo.onnx')!r})
        out = run(m, {{"pixels": np.zeros((1, 3, 32, 32), np.float32), "use_softmax": np.array(True)}})
        assert out["probs"].shape == (1, 10)
        core.load_bytes(core.to_bytes(m))
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def _imported_names(path: pathlib.Path):
    """(module, name) for every `from module import name` in a file, the
    module resolved against core/ for relative imports."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = list(path.relative_to(REPO / "core").parent.parts)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            for alias in node.names:
                yield module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, ""


def test_the_checker_and_inference_stand_below_the_edits_and_use_serde_through_public_names():
    """The checker and inference take an edit's Changes (core/changes.py) but
    never import the edits package; the checker reaches serde only through
    its public names."""
    offenders = []
    for folder in ("check", "infer"):
        for path in (REPO / "core" / folder).rglob("*.py"):
            for module, name in _imported_names(path):
                if module == "edits" or module.startswith("edits.") or "onnxstudio.core.edits" in module:
                    offenders.append(f"{path}: imports {module}")
                if folder == "check" and (module == "serde" or module.startswith("serde.")) \
                        and name.startswith("_"):
                    offenders.append(f"{path}: imports the private {module}.{name}")
    assert not offenders, "\n".join(offenders)
