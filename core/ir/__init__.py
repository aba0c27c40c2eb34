"""The in-memory model: Model, Graph, Node, Value, Attr, Tensor, types."""
from .dtypes import DataType, from_numpy_dtype, to_numpy_dtype, type_name
from .graph import Attr, AttrType, Graph, IRError, Node, Value
from .model import Function, Model
from .tensor import ExternalRef, SparseTensor, Tensor
from .types import (Dim, MapType, OpaqueType, OptionalType, SequenceType, SparseTensorType,
                    TensorType, Type, UndefinedType, format_shape)

__all__ = ["DataType", "from_numpy_dtype", "to_numpy_dtype", "type_name", "Attr", "AttrType", "Graph",
           "IRError", "Node", "Value", "Function", "Model", "ExternalRef", "SparseTensor", "Tensor",
           "Dim", "MapType", "OpaqueType", "OptionalType", "SequenceType", "SparseTensorType",
           "TensorType", "Type", "UndefinedType", "format_shape"]
