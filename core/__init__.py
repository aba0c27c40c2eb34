"""onnxstudio.core: everything the app does, usable from scripts without Qt.

    from onnxstudio import core
    model = core.load("model.onnx")
    core.save(model, "copy.onnx")
"""
from .errors import CoreError, ExternalDataError, LoadError, SaveError
from .ir import (Attr, AttrType, DataType, Function, Graph, IRError, Model, Node, SparseTensor, Tensor,
                 TensorType, Value)
from .serde.codec import from_numpy, to_numpy
from .serde.io import SaveOptions, load, load_bytes, save, to_bytes
from .document import Document


def __getattr__(name):
    # `core.check(model)` works without paying for the checker's import when
    # the app starts: the submodule is loaded on first use (PEP 562).
    if name == "check":
        import importlib
        return importlib.import_module(".check", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

__all__ = ["Document", "CoreError", "ExternalDataError", "LoadError", "SaveError", "Attr", "AttrType", "DataType",
           "Function", "Graph", "IRError", "Model", "Node", "SparseTensor", "Tensor", "TensorType", "Value",
           "SaveOptions", "from_numpy", "load", "load_bytes", "save", "to_bytes", "to_numpy"]
