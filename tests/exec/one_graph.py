"""A model of a few nodes, built with onnx.helper and loaded into our IR,
for the executor's tests."""
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core


def load_graph(tmp_path, nodes, inputs, outputs, inits=(), opset=17):
    """`inits` are (name, numpy array) pairs."""
    graph = helper.make_graph(nodes, "g", inputs, outputs, [numpy_helper.from_array(v, k) for k, v in inits])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    return core.load(path)


def tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)
