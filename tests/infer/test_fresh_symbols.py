"""Unknown dims keep what they know: strided windows over a symbolic dim give
an expression, truly unknown dims get a fresh name that travels with the
value, and a file's "-1" / "?" dims mean any size."""
from __future__ import annotations

import numpy as np
import onnx
import onnx.shape_inference
import pytest

from onnxstudio import core
from onnxstudio.core.exec.session import run
from onnxstudio.core.infer import Inference, infer
from onnxstudio.core.infer.dims import compact_dim, more_or_equally_precise
from onnxstudio.core.infer.fresh import is_fresh
from onnxstudio.core.ir.types import TensorType

from .helpers import F, I64, helper, make_model, node, out
from .test_exec_shapes import _evaluate


def _conv_chain(x_shape):
    w = np.ones((4, 3, 3, 3), np.float32)
    w2 = np.ones((4, 4, 3, 3), np.float32)
    nodes = [
        node("Conv", ["x", "w"], ["c1"], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("BatchNormalization", ["c1", "s", "b", "b", "s"], ["bn"]),
        node("Relu", ["bn"], ["r1"]),
        node("Conv", ["r1", "w2"], ["c2"], strides=[2, 2], pads=[1, 1, 1, 1]),
        node("MaxPool", ["c2"], ["p"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        node("ConvTranspose", ["p", "wt"], ["up"], strides=[2, 2], kernel_shape=[2, 2]),
        node("AveragePool", ["x"], ["same"], kernel_shape=[3, 3], strides=[3, 3], auto_pad="SAME_UPPER"),
        node("Resize", ["c1", "", "scales"], ["half"], mode="nearest"),
    ]
    inits = [("w", w), ("w2", w2), ("s", np.ones(4, np.float32)), ("b", np.zeros(4, np.float32)),
             ("wt", np.ones((4, 2, 2, 2), np.float32)), ("scales", np.array([1, 1, 0.5, 0.5], np.float32))]
    return make_model(nodes, [("x", F, x_shape)], [out("up"), out("same"), out("half")],
                      initializers=inits, opset=19)


def test_strided_windows_over_a_symbolic_dim_give_expressions():
    r = infer(_conv_chain(["N", 3, "H", "W"]))
    assert r["c1"].shape == ("N", 4, "floor((H+1)/2)", "floor((W+1)/2)")
    # BatchNorm and Relu carry the expression on unchanged.
    assert r["bn"].shape == r["r1"].shape == r["c1"].shape
    # Two stride-2 convolutions fold into one division.
    assert r["c2"].shape[2] == "floor((H+3)/4)"
    assert compact_dim(r["c1"].shape[2]) == "⌈H/2⌉" and compact_dim(r["c2"].shape[2]) == "⌈H/4⌉"
    assert compact_dim(r["half"].shape[2]) == "⌊(H+1)/4⌋"        # floor(ceil(H/2) * 0.5)
    assert compact_dim(r["same"].shape[3]) == "⌈W/3⌉"
    assert all(isinstance(d, str) and not is_fresh(d) for d in r["up"].shape[2:])


@pytest.mark.parametrize("hw", [(7, 10), (8, 8), (13, 1), (33, 64)])
def test_expressions_match_what_the_executor_computes(hw):
    m = _conv_chain(["N", 3, "H", "W"])
    types = Inference(m).run()
    h, w = hw
    values = run(m, {"x": np.zeros((2, 3, h, w), np.float32)}, keep=True)
    bindings = {"N": 2, "H": h, "W": w}
    checked = 0
    for name, arr in values.items():
        t = types.get(name)
        if not isinstance(t, TensorType) or t.shape is None:
            continue
        for d, n in zip(t.shape, arr.shape):
            v = d if isinstance(d, int) else _evaluate(d, bindings)
            assert v == n, f"{name}: {d} = {v}, ran {n}"
            checked += 1
    assert checked >= 30


def test_onnx_gives_fresh_names_where_we_give_expressions():
    m = _conv_chain(["N", 3, "H", "W"])
    proto = onnx.load_from_string(core.to_bytes(m))
    theirs = onnx.shape_inference.infer_shapes(proto)
    dims = {vi.name: [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]
            for vi in theirs.graph.value_info}
    assert dims["c1"][2].startswith("unk__")
    ours = infer(m)["c1"].shape[2]
    assert more_or_equally_precise(ours, "?" + dims["c1"][2][5:])
    assert not more_or_equally_precise(None, "?" + dims["c1"][2][5:])


def test_truly_unknown_dims_get_one_name_that_travels():
    nodes = [node("NonZero", ["x"], ["nz"]), node("Transpose", ["nz"], ["t"]),
             node("Cast", ["t"], ["f"], to=F), node("Relu", ["f"], ["r"]), node("Add", ["r", "f"], ["a"]),
             node("Shape", ["a"], ["s"])]
    r = infer(make_model(nodes, [("x", F, [3, 4])], [out("a"), out("s", I64)]))
    k = r["nz"].shape[1]
    assert is_fresh(k) and r["nz"].shape == (2, k)
    assert r["t"].shape == r["f"].shape == r["r"].shape == r["a"].shape == (k, 2)


def test_minus_one_and_question_mark_mean_any_size():
    # Paddle writes -1; some converters write "?". Neither is a size, and
    # two "?" are not the same size.
    nodes = [node("Conv", ["x", "w"], ["y"], strides=[2, 2], pads=[1, 1, 1, 1]),
             node("Add", ["a", "b"], ["s"])]
    m = make_model(nodes, [("x", F, [-1, 3, -1, "?"]), ("a", F, ["?"]), ("b", F, ["?"])], [out("y"), out("s")],
                   initializers=[("w", np.ones((4, 3, 3, 3), np.float32))])
    inf = Inference(m)
    r = inf.run()
    # Each is a size of its own, named after its input and axis.
    assert r["x"].shape == ("x.0", 3, "x.2", "x.3")
    assert r["y"].shape == ("x.0", 4, "floor((x.2+1)/2)", "floor((x.3+1)/2)")
    a, b, s = r["a"].shape[0], r["b"].shape[0], r["s"].shape[0]
    assert (a, b) == ("a.0", "b.0") and is_fresh(s)
    # The model itself is untouched.
    assert m.graph.get_value("x").type.shape == (-1, 3, -1, "?")


def test_names_survive_an_update_and_are_not_written_to_the_file():
    nodes = [node("NonZero", ["x"], ["nz"]), node("Relu", ["x"], ["r"])]
    m = make_model(nodes, [("x", F, [3, "K"])], [out("nz", I64), out("r")])
    inf = Inference(m)
    inf.run()
    before = inf.type_of(m.graph.get_value("nz"))
    x = m.graph.get_value("x")
    x.type = TensorType(F, (5, "K"))
    inf.update(values=[x])
    assert inf.type_of(m.graph.get_value("nz")) == before
    assert inf.type_of(m.graph.get_value("r")).shape == (5, "K")
    m, _ = inf.written_copy()    # the types stored, on a copy
    assert m.graph.get_value("nz").type.shape == (2, None)


def test_function_bodies_do_not_share_names_between_calls():
    fn = helper.make_function("local", "Nz", ["u"], ["v"], [node("NonZero", ["u"], ["v"])],
                              [helper.make_opsetid("", 21)])
    m = make_model([node("Nz", ["x"], ["y1"], domain="local"), node("Nz", ["x2"], ["y2"], domain="local")],
                   [("x", F, [3]), ("x2", F, [4])], [out("y1", I64), out("y2", I64)],
                   functions=[fn], extra_opsets={"local": 1})
    r = infer(m)
    assert is_fresh(r["y1"].shape[1]) and is_fresh(r["y2"].shape[1])
    assert r["y1"].shape[1] != r["y2"].shape[1]


def test_a_made_up_name_inside_an_expression_reads_as_a_question_mark():
    """A Conv broken by `group` left its output unknown, and the MaxPool after
    it read `float[?,?,⌈?3/2⌉,⌈?4/2⌉]` on the canvas: the made-up names showed
    inside the expressions. The full name stays in the type (tooltips)."""
    from onnxstudio.core.infer.dims import dim_add, dim_floordiv
    half = dim_floordiv(dim_add("?3", 1), 2)
    assert "?3" in half and compact_dim(half) == "⌈?/2⌉"
    assert compact_dim(dim_floordiv(dim_add("H", 1), 2)) == "⌈H/2⌉"
    assert compact_dim("?7") == "?" and compact_dim("batch") == "batch"
