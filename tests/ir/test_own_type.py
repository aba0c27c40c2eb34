"""Value.own_type: what a value's type is before any analysis ran. Files
often leave initializers undeclared; their data still fixes the type, and
the Properties panel and edge labels must not call it "unknown" while the
checker is still running after an open."""
import numpy as np

from onnxstudio.core.ir import DataType, Graph, SparseTensor, Tensor, TensorType, Value
from onnxstudio.ui.canvas.scene import value_type_text


def _initializer(graph: Graph, array: np.ndarray, name: str) -> Value:
    v = Value(name)
    v.const = Tensor.from_numpy(array, name)
    return graph.add_initializer(v)


def test_an_undeclared_initializer_has_its_datas_type():
    g = Graph()
    w = _initializer(g, np.ones((128,), np.float32), "w")
    assert w.type is None
    assert w.own_type == TensorType(DataType.FLOAT, (128,))
    assert value_type_text(w, {}) == "float[128]"


def test_a_declared_type_wins_and_a_plain_value_has_none():
    g = Graph()
    w = _initializer(g, np.zeros((2, 3), np.int64), "w")
    w.type = TensorType(DataType.INT64, ("a", 3))
    assert w.own_type == TensorType(DataType.INT64, ("a", 3))
    assert Value("x").own_type is None
    assert value_type_text(Value("x"), {}) == ""


def test_a_sparse_initializer_has_its_dense_type():
    values = Tensor.from_numpy(np.array([1.5, 2.5], np.float32))
    indices = Tensor.from_numpy(np.array([0, 5], np.int64))
    v = Value("s")
    v.const = SparseTensor(values, indices, (2, 4))
    assert v.own_type == TensorType(DataType.FLOAT, (2, 4))
