"""Small models the editing tests change through the UI (built with the onnx
package, which the tests may use as an oracle and a builder)."""
from __future__ import annotations

import numpy as np


def write_conv_model(path) -> str:
    """x[1,3,8,8] -> Conv "conv1" (W, B) -> Relu "relu1" -> Cast "cast1" -> y,
    with a second output branch Sigmoid "sig1" reading the Relu."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    rng = np.random.default_rng(0)
    w = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "W")
    b = numpy_helper.from_array(np.arange(4, dtype=np.float32), "B")
    nodes = [
        helper.make_node("Conv", ["x", "W", "B"], ["c"], name="conv1", kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu1"),
        helper.make_node("Cast", ["r"], ["y"], name="cast1", to=TensorProto.FLOAT),
        helper.make_node("Sigmoid", ["r"], ["s"], name="sig1"),
    ]
    graph = helper.make_graph(
        nodes, "convnet",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 4, 8, 8])],
        [w, b])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                              producer_name="edit-tests")
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


SPARSE_DENSE = np.array([[0, 1.5, 0, 0], [0, 0, 0, 0], [0, 0, 0, -2]], np.float32)
SPARSE_CONST_DENSE = np.array([5, 0, 0, 0, 7, 0], np.int64)


def write_sparse_model(path) -> str:
    """x[3,4] + S -> y, where S is a sparse initializer (SPARSE_DENSE: 2 of 12
    elements stored); a Constant "const1" whose sparse_value (SPARSE_CONST_DENSE:
    2 of 6 stored) is the graph output k."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    def sparse(dense, name):
        idx = np.flatnonzero(dense).astype(np.int64)
        return helper.make_sparse_tensor(numpy_helper.from_array(dense.reshape(-1)[idx], name),
                                         numpy_helper.from_array(idx, name + "_indices"), list(dense.shape))
    nodes = [helper.make_node("Constant", [], ["k"], name="const1", sparse_value=sparse(SPARSE_CONST_DENSE, "kv")),
             helper.make_node("Add", ["x", "S"], ["y"], name="add1")]
    graph = helper.make_graph(
        nodes, "sparse",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("k", TensorProto.INT64, [6])],
        sparse_initializer=[sparse(SPARSE_DENSE, "S")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="edit-tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return str(path)


def saved_sparse(sp) -> np.ndarray:
    """The dense array of an onnx SparseTensorProto (linear or coordinate indices)."""
    from onnx import numpy_helper
    values, indices = numpy_helper.to_array(sp.values), numpy_helper.to_array(sp.indices)
    dense = np.zeros(tuple(sp.dims), values.dtype)
    if indices.ndim == 2:
        indices = np.ravel_multi_index(indices.T, dense.shape) if indices.size else indices.reshape(-1)
    dense.reshape(-1)[indices] = values
    return dense
