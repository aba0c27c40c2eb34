"""Which Python values an attribute of each type may hold.

Edits check a value before it reaches the IR, so a float typed into an INT
attribute or a string where a list of ints was meant is refused at the field
instead of failing later in serde."""
from __future__ import annotations

import numbers

import numpy as np

from ..ir import AttrType, SparseTensor, Tensor, Type


def _int(x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Integral):
        raise TypeError(f"expected an integer, got {x!r}")
    return int(x)


def _float(x):
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, numbers.Real):
        raise TypeError(f"expected a number, got {x!r}")
    return float(x)


def _str(x):
    if isinstance(x, bytes):
        try:
            return x.decode("utf-8")
        except UnicodeDecodeError:
            return x
    if not isinstance(x, str):
        raise TypeError(f"expected text, got {x!r}")
    return x


def _tensor(x):
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray) or np.isscalar(x):
        return Tensor.from_numpy(np.asarray(x))
    raise TypeError(f"expected a tensor (numpy array), got {type(x).__name__}")


def _sparse(x):
    if not isinstance(x, SparseTensor):
        raise TypeError(f"expected a sparse tensor, got {type(x).__name__}")
    return x


def _graph(x):
    if not hasattr(x, "nodes") or not hasattr(x, "inputs"):
        raise TypeError(f"expected a graph, got {type(x).__name__}")
    return x


def _type(x):
    if not isinstance(x, Type.__args__):
        raise TypeError(f"expected a type, got {type(x).__name__}")
    return x


_SCALAR = {AttrType.INT: _int, AttrType.FLOAT: _float, AttrType.STRING: _str, AttrType.TENSOR: _tensor,
           AttrType.SPARSE_TENSOR: _sparse, AttrType.GRAPH: _graph, AttrType.TYPE_PROTO: _type}
_LIST = {AttrType.INTS: _int, AttrType.FLOATS: _float, AttrType.STRINGS: _str, AttrType.TENSORS: _tensor,
         AttrType.SPARSE_TENSORS: _sparse, AttrType.GRAPHS: _graph, AttrType.TYPE_PROTOS: _type}


def check_attr_value(attr_type: int, value):
    """`value` converted to what the IR stores for `attr_type`; TypeError or
    ValueError saying what was expected."""
    try:
        t = AttrType(attr_type)
    except ValueError:
        raise ValueError(f"unknown attribute type {attr_type}") from None
    if t in _SCALAR:
        return _SCALAR[t](value)
    if t in _LIST:
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise TypeError(f"expected a list for a {t.name} attribute, got {value!r}")
        conv = _LIST[t]
        return [conv(x) for x in value]
    raise ValueError(f"attribute type {t.name} cannot be set")
