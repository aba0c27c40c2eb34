"""Elementwise steps written over an operand that dies (core/exec/in_place.py):
the same values as the graph's own steps, and never over anything another
value, a constant or the caller can still see."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio.core.exec import Session, in_place

from one_graph import load_graph as _model, tensor

BIG = (64, 300)            # above in_place._MIN_ELEMENTS


def _tensor(name, dims=BIG, elem=TensorProto.FLOAT):
    return tensor(name, list(dims) if dims else None, elem)


@pytest.fixture
def in_place_writes(monkeypatch):
    """The steps that wrote in place, by node name, on each call."""
    seen = []
    plain = in_place._writable_alone

    def spy(x, refs):
        ok = plain(x, refs)
        if ok:
            seen.append(x.shape)
        return ok
    monkeypatch.setattr(in_place, "_writable_alone", spy)
    return seen


def _equal_to_the_graph(model, feeds, runs=4):
    s = Session(model)
    want = Session(model, keep=True).run(feeds)
    for _ in range(runs):
        got = s.run(feeds)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    return s


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_arithmetic_over_a_dying_operand_gives_the_graphs_values(tmp_path, in_place_writes, op, dtype):
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    rng = np.random.default_rng(0)
    row = (rng.standard_normal(BIG[1]) + 3).astype(dtype)
    nodes = [helper.make_node("Exp", ["x"], ["e"]),
             helper.make_node(op, ["e", "row"], ["y1"]),          # first operand dies
             helper.make_node("Neg", ["x"], ["n"]),
             helper.make_node(op, ["row", "n"], ["y2"])]          # second operand dies
    m = _model(tmp_path, nodes, [_tensor("x", elem=elem)], [_tensor("y1", elem=elem), _tensor("y2", elem=elem)],
               [("row", row)])
    x = rng.standard_normal(BIG).astype(dtype)
    _equal_to_the_graph(m, {"x": x})
    assert in_place_writes                           # it did write in place
    assert np.array_equal(x, x.copy())


def test_relu_and_clip_over_their_dying_input(tmp_path, in_place_writes):
    rng = np.random.default_rng(1)
    nodes = [helper.make_node("Exp", ["x"], ["e"]), helper.make_node("Sub", ["e", "one"], ["d"]),
             helper.make_node("Relu", ["d"], ["r"]),
             helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Clip", ["n", "lo", "hi"], ["c"]),
             helper.make_node("Sin", ["x"], ["n2"]), helper.make_node("Clip", ["n2", "", "hi"], ["c2"]),
             helper.make_node("Cos", ["x"], ["n3"]), helper.make_node("Clip", ["n3", "hi", "lo"], ["c3"]),
             helper.make_node("Tanh", ["x"], ["n4"]), helper.make_node("Clip", ["n4"], ["c4"])]
    m = _model(tmp_path, nodes, [_tensor("x")], [_tensor(n) for n in ("r", "c", "c2", "c3", "c4")],
               [("one", np.array(1, np.float32)), ("lo", np.array(-0.5, np.float32)),
                ("hi", np.array(0.25, np.float32))])
    x = rng.standard_normal(BIG).astype(np.float32)
    x[0, :3] = [np.nan, np.inf, -np.inf]
    s = _equal_to_the_graph(m, {"x": x})
    assert len(in_place_writes) == 6 * 3       # Sub, Relu and four Clips on each of the 3 compiled runs
    out = s.run({"x": x})
    assert np.all(out["c3"] == -0.5)           # low > high: `high` everywhere
    np.testing.assert_array_equal(out["c4"], np.tanh(x))


def test_nothing_another_value_can_see_is_overwritten(tmp_path):
    """A dying operand viewed by a live value (Reshape, Transpose), or
    aliased by Identity, or a feed or a constant, is left alone."""
    rng = np.random.default_rng(2)
    w = rng.standard_normal(BIG).astype(np.float32)
    nodes = [helper.make_node("Exp", ["x"], ["e"]),
             helper.make_node("Reshape", ["e", "flat"], ["view"]),        # a view of e, read at the end
             helper.make_node("Mul", ["e", "two"], ["m"]),               # e dies here, but `view` sees it
             helper.make_node("Exp", ["x"], ["f"]),
             helper.make_node("Identity", ["f"], ["alias"]),             # the same object under two names
             helper.make_node("Add", ["f", "two"], ["g"]),               # f dies, alias lives
             helper.make_node("Add", ["x", "two"], ["h"]),               # x is the caller's
             helper.make_node("Add", ["w", "x2"], ["k"]),                # w a constant; x2 the caller's
             helper.make_node("Transpose", ["m"], ["mt"]),
             helper.make_node("Relu", ["mt"], ["rt"]),                   # a transposed view: not contiguous
             helper.make_node("ReduceSum", ["view"], ["sv"], keepdims=0),
             helper.make_node("Sub", ["alias", "g"], ["diff"])]
    m = _model(tmp_path, nodes, [_tensor("x"), _tensor("x2")],
               [_tensor("h"), _tensor("k"), _tensor("rt", BIG[::-1]), _tensor("sv", ()), _tensor("diff")],
               [("two", np.array(2, np.float32)), ("flat", np.array([-1], np.int64)), ("w", w)])
    x = rng.standard_normal(BIG).astype(np.float32)
    x2 = rng.standard_normal(BIG).astype(np.float32)
    x_before, x2_before, w_before = x.copy(), x2.copy(), w.copy()
    s = _equal_to_the_graph(m, {"x": x, "x2": x2})
    assert np.array_equal(x, x_before) and np.array_equal(x2, x2_before)
    out = s.run({"x": x, "x2": x2})
    np.testing.assert_allclose(out["sv"], np.exp(x).sum(), rtol=1e-4)
    np.testing.assert_allclose(out["diff"], np.full(BIG, -2, np.float32), atol=1e-5)
    np.testing.assert_array_equal(out["k"], w_before + x2)


def test_an_output_the_caller_holds_is_not_reused_next_run(tmp_path):
    nodes = [helper.make_node("Exp", ["x"], ["y"]), helper.make_node("Mul", ["y", "two"], ["z"])]
    m = _model(tmp_path, nodes, [_tensor("x")], [_tensor("y"), _tensor("z")], [("two", np.array(2, np.float32))])
    s = Session(m)
    x = np.ones(BIG, np.float32)
    first = [s.run({"x": x}) for _ in range(3)]
    for out in first:
        np.testing.assert_allclose(out["y"], np.e, rtol=1e-6)       # y is an output: never written over
        np.testing.assert_allclose(out["z"], 2 * np.e, rtol=1e-6)
