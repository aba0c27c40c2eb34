"""A float16 model whose result is cast back to a float32 output (what
onnxruntime's float16 converter writes with keep_io_types): the output holds
float16's precision, so one float16 epsilon there is agreement, as it is in
the float16 value it is cast from. Found on a transformers BERT converted so:
every node agreed with onnxruntime but the last Cast, called DIFFERENT."""
import numpy as np
import onnx
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec.compare import LOW_PRECISION_FLOOR, CarriedPrecision, carried_precision
from onnxstudio.core.exec.other_references import compare_with_golden
from onnxstudio.core.exec.session import Session


def fp16_inside(tmp_path):
    """x (float32) -> Cast to float16 -> Mul by a float16 weight -> Cast to
    float32 -> Add a float32 input -> y; and z = Mul(y, the float32 of a
    computation at full precision) which is no longer of float16 precision."""
    w = np.linspace(0.5, 1.5, 8).astype(np.float16)
    nodes = [
        helper.make_node("Cast", ["x"], ["x16"], to=TensorProto.FLOAT16),
        helper.make_node("Mul", ["x16", "w"], ["h16"]),
        helper.make_node("Cast", ["h16"], ["h32"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["h32", "bias_in"], ["y"]),
        helper.make_node("Exp", ["x"], ["full"]),
        helper.make_node("Mul", ["y", "full"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes, "fp16", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8]),
                        helper.make_tensor_value_info("bias_in", TensorProto.FLOAT, [8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [8]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [8])],
        [helper.make_tensor("w", TensorProto.FLOAT16, [8], w.tolist())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, tmp_path / "m.onnx")
    return core.load(tmp_path / "m.onnx")


def feeds():
    return {"x": np.linspace(1.0, 2.0, 8).astype(np.float32), "bias_in": np.full(8, 0.25, np.float32)}


def test_which_values_carry_float16_precision(tmp_path):
    model = fp16_inside(tmp_path)
    s = Session(model, keep=True)
    s.run(feeds())
    values = {**feeds(), **s.values}
    carried = carried_precision(model.graph, values)
    # The Cast back and what only adds a graph input to it; not what also reads a float32 computation.
    assert carried.low == {"h32": np.dtype(np.float16), "y": np.dtype(np.float16)}
    floor = LOW_PRECISION_FLOOR[np.dtype(np.float16)]
    assert carried.tolerances("y", 1e-3, 1e-4) == (floor, floor)
    assert carried.tolerances("z", 1e-3, 1e-4) == (1e-3, 1e-4)
    # Learnt node by node (the memory-bounded comparison): the same.
    step = CarriedPrecision(model.graph)
    for node in model.graph.nodes:
        step.note(node, lambda name: values[name].dtype if name in values else None)
    assert step.low == carried.low


def test_one_float16_epsilon_in_the_float32_output_agrees(tmp_path):
    model = fp16_inside(tmp_path)
    s = Session(model, keep=True)
    s.run(feeds())
    golden = {k: np.array(v, copy=True) for k, v in s.values.items() if k not in feeds()}
    # The reference's float16 product is two epsilons off at one element (a
    # different order of rounding), which float32 tolerances call a difference there.
    h16 = golden["h16"]
    assert 1 <= h16[3] < 1.5
    for _ in range(2):
        h16[3] = np.nextafter(h16[3], np.float16(np.inf))
    golden["h32"] = h16.astype(np.float32)
    golden["y"] = golden["h32"] + feeds()["bias_in"]
    report = compare_with_golden(model, feeds(), {k: golden[k] for k in ("h16", "h32", "y")}, own=False)
    assert report.values["h16"].agrees and report.values["h32"].agrees and report.values["y"].agrees
    assert report.first_divergence is None
    # A float32 output off by as much, at full precision, is still a difference.
    golden_z = np.array(s.values["z"], copy=True)
    golden_z[3] *= 1 + 2 * float(np.finfo(np.float16).eps)
    report = compare_with_golden(model, feeds(), {"z": golden_z}, own=False)
    assert not report.values["z"].agrees
