"""onnxstudio.core: everything the app does, usable from scripts without Qt.

    from onnxstudio import core
    model = core.load("model.onnx")
    core.save(model, "copy.onnx")

The names below are loaded from their modules on first use (PEP 562):
importing a submodule (`onnxstudio.core.gc_policy`, say) does not import
the IR, serde and numpy with it, so the app can set its start up before
they load (onnxstudio/app.py), and `core.check(model)` does not pay for the
checker's import until it is called.
"""
import importlib

# module (relative to this package) -> the names this package hands out from it
_EXPORTS = {
    ".errors": ("CoreError", "ExternalDataError", "LoadError", "SaveError"),
    ".ir": ("Attr", "AttrType", "DataType", "Function", "Graph", "IRError", "Model", "Node", "SparseTensor",
            "Tensor", "TensorType", "Value"),
    ".serde.codec": ("from_numpy", "to_numpy"),
    ".serde.io": ("SaveOptions", "load", "load_bytes", "save", "to_bytes"),
    ".document": ("Document",),
}
_HOME = {name: module for module, names in _EXPORTS.items() for name in names}


def __getattr__(name):
    if name == "check":             # the submodule, which is also what core.check(model) calls
        return importlib.import_module(".check", __name__)
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value         # later reads skip this function
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOME))


__all__ = ["Document", "CoreError", "ExternalDataError", "LoadError", "SaveError", "Attr", "AttrType", "DataType",
           "Function", "Graph", "IRError", "Model", "Node", "SparseTensor", "Tensor", "TensorType", "Value",
           "SaveOptions", "from_numpy", "load", "load_bytes", "save", "to_bytes", "to_numpy"]
