"""A main-graph input's dim without a size (no value and no name, "?", -1)
is a size of its own named `<input>.<axis>`: what is computed from it is an
expression over that name, in memory and in written files, so our shapes say
at least as much as onnx's inference (which names each such dim `unk__N`)
on every value of an OCR-recogniser-like chain."""
from __future__ import annotations

import onnx
import onnx.checker
import onnx.shape_inference
import pytest

from onnxstudio import core
from onnxstudio.core.infer import Inference
from onnxstudio.core.infer.fresh import is_fresh
from onnxstudio.core.infer.merge import at_least_as_precise
from onnxstudio.core.ir.types import TensorType
from onnxstudio.core.serde.type_proto import type_from_proto
from onnxstudio.core.proto import onnx_pb2 as pb

from . import oracle
from .helpers import F, make_model, node, np, out

P0, P1 = "p2o.DynamicDimension.0", "p2o.DynamicDimension.1"

# Input shapes as PaddleOCR exports declare them: None is a dim with neither
# a value nor a name.
OCR_INPUTS = {
    "recogniser": [P0, 3, None, P1],
    "classifier": [-1, 3, None, None],
    "fixed-height": [None, 3, 48, -1],
    "question-marks": ["?", 3, "?", 320],
}


def _ocr_chain(x_shape, *, opset=18):
    """Conv (stride 2, then 2x1), pools, Resize, Concat, a Reshape built
    from Shape/Gather/Concat, Transpose, MatMul, Softmax: the shape ops of a
    text recogniser."""
    inits = [
        ("w1", np.ones((8, 3, 3, 3), np.float32)), ("w2", np.ones((8, 8, 3, 3), np.float32)),
        ("s", np.ones(8, np.float32)), ("b", np.zeros(8, np.float32)),
        ("scales", np.array([1, 1, 0.5, 1], np.float32)),
        ("i0", np.array([0], np.int64)), ("i3", np.array([3], np.int64)), ("m1", np.array([-1], np.int64)),
        ("axes2", np.array([2], np.int64)), ("wm", np.ones((16, 5), np.float32)),
    ]
    nodes = [
        node("Conv", ["x", "w1"], ["c1"], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1", "s", "b", "b", "s"], ["bn"]),
        node("Relu", ["bn"], ["r1"]),
        node("Conv", ["r1", "w2"], ["c2"], strides=[2, 1], pads=[1, 1, 1, 1]),
        node("MaxPool", ["c2"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        node("AveragePool", ["p"], ["ap"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        node("Resize", ["ap", "", "scales"], ["rs"], mode="nearest"),
        node("Concat", ["rs", "rs"], ["cat"], axis=1),
        node("Shape", ["cat"], ["shp"]),
        node("Gather", ["shp", "i0"], ["d0"], axis=0),
        node("Gather", ["shp", "i3"], ["d3"], axis=0),
        node("Concat", ["d0", "m1", "d3"], ["newshape"], axis=0),
        node("Reshape", ["cat", "newshape"], ["rsh"]),
        node("Transpose", ["rsh"], ["tr"], perm=[0, 2, 1]),
        node("ReduceMean", ["cat", "axes2"], ["sq"], keepdims=0),
        node("Transpose", ["sq"], ["tsq"], perm=[0, 2, 1]),
        node("MatMul", ["tsq", "wm"], ["mm"]),
        node("Softmax", ["mm"], ["y"], axis=-1),
        node("Flatten", ["cat"], ["fl"], axis=1),
        node("GlobalAveragePool", ["cat"], ["gap"]),
    ]
    return make_model(nodes, [("x", F, x_shape)], [out("y"), out("tr"), out("fl"), out("gap")],
                      initializers=inits, opset=opset)


def _onnx_types(proto) -> dict:
    """name -> type for every value onnx's data_prop inference types."""
    inferred = oracle.infer_with_onnx(proto)
    return oracle._graph_types(inferred.graph)


def _declared_types(proto) -> dict:
    out = {}
    for vi in list(proto.graph.value_info) + list(proto.graph.output):
        tp = pb.TypeProto()
        tp.ParseFromString(vi.type.SerializeToString())
        out[vi.name] = type_from_proto(tp)
    return out


def _misses(ours: dict, theirs: dict) -> list:
    # An unknown dim of ours where onnx has a name (its unk__N included) is
    # a miss, as is a different number or a lower rank.
    return [f"{n}: ours {ours.get(n)}, onnx {t}" for n, t in theirs.items() if not at_least_as_precise(ours.get(n), t)]


def test_input_dims_without_a_size_are_named_after_the_input_and_axis():
    r = Inference(_ocr_chain(OCR_INPUTS["recogniser"])).run()
    assert r["x"].shape == (P0, 3, "x.2", P1)
    assert r["c1"].shape == (P0, 8, "floor((x.2+1)/2)", f"floor(({P1}+1)/2)")
    assert r["c2"].shape[2] == "floor((x.2+3)/4)"
    assert r["tr"].shape == (P0, f"floor(({P1}+1)/8)", "16*floor((x.2+3)/32)")
    r = Inference(_ocr_chain(OCR_INPUTS["classifier"])).run()
    assert r["x"].shape == ("x.0", 3, "x.2", "x.3")
    assert r["mm"].shape == ("x.0", "floor((x.3+1)/8)", 5)
    assert r["gap"].shape == ("x.0", 16, 1, 1)


@pytest.mark.parametrize("kind", sorted(OCR_INPUTS))
def test_ocr_chains_say_as_much_as_onnx_in_memory_and_as_written(kind):
    model = _ocr_chain(OCR_INPUTS[kind])
    proto = onnx.load_from_string(core.to_bytes(model))
    theirs = _onnx_types(proto)
    assert len(theirs) >= 19
    inf = Inference(model)
    inf.run()
    assert not _misses(inf.types_in(model.graph), theirs)
    model, _ = inf.written_copy()    # the types stored, on a copy
    written = onnx.load_from_string(core.to_bytes(model))
    assert not _misses(_declared_types(written), theirs)
    # Valid ONNX: our names are dim_param strings onnx's checks accept.
    onnx.checker.check_model(written, full_check=True)
    # onnx's strict inference finds nothing to contradict in what we stored
    # (with the input's -1 read as the file means it, not as a size).
    onnx.shape_inference.infer_shapes(oracle.any_size_as_unknown(written), strict_mode=True, data_prop=True)


def test_a_written_copy_infers_as_it_was_written():
    model = _ocr_chain(OCR_INPUTS["classifier"])
    inf = Inference(model)
    first = dict(inf.run())
    model, _ = inf.written_copy()    # the types stored, on a copy
    again = core.load_bytes(core.to_bytes(model))
    second = Inference(again).run()
    assert dict(second) == first
    assert not Inference(again).run().diagnostics


def test_a_name_an_input_declares_is_never_taken():
    # y declares "x.0" for a size of its own: x's unknown axis 0 must not be
    # read as equal to it.
    m = make_model([node("Relu", ["x"], ["rx"]), node("Relu", ["y"], ["ry"])],
                   [("x", F, [None, 3]), ("y", F, ["x.0", 4])], [out("rx"), out("ry")])
    r = Inference(m).run()
    assert r["rx"].shape == ("x.0#2", 3) and r["ry"].shape == ("x.0", 4)


def test_names_follow_updates_of_the_inputs():
    m = make_model([node("Relu", ["x"], ["rx"]), node("Relu", ["y"], ["ry"])],
                   [("x", F, [None, 3]), ("y", F, [2, 4])], [out("rx"), out("ry")])
    inf = Inference(m)
    inf.run()
    x, y = m.graph.get_value("x"), m.graph.get_value("y")
    x.type = TensorType(F, (None, -1))
    inf.update(values=[x])
    assert inf.type_of(m.graph.get_value("rx")).shape == ("x.0", "x.1")
    # An input that now declares one of the names: x gives it up.
    y.type = TensorType(F, ("x.1", 4))
    inf.update(values=[y])
    assert inf.type_of(m.graph.get_value("rx")).shape == ("x.0", "x.1#2")
    assert inf.type_of(m.graph.get_value("ry")).shape == ("x.1", 4)


def test_subgraph_inputs_and_op_outputs_keep_per_run_names():
    # Only the model's own inputs are sizes a caller picks; a data-dependent
    # size stays a per-run ?N, written as an unknown dim.
    m = make_model([node("NonZero", ["x"], ["nz"])], [("x", F, [None, 3])], [out("nz", onnx.TensorProto.INT64)])
    inf = Inference(m)
    r = inf.run()
    assert r["x"].shape == ("x.0", 3) and is_fresh(r["nz"].shape[1])
    m, _ = inf.written_copy()    # the types stored, on a copy
    assert m.graph.get_value("nz").type.shape == (2, None)


def test_an_input_name_with_a_question_mark_is_written_whole():
    m = make_model([node("Relu", ["a?1"], ["r"])], [("a?1", F, [None])], [out("r")])
    inf = Inference(m)
    assert inf.run()["r"].shape == ("a?1.0",)
    m, _ = inf.written_copy()    # the types stored, on a copy
    assert m.graph.get_value("r").type.shape == ("a?1.0",)


def test_a_renamed_input_names_its_dims_anew_as_a_full_run_does():
    m = make_model([node("Relu", ["x"], ["r"])], [("x", F, [None, 3])], [out("r")])
    inf = Inference(m)
    inf.run()
    x = m.graph.get_value("x")
    m.graph.rename_value(x, "img")
    inf.update(values=[x])
    assert inf.type_of(m.graph.get_value("r")).shape == ("img.0", 3)
    assert dict(Inference(m).run()) == inf.types_in(m.graph)
