"""core/lazy_exports.py: a package hands out names from its modules, each
module imported on the first read of one of its names (PEP 562). Tried on
a package planted under tmp_path, then on the two packages that use it."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

PLANTED = {
    "__init__.py": ("from onnxstudio.core import lazy_exports\n"
                    "__getattr__, __dir__ = lazy_exports.on_first_use(\n"
                    "    globals(), {'plain': ('A', 'f'), 'deep.inner': ('B',), 'registry': ('KINDS',)},\n"
                    "    submodules=('tool',), loaded_first={'KINDS': ('kind_one', 'kind_two')})\n"),
    "plain.py": "A = object()\n\ndef f():\n    return 1\n",
    "deep/__init__.py": "",
    "deep/inner.py": "B = 'b'\n",
    "registry.py": "KINDS = []\n",
    "kind_one.py": "from .registry import KINDS\nKINDS.append('one')\n",
    "kind_two.py": "from .registry import KINDS\nKINDS.append('two')\n",
    "tool.py": "NAME = 'tool'\n",
}
NAME = "planted_lazy_package"


@pytest.fixture
def planted(tmp_path, monkeypatch):
    for relative, text in PLANTED.items():
        path = tmp_path / NAME / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib
    yield importlib.import_module(NAME)
    for module in [m for m in sys.modules if m == NAME or m.startswith(NAME + ".")]:
        del sys.modules[module]


def loaded() -> set[str]:
    return {m[len(NAME) + 1:] for m in sys.modules if m.startswith(NAME + ".")}


def test_a_name_imports_its_module_on_the_first_read_only(planted):
    assert loaded() == set()
    a = planted.A
    assert loaded() == {"plain"}
    assert a is sys.modules[f"{NAME}.plain"].A and planted.f() == 1
    assert vars(planted)["A"] is a              # stored: later reads do not come back to __getattr__
    assert planted.B == "b" and loaded() == {"plain", "deep", "deep.inner"}


def test_dir_lists_every_exported_name_before_any_is_read(planted):
    assert {"A", "f", "B", "KINDS"} <= set(dir(planted))
    assert loaded() == set()


def test_a_submodule_is_handed_out_as_itself(planted):
    assert "tool" not in dir(planted)
    assert planted.tool is sys.modules[f"{NAME}.tool"] and planted.tool.NAME == "tool"


def test_a_name_can_ask_for_other_modules_first(planted):
    assert planted.KINDS == ["one", "two"]       # the kinds registered themselves before the read


def test_an_unknown_name_is_an_attribute_error_naming_the_package(planted):
    with pytest.raises(AttributeError, match=f"module '{NAME}' has no attribute 'nothing'"):
        _ = planted.nothing
    assert not hasattr(planted, "kind_one")     # a module not exported stays out of reach, and unloaded
    assert loaded() == set()
    with pytest.raises(ImportError):
        exec(f"from {NAME} import nothing", {})


# In a child process: what importing onnxstudio.core and core.edits loads,
# and whether every name they list resolves.
PROBE = r"""
import json, sys
before = set(sys.modules)
import onnxstudio.core as core, onnxstudio.core.edits as edits
report = {"loaded": sorted(m for m in set(sys.modules) - before if m.startswith("onnxstudio"))}
for package in (core, edits):
    listed = set(dir(package))
    report[package.__name__] = {
        "not_in_dir": sorted(set(package.__all__) - listed),
        "unresolved": [n for n in package.__all__ if getattr(package, n, None) is None],
    }
report["check_is_the_module"] = core.check is sys.modules["onnxstudio.core.check"]
print(json.dumps(report))
"""


def test_core_and_edits_load_nothing_until_a_name_is_read_and_every_listed_name_resolves():
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    assert report["loaded"] == ["onnxstudio", "onnxstudio.core", "onnxstudio.core.edits",
                                "onnxstudio.core.lazy_exports"]
    for package in ("onnxstudio.core", "onnxstudio.core.edits"):
        assert report[package] == {"not_in_dir": [], "unresolved": []}, package
    assert report["check_is_the_module"]
