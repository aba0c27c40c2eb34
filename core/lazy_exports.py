"""A package's names handed out from its modules on first use (PEP 562).

`onnxstudio.core` and `onnxstudio.core.edits` list the names they export
and the module each comes from; importing the package imports none of
those modules, so the app's start pays only for what it reads (see
tests/test_app_start.py). Both build their module-level `__getattr__` and
`__dir__` here:

    __getattr__, __dir__ = lazy_exports.on_first_use(globals(), {"errors": ("CoreError",)})

Imports only the standard library: every `onnxstudio.core` import runs it.
"""
from __future__ import annotations

import importlib
from typing import Callable, Iterable, Mapping


def on_first_use(namespace: dict, exports: Mapping[str, Iterable[str]], *, submodules: Iterable[str] = (),
                 loaded_first: Mapping[str, Iterable[str]] | None = None) -> tuple[Callable, Callable]:
    """(__getattr__, __dir__) for the package whose globals are `namespace`.

    `exports` maps a module, relative to the package ("serde.io"), to the
    names taken from it. A name in `submodules` is the package's submodule
    of that name (`core.check` is the module, which is also what
    `core.check(model)` calls). `loaded_first` maps an exported name to
    modules imported before it is read: `edits.EDIT_KINDS` is complete only
    once every module that registers an edit kind has run.

    A name read once is stored in the package's globals, so later reads do
    not come back here. `dir()` lists every exported name, loaded or not.
    """
    package = namespace["__name__"]
    home = {name: module for module, names in exports.items() for name in names}
    submodules = frozenset(submodules)
    loaded_first = dict(loaded_first or {})

    def __getattr__(name: str):
        if name in submodules:
            # Importing it also sets it on the package: no need to store it.
            return importlib.import_module(f".{name}", package)
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        for first in loaded_first.get(name, ()):
            importlib.import_module(f".{first}", package)
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(home))

    return __getattr__, __dir__
