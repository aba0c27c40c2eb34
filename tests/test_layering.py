"""Architecture rules, as import contracts over the source tree.

Each contract is a function of a tree's root that returns its violations,
so it runs on the checkout and, in the tests at the end, on a small fake
tree with one violation planted (a contract that can never fail proves
nothing). The tree is read as source (ast), never imported.

- ir is at the bottom: core/ir imports nothing of core but itself and a
  few leaf modules, which themselves import no more than dtypes, errors and
  the protobuf bindings; of ir, only tensor.py imports protobuf.
- core never imports Qt, ui or the shell.
- ui never imports the shell.
- no module imports another module's private (_underscored) names.
- no code outside core/ir reads or writes a private attribute of an IR
  object (`v._uses`, `g._nodes`, `n._index`...): the IR's public readers
  and documented mutators are the way in, so it can keep its invariants.
- the app never imports onnx or onnxruntime at module level, and core
  works with them and Qt blocked.
- no import circles: the modules a module imports at module level never
  lead back to it (issue 21 found ir/graph.py <-> ir/subgraphs.py and
  layout/bundling.py <-> layout/stacking.py; a circle works only as long as
  the first module imported stays the same one).
"""
import ast
import functools
import pathlib
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from typing import Optional

import pytest

REPO = pathlib.Path(__file__).resolve().parent.parent
# Folder -> the package it installs as (setup.py's package-dir mapping).
PACKAGES = {"onnxstudio": "onnxstudio", "core": "onnxstudio.core", "ui": "onnxstudio.ui",
            "resources": "onnxstudio.resources"}
QT = ("PySide6", "shiboken6", "PyQt5", "PyQt6")
ORACLES = ("onnx", "onnxruntime")

CORE, UI, IR = "onnxstudio.core", "onnxstudio.ui", "onnxstudio.core.ir"
# ui may use core and the bundled resources (sample model, icons, styles);
# everything else under onnxstudio is the shell.
UI_MAY_USE = (CORE, UI, "onnxstudio.resources")
# What core/ir may import from the rest of core, and why:
IR_MAY_USE = (
    "onnxstudio.core.proto",          # our onnx.proto bindings: a Tensor wraps its TensorProto
    "onnxstudio.core.serde.codec",    # tensor bytes <-> numpy, which Tensor decodes on first use
    "onnxstudio.core.opsets",         # the versioned opset lookup Model.opset() answers with
    "onnxstudio.core.gc_policy",      # the collector paused while a graph is built (stdlib only)
)
# ... and those leaves stay leaves: they may import only these of core.
LEAVES_MAY_USE = ("onnxstudio.core.ir.dtypes", "onnxstudio.core.errors", "onnxstudio.core.proto")
# Of core/ir, only the Tensor reads protobuf (issue 21: protobuf stays out of
# the IR where that is cheap; types convert in serde/type_proto.py).
PROTOBUF = ("onnxstudio.core.proto", "onnxstudio.core.serde.codec", "google.protobuf")
IR_PROTOBUF_READER = "onnxstudio.core.ir.tensor"


def _within(module: str, prefixes) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


@dataclass(frozen=True)
class Import:
    where: str              # "core/ir/tensor.py:16"
    importer: str           # module doing the import: "onnxstudio.core.ir.tensor"
    package: str            # the importer's package: "onnxstudio.core.ir"
    target: str             # module imported, resolved: "onnxstudio.core.serde.codec"
    name: Optional[str]     # a name taken from `target` (None: the module itself)
    top_level: bool         # at module level (not inside a function or class)


def _module_of(root: pathlib.Path, path: pathlib.Path) -> tuple[str, str]:
    """(module, package) of a source file, as installed."""
    rel = path.relative_to(root)
    parts = [PACKAGES[rel.parts[0]], *rel.parts[1:-1]]
    package = ".".join(parts)
    return (package if path.name == "__init__.py" else f"{package}.{path.stem}"), package


def _sources(root: pathlib.Path):
    for folder in PACKAGES:
        if (root / folder).is_dir():
            yield from sorted((root / folder).rglob("*.py"))


@functools.lru_cache(maxsize=None)
def imports(root: pathlib.Path) -> tuple[Import, ...]:
    """Every import in the app's folders under `root`, relative ones resolved
    (read once per tree: each contract on the checkout asks again)."""
    sources = list(_sources(root))
    known = {_module_of(root, p)[0] for p in sources}
    found = []
    for path in sources:
        module, package = _module_of(root, path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        where = f"{path.relative_to(root)}:"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    found.append(Import(where + str(node.lineno), module, package, alias.name, None,
                                        id(node) in top))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    up = package.split(".")
                    keep = len(up) - (node.level - 1)
                    # Reaching above onnxstudio itself: outside the app.
                    base = ".".join(up[:keep] + ([node.module] if node.module else [])) if keep > 0 \
                        else "<above onnxstudio>"
                else:
                    base = node.module or ""
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    target, name = (sub, None) if sub in known else (base, alias.name)
                    found.append(Import(where + str(node.lineno), module, package, target, name,
                                        id(node) in top))
    return tuple(found)


def _shown(imp: Import) -> str:
    return imp.target + (f" ({imp.name})" if imp.name else "")


# -- the contracts --------------------------------------------------------------------------

def ir_violations(root: pathlib.Path) -> list[str]:
    out = []
    for imp in imports(root):
        if _within(imp.importer, (IR,)) and imp.importer != IR_PROTOBUF_READER and _within(imp.target, PROTOBUF):
            out.append(f"{imp.where}: ir imports {_shown(imp)}; of ir only tensor.py reads protobuf")
            continue
        if not _within(imp.target, ("onnxstudio",)) or imp.target.startswith("<"):
            continue
        if _within(imp.importer, (IR,)) and not _within(imp.target, (IR, *IR_MAY_USE)):
            out.append(f"{imp.where}: ir imports {_shown(imp)}")
        leaf = next((m for m in IR_MAY_USE if _within(imp.importer, (m,))), None)
        if leaf and _within(imp.target, (CORE,)) and not _within(imp.target, (leaf, *LEAVES_MAY_USE)):
            out.append(f"{imp.where}: {leaf}, a leaf ir uses, imports {_shown(imp)}")
    return out


def core_violations(root: pathlib.Path) -> list[str]:
    out = []
    for imp in imports(root):
        if not _within(imp.importer, (CORE,)):
            continue
        first = imp.target.split(".")[0]
        if first in QT or first == "ui" or imp.target.startswith("<") \
                or (first == "onnxstudio" and not _within(imp.target, (CORE,))):
            out.append(f"{imp.where}: core imports {_shown(imp)}")
    return out


def ui_violations(root: pathlib.Path) -> list[str]:
    out = []
    for imp in imports(root):
        if not _within(imp.importer, (UI,)):
            continue
        if imp.target.startswith("<") or (_within(imp.target, ("onnxstudio",))
                                          and not _within(imp.target, UI_MAY_USE)):
            out.append(f"{imp.where}: ui imports the shell: {_shown(imp)}")
    return out


def private_name_violations(root: pathlib.Path) -> list[str]:
    """A private name taken from another module. A package's own private
    modules (`from . import _jpeg` inside that package) are its business."""
    out = []
    for imp in imports(root):
        if imp.name is None or not _is_private(imp.name) or not _within(imp.target, ("onnxstudio",)):
            continue
        if imp.target in (imp.importer, imp.package):
            continue
        out.append(f"{imp.where}: {imp.importer} imports {imp.name} from {imp.target}")
    return out


def _class_private_names(tree: ast.Module) -> set:
    """The private attribute and method names of the classes in `tree`:
    their __slots__, what their methods assign to `self._x`, their `_methods`."""
    names = set()
    for cls in ast.walk(tree):
        if not isinstance(cls, ast.ClassDef):
            continue
        for node in ast.walk(cls):
            if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__"
                                                    for t in node.targets):
                names.update(e.value for e in ast.walk(node.value)
                             if isinstance(e, ast.Constant) and isinstance(e.value, str))
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(e.attr for t in targets for e in ast.walk(t)
                             if isinstance(e, ast.Attribute) and isinstance(e.value, ast.Name)
                             and e.value.id == "self")
            elif isinstance(node, ast.FunctionDef) and node in cls.body:
                names.add(node.name)
    return {n for n in names if _is_private(n)}


def ir_private_names(root: pathlib.Path) -> frozenset:
    """The private attribute and method names of core/ir's classes."""
    names = set()
    for path in (root / "core" / "ir").rglob("*.py"):
        names |= _class_private_names(ast.parse(path.read_text(encoding="utf-8")))
    return frozenset(names)


def _is_own(receiver: ast.expr) -> bool:
    """`self.x`, `cls.x`, `super().x`: a class's own attributes, not the IR's."""
    if isinstance(receiver, ast.Name):
        return receiver.id in ("self", "cls")
    return isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"


def ir_private_attribute_violations(root: pathlib.Path) -> list[str]:
    """An IR object's private attribute or method used outside core/ir, as
    `x._name` or getattr/setattr/hasattr(x, "_name"). Names are matched, not
    types: a name a module's own classes also use privately is that
    module's business (one class of it reading another's), and elsewhere a
    class with a private name of the IR's would show up here, so the IR
    avoids such names (Model keeps `_main_graph`, not `_graph`, which
    Changes has)."""
    ir_names = ir_private_names(root)
    out = []
    for path in _sources(root):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("core/ir/"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = ir_names - _class_private_names(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in names and not _is_own(node.value):
                out.append(f"{rel}:{node.lineno}: {ast.unparse(node)} is the IR's private state")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id in ("getattr", "setattr", "hasattr") and len(node.args) >= 2 \
                    and isinstance(node.args[1], ast.Constant) and node.args[1].value in names \
                    and not _is_own(node.args[0]):
                out.append(f"{rel}:{node.lineno}: {ast.unparse(node)} reads the IR's private state")
    return out


def oracle_violations(root: pathlib.Path) -> list[str]:
    return [f"{imp.where}: imports {imp.target} at module level" for imp in imports(root)
            if imp.top_level and imp.target.split(".")[0] in ORACLES]


def import_circle_violations(root: pathlib.Path) -> list[str]:
    """A circle of module-level imports, named from its first module in
    sorted order. What a module names counts (a module, or a package's
    __init__ when a name comes from the package); the package __init__s
    Python runs on the way to a module do not, or every module of a package
    whose __init__ gathers its names would stand in a circle with it.
    Imports inside functions are the way to break a circle and do not count."""
    modules = {imp.importer for imp in imports(root)}
    where: dict = {}
    for imp in imports(root):
        if not imp.top_level:
            continue
        target = f"{imp.target}.{imp.name}" if imp.name and f"{imp.target}.{imp.name}" in modules else imp.target
        if target in modules and target != imp.importer:
            where.setdefault(imp.importer, {}).setdefault(target, imp.where)
    out, settled = [], set()
    for start in sorted(where):
        if start in settled:
            continue
        circle = _circle_from(start, where)
        if circle is not None:
            settled.update(circle)
            steps = ", ".join(f"{m} imports {nxt} ({where[m][nxt]})" for m, nxt in zip(circle, circle[1:] + circle[:1]))
            out.append(f"{where[circle[0]][circle[1]]}: import circle: {steps}")
        settled.add(start)
    return out


def _circle_from(start: str, where: dict) -> Optional[list]:
    """The modules of an import circle through `start`, in import order
    (depth first, so the first one found), or None."""
    path, todo, seen = [start], [iter(sorted(where.get(start, ())))], {start}
    while todo:
        nxt = next(todo[-1], None)
        if nxt is None:
            todo.pop()
            path.pop()
        elif nxt == start:
            return path
        elif nxt not in seen:
            seen.add(nxt)
            path.append(nxt)
            todo.append(iter(sorted(where.get(nxt, ()))))
    return None


CONTRACTS = [ir_violations, core_violations, ui_violations, private_name_violations, oracle_violations,
             ir_private_attribute_violations, import_circle_violations]


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda c: c.__name__)
def test_the_checkout_keeps_the_contract(contract):
    violations = contract(REPO)
    assert not violations, "\n".join(violations)


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


# -- each contract fails on a planted violation ------------------------------------------------

# A small tree that keeps every contract: the shapes of imports the real one has.
CLEAN_TREE = {
    "onnxstudio/__init__.py": "",
    "onnxstudio/errors.py": "",
    "onnxstudio/app.py": "from onnxstudio.ui.window import Window\nfrom onnxstudio.core import load\n",
    "resources/__init__.py": "",
    "core/__init__.py": "from .serde.io import load\n",
    "core/errors.py": "",
    "core/opsets.py": "",
    "core/proto/__init__.py": "",
    "core/proto/onnx_pb2.py": "from google.protobuf import descriptor as _descriptor\n",
    "core/ir/__init__.py": "from .graph import Graph\n",
    "core/ir/dtypes.py": "import numpy\n",
    "core/ir/graph.py": "NOT_DECODED = object()\n_hidden = 1\n\n"
                        "class Value:\n    __slots__ = ('name', '_uses')\n\n"
                        "class Graph:\n    def __init__(self):\n        self._nodes = []\n\n"
                        "    def _refresh_indices(self):\n        pass\n",
    "core/ir/tensor.py": "from ..proto import onnx_pb2 as pb\nfrom ..serde import codec\n",
    "core/serde/__init__.py": "",
    "core/serde/codec.py": "from ..errors import CoreError\nfrom ..ir.dtypes import DataType\n",
    "core/serde/io.py": "from ..ir.graph import NOT_DECODED\n\ndef load():\n    import onnx\n",
    "core/exec/__init__.py": "",
    "core/exec/kernels/__init__.py": "",
    "core/exec/kernels/_util.py": "",
    "core/exec/kernels/conv.py": "from . import _util\nfrom ._util import ints\n",
    # Classes of its own with a private name the IR also has: their business.
    "core/exec/plan.py": "class Plan:\n    def __init__(self):\n        self._nodes = []\n"
                         "        super()._refresh_indices()\n\n"
                         "class Rows:\n    def __init__(self, plan):\n        self.rows = plan._nodes\n",
    "core/check/__init__.py": "",
    "core/check/live.py": "from ..serde.convert import ProtoWriter\n",
    "ui/__init__.py": "",
    "ui/panels/__init__.py": "",
    "ui/window.py": "from PySide6.QtCore import QObject\nfrom onnxstudio import resources\nfrom ..core import ir\n",
}

PLANTED = {
    ir_violations: [
        ("core/ir/graph.py", "from ..edits import Edit\n"),
        ("core/ir/model.py", "from onnxstudio.core.infer import Inference\n"),
        ("core/serde/codec.py", "from ..ir.graph import Graph\n"),     # a leaf ir uses stops being one
        ("core/ir/types.py", "from ..proto import onnx_pb2 as pb\n"),  # protobuf beyond the Tensor
        ("core/ir/graph.py", "def f():\n    from google.protobuf import message\n"),
    ],
    core_violations: [
        ("core/serde/io.py", "from PySide6.QtCore import QSettings\n"),
        ("core/document.py", "from onnxstudio.ui.window import Window\n"),
        ("core/recovery.py", "from ..errors import UserError\n"),      # relative, up into the shell
        ("core/recovery.py", "from onnxstudio import errors\n"),
    ],
    ui_violations: [
        ("ui/settings.py", "from onnxstudio.errors import UserError\n"),
        ("ui/window.py", "from .. import errors\n"),
        ("ui/panels/props.py", "def f():\n    from ...app import main\n"),
    ],
    private_name_violations: [
        ("core/edits/script.py", "from ..serde.io import _Writer\n"),
        ("core/check/live.py", "from .graph_rules import _type_too_new\n"),     # the checker too, since issue 21
        ("core/exec/debug.py", "from .kernels._util import _pad\n"),
        ("ui/canvas.py", "def f():\n    from onnxstudio.core.ir.graph import _hidden\n"),
        ("onnxstudio/cli.py", "from onnxstudio.ui.window import _helper\n"),
        ("core/exec/kernels/pool.py", "from .conv import _prepare\n"),
    ],
    ir_private_attribute_violations: [
        ("core/exec/bodies.py", "def f(v):\n    return v._uses\n"),                   # a slot
        ("core/serde/convert.py", "def f(g):\n    g._nodes.append(1)\n"),            # set in __init__
        ("core/infer/engine.py", "def f(g):\n    g._refresh_indices()\n"),           # a private method
        ("ui/canvas.py", "def f(g):\n    return getattr(g, '_nodes', None)\n"),
        ("onnxstudio/cli.py", "def f(v):\n    setattr(v, '_uses', [])\n"),
    ],
    oracle_violations: [
        ("core/check/session.py", "import onnx\n"),
        ("ui/compare.py", "from onnxruntime import InferenceSession\n"),
    ],
    import_circle_violations: [
        ("core/ir/graph.py", "from ..serde.io import load\n"),     # io imports graph: a pair
        ("core/ir/dtypes.py", "from .tensor import Tensor\n"),     # tensor -> codec -> dtypes: three
    ],
}


def _write_tree(root: pathlib.Path, files: dict) -> pathlib.Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("contract", CONTRACTS, ids=lambda c: c.__name__)
def test_the_clean_fake_tree_keeps_the_contract(tmp_path, contract):
    assert contract(_write_tree(tmp_path, CLEAN_TREE)) == []


@pytest.mark.parametrize("contract, rel, text",
                         [(c, rel, text) for c, cases in PLANTED.items() for rel, text in cases],
                         ids=lambda x: x.__name__ if callable(x) else None)
def test_a_planted_violation_breaks_the_contract(tmp_path, contract, rel, text):
    files = dict(CLEAN_TREE)
    files[rel] = files.get(rel, "") + text
    violations = contract(_write_tree(tmp_path, files))
    assert violations and all(v.startswith(rel + ":") for v in violations), violations


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


@pytest.mark.parametrize("planted, circle", [
    # ir's __init__ gathers tensor's names; codec reads Graph from the package
    ({"core/ir/__init__.py": "from .tensor import Tensor\n",
      "core/serde/codec.py": "from ..ir import Graph\n"},
     ["onnxstudio.core.ir", "onnxstudio.core.ir.tensor", "onnxstudio.core.serde.codec"]),
    # the circle issue 21 found in the layout, by module names
    ({"core/layout/__init__.py": "", "core/layout/bundling.py": "from .stacking import stack\n",
      "core/layout/stacking.py": "from .bundling import curve\n"},
     ["onnxstudio.core.layout.bundling", "onnxstudio.core.layout.stacking"]),
])
def test_an_import_circle_is_named_module_by_module(tmp_path, planted, circle):
    violations = import_circle_violations(_write_tree(tmp_path, {**CLEAN_TREE, **planted}))
    assert len(violations) == 1, violations
    steps = violations[0].split("import circle: ", 1)[1].split(", ")
    assert [step.split(" imports ")[0] for step in steps] == circle


@pytest.mark.parametrize("planted", [
    # a package's __init__ importing the module that imports a sibling: how
    # tensor -> serde.codec -> ir.dtypes stands today (Python runs ir's
    # __init__ on the way to dtypes; that is not an import of the package)
    {"core/ir/__init__.py": "from .graph import Graph\nfrom .tensor import Tensor\n"},
    # a circle broken by importing inside a function
    {"core/layout/__init__.py": "", "core/layout/bundling.py": "from .stacking import stack\n",
     "core/layout/stacking.py": "def stack():\n    from .bundling import curve\n"},
])
def test_what_is_not_an_import_circle(tmp_path, planted):
    assert import_circle_violations(_write_tree(tmp_path, {**CLEAN_TREE, **planted})) == []
