"""One-node models of onnxruntime's com.microsoft operators, and the two runs
the contrib kernel tests compare: ours, and onnxruntime's (CPU, graph
optimizations off, so each node runs as written)."""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

ort = pytest.importorskip("onnxruntime")

from onnxstudio import core  # noqa: E402
from onnxstudio.core.exec import run  # noqa: E402

MS = "com.microsoft"
ONNX_TYPE = {np.dtype(t): code for t, code in (
    (np.bool_, TensorProto.BOOL), (np.uint8, TensorProto.UINT8), (np.int8, TensorProto.INT8),
    (np.int32, TensorProto.INT32), (np.int64, TensorProto.INT64), (np.float16, TensorProto.FLOAT16),
    (np.float32, TensorProto.FLOAT), (np.float64, TensorProto.DOUBLE))}


def rand(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def one_node(op, inputs, attrs=None, outputs=("y",), *, domain=MS, opset=17, output_type=None,
             keep_trailing_empty=False):
    """A model of one node. `inputs`: (name, array or None) pairs; names
    starting with "x" become graph inputs, the others initializers (so
    prepared kernels get constant weights); None is an omitted input, and
    trailing omitted ones are dropped unless kept (onnxruntime's type checks
    of QLinearAdd reject them, while its table kernels read a slot that must
    exist). `outputs`: names, "" for an omitted optional one; typed with
    `output_type` when given (for ops onnxruntime cannot type by itself)."""
    graph_inputs, inits, names = [], [], []
    for name, value in inputs:
        if value is None:
            names.append("")
            continue
        names.append(name)
        value = np.asarray(value)
        if name.startswith("x"):
            graph_inputs.append(helper.make_tensor_value_info(name, ONNX_TYPE[value.dtype], value.shape))
        else:
            inits.append(numpy_helper.from_array(value, name))
    while names and not names[-1] and not keep_trailing_empty:
        names.pop()
    node = helper.make_node(op, names, list(outputs), domain=domain, **(attrs or {}))
    outs = [helper.make_tensor_value_info(o, output_type, None) if output_type is not None
            else helper.make_empty_tensor_value_info(o) for o in outputs if o]
    return model_of(helper.make_graph([node], "g", graph_inputs, outs, initializer=inits), opset)


def model_of(graph, opset=17):
    """`graph` as a model importing the default domain at `opset` and com.microsoft 1."""
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
    model.ir_version = 9
    return model


def ort_session(model, level=None):
    """`model`: a ModelProto or its bytes."""
    options = ort.SessionOptions()
    options.graph_optimization_level = level or ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model if isinstance(model, bytes) else model.SerializeToString()
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def ort_run(model, feeds, names) -> dict:
    return dict(zip(names, ort_session(model).run(names, feeds)))


def assert_close(ours, theirs, name, rtol, atol):
    ours = np.asarray(ours)
    assert ours.dtype == theirs.dtype, (name, ours.dtype, theirs.dtype)
    assert ours.shape == theirs.shape, (name, ours.shape, theirs.shape)
    np.testing.assert_allclose(ours.astype(np.float64), theirs.astype(np.float64), rtol=rtol, atol=atol,
                               err_msg=name)


def check(op, inputs, attrs=None, outputs=("y",), *, domain=MS, opset=17, rtol=1e-5, atol=1e-5):
    """Our run of one node equals onnxruntime's on every requested output;
    returns (ours, theirs)."""
    model = one_node(op, inputs, attrs, outputs, domain=domain, opset=opset)
    feeds = {n: v for n, v in inputs if v is not None and n.startswith("x")}
    names = [o for o in outputs if o]
    theirs = ort_run(model, feeds, names)
    ours = run(core.load_bytes(model.SerializeToString()), feeds)
    for name in names:
        assert_close(ours[name], theirs[name], f"{op} {name}", rtol, atol)
    return ours, theirs
