"""Small models built with onnx.helper (test-only) and loaded into our IR."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core


def make_model(nodes, inputs, outputs, *, initializers=(), value_info=(), opset=21,
               functions=(), extra_opsets=None):
    """inputs/outputs: (name, elem, shape) tuples; shape None = no shape."""
    def vi(spec):
        name, elem, shape = spec
        return helper.make_tensor_value_info(name, elem, shape)

    graph = helper.make_graph(
        nodes, "g", [vi(i) for i in inputs], [vi(o) for o in outputs],
        initializer=[numpy_helper.from_array(np.asarray(a), n) for n, a in initializers],
        value_info=[vi(v) for v in value_info])
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in (extra_opsets or {}).items()]
    m = helper.make_model(graph, opset_imports=opsets, functions=list(functions))
    m.ir_version = 10
    return core.load_bytes(m.SerializeToString())


def out(name, elem=TensorProto.FLOAT):
    return (name, elem, None)


F, I64, B = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
node = helper.make_node
__all__ = ["make_model", "out", "node", "F", "I64", "B", "onnx", "helper", "np"]
