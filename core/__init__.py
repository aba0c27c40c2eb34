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
from . import lazy_exports

# module (relative to this package) -> the names this package hands out from it
_EXPORTS = {
    "errors": ("CoreError", "ExternalDataError", "LoadError", "SaveError"),
    "ir": ("Attr", "AttrType", "DataType", "Function", "Graph", "IRError", "Model", "Node", "SparseTensor",
           "Tensor", "TensorType", "Value"),
    "serde.codec": ("from_numpy", "to_numpy"),
    "serde.io": ("SaveOptions", "load", "load_bytes", "save", "to_bytes"),
    "document": ("Document",),
}
# `check` is the submodule, which is also what core.check(model) calls.
__getattr__, __dir__ = lazy_exports.on_first_use(globals(), _EXPORTS, submodules=("check",))

__all__ = ["Document", "CoreError", "ExternalDataError", "LoadError", "SaveError", "Attr", "AttrType", "DataType",
           "Function", "Graph", "IRError", "Model", "Node", "SparseTensor", "Tensor", "TensorType", "Value",
           "SaveOptions", "from_numpy", "load", "load_bytes", "save", "to_bytes", "to_numpy"]
