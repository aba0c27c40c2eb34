"""Merged steps (core/exec/fusion.py) give what the unmerged steps give.

A session's second run goes through the merged runners; a keep=True
session runs every node as the graph says. Both must agree bit for bit
(the merged forms do the same float operations in the same order), the
merging must really happen, and a merged unit that fails must report the
node as the general path does."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec import ExecError, Session

from one_graph import load_graph as _save, tensor as _tensor


def _merged_matches_unmerged(model, feeds_list):
    """Runs every feed twice on one session (the second run is merged) and
    once with keep=True; returns the merged session."""
    merged = Session(model)
    for feeds in feeds_list:
        merged.run(feeds)
        got = merged.run(feeds)
        want = Session(model, keep=True).run(feeds)
        assert set(got) == set(want)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)
    return merged


def _merged_count(session) -> int:
    return len(session.plan.live_steps) - len(session.plan.runners)


def test_matmul_bias_add(tmp_path):
    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 6)).astype(np.float32)
    b = rng.standard_normal(6).astype(np.float32)
    wide = rng.standard_normal((3, 4, 6)).astype(np.float32)   # would grow the product: not in place
    m = _save(tmp_path, [helper.make_node("MatMul", ["x", "w"], ["p"]),
                         helper.make_node("Add", ["b", "p"], ["y"]),
                         helper.make_node("MatMul", ["x", "w"], ["q"]),
                         helper.make_node("Add", ["q", "wide"], ["z"])],
              [_tensor("x", [4, 8])], [_tensor("y", [4, 6]), _tensor("z", [3, 4, 6])],
              [("w", w), ("b", b), ("wide", wide)])
    s = _merged_matches_unmerged(m, [{"x": rng.standard_normal((4, 8)).astype(np.float32)}])
    assert _merged_count(s) == 2    # two MatMul+Add pairs, each one runner


def test_matmul_bias_then_residual_and_mask_adds(tmp_path):
    """The bias and a residual (a value of the run) add into the product;
    a mask that broadcasts too; a residual of another dtype or of a larger
    shape takes the Add kernel; a third Add stays a step of its own."""
    rng = np.random.default_rng(1)
    w = rng.standard_normal((8, 8)).astype(np.float32)
    b = rng.standard_normal(8).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["p"]),
             helper.make_node("Add", ["p", "b"], ["pb"]),
             helper.make_node("Add", ["x", "pb"], ["res"]),           # residual first
             helper.make_node("Add", ["res", "x"], ["again"]),        # a third Add: not merged
             helper.make_node("MatMul", ["x", "w"], ["s"]),
             helper.make_node("Add", ["s", "mask"], ["masked"]),      # mask (1, 8) over (4, 8)
             helper.make_node("MatMul", ["x", "w"], ["t"]),
             helper.make_node("Add", ["t", "big"], ["grown"])]        # (2, 4, 8): not in place
    m = _save(tmp_path, nodes,
              [_tensor("x", [4, 8]), _tensor("mask", [1, 8]), _tensor("big", [2, 4, 8])],
              [_tensor("again", [4, 8]), _tensor("masked", [4, 8]), _tensor("grown", [2, 4, 8])],
              [("w", w), ("b", b)])
    feeds = {"x": rng.standard_normal((4, 8)).astype(np.float32),
             "mask": np.where(rng.random((1, 8)) > 0.5, 0, -1e4).astype(np.float32),
             "big": rng.standard_normal((2, 4, 8)).astype(np.float32)}
    s = _merged_matches_unmerged(m, [feeds])
    assert _merged_count(s) == 4      # MatMul+Add+Add, MatMul+Add, MatMul+Add
    out = s.run(feeds)
    np.testing.assert_allclose(out["again"], feeds["x"] @ w + b + 2 * feeds["x"], rtol=1e-5, atol=1e-5)
    assert np.array_equal(out["grown"], (feeds["x"] @ w)[None] + feeds["big"])


def test_softmax_nan_scrub_with_and_without_nan(tmp_path):
    zero = np.array(0, np.float32)
    m = _save(tmp_path, [helper.make_node("Softmax", ["x"], ["p"], axis=-1),
                         helper.make_node("IsNaN", ["p"], ["nan"]),
                         helper.make_node("Where", ["nan", "zero", "p"], ["y"])],
              [_tensor("x", [2, 3, 5])], [_tensor("y", [2, 3, 5])], [("zero", zero)])
    x = np.random.default_rng(1).standard_normal((2, 3, 5)).astype(np.float32)
    masked = x.copy()
    masked[1, 2, :] = -np.inf          # a fully masked row: softmax gives NaN, the scrub zeros
    s = _merged_matches_unmerged(m, [{"x": x}, {"x": masked}])
    assert _merged_count(s) == 2
    assert np.array_equal(s.run({"x": masked})["y"][1, 2], np.zeros(5, np.float32))


def test_softmax_nan_scrub_on_many_rows_whatever_the_rows_hold(tmp_path):
    """32 rows take the kernel's shared-shift form, which tells the merged
    unit when it made no NaN; every case still equals the unmerged steps."""
    zero = np.array(0, np.float32)
    m = _save(tmp_path, [helper.make_node("Softmax", ["x"], ["p"]),
                         helper.make_node("IsNaN", ["p"], ["nan"]),
                         helper.make_node("Where", ["nan", "zero", "p"], ["y"])],
              [_tensor("x", [4, 8, 16])], [_tensor("y", [4, 8, 16])], [("zero", zero)])
    x = np.random.default_rng(3).standard_normal((4, 8, 16)).astype(np.float32)
    masked = x.copy()
    masked[2, 5, :] = -np.inf                   # fully masked: NaN, scrubbed to zeros
    far = x.copy()
    far[1, 1, :] -= 200                         # far below the tensor's maximum: redone, no NaN
    with_nan, with_inf = x.copy(), x.copy()
    with_nan[0, 0, 3] = np.nan
    with_inf[3, 7, 0] = np.inf
    feeds = [{"x": v} for v in (x, masked, far, with_nan, with_inf)]
    s = _merged_matches_unmerged(m, feeds)
    assert _merged_count(s) == 2
    assert np.array_equal(s.run({"x": masked})["y"][2, 5], np.zeros(16, np.float32))
    assert not np.isnan(s.run({"x": far})["y"]).any()
    assert np.isclose(s.run({"x": far})["y"][1, 1].sum(), 1)


def test_layer_norm_without_statistics_outputs(tmp_path):
    rng = np.random.default_rng(2)
    g = rng.standard_normal(16).astype(np.float32)
    b = rng.standard_normal(16).astype(np.float32)
    m = _save(tmp_path, [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], epsilon=1e-3)],
              [_tensor("x", ["n", 16])], [_tensor("y", ["n", 16])], [("g", g), ("b", b)])
    feeds = [{"x": rng.standard_normal((5, 16)).astype(np.float32)},
             {"x": rng.standard_normal((1, 16)).astype(np.float32)}]
    _merged_matches_unmerged(m, feeds)
    # float64 input: the merged unit hands it to the general kernel
    m64 = _save(tmp_path, [helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"])],
                [_tensor("x", [2, 16], TensorProto.DOUBLE)], [_tensor("y", [2, 16], TensorProto.DOUBLE)],
                [("g", g.astype(np.float64)), ("b", b.astype(np.float64))])
    _merged_matches_unmerged(m64, [{"x": rng.standard_normal((2, 16))}])


def test_repeated_computations_are_done_once(tmp_path):
    """The same operator on the same data twice (a per-layer mask): the
    second reuses the first's result. (Shape arithmetic goes to shape
    blocks instead: tests/exec/test_shape_blocks.py.)"""
    axes_a = np.array([0], np.int64)
    axes_b = np.array([0], np.int64)         # a second initializer with the same value
    nodes = [helper.make_node("Unsqueeze", ["x", "axes_a"], ["u1"]),
             helper.make_node("Unsqueeze", ["x", "axes_b"], ["u2"]),
             helper.make_node("Neg", ["u1"], ["y1"]),
             helper.make_node("Abs", ["u2"], ["y2"])]
    m = _save(tmp_path, nodes, [_tensor("x", ["a", "b"])], [_tensor("y1", [1, "a", "b"]), _tensor("y2", [1, "a", "b"])],
              [("axes_a", axes_a), ("axes_b", axes_b)])
    feeds = [{"x": np.full((2, 3), -1, np.float32)}, {"x": np.full((4, 5), 2, np.float32)}]
    s = _merged_matches_unmerged(m, feeds)
    assert _merged_count(s) == 0          # repeats are replaced, not removed
    assert sum(r.__qualname__.startswith("_Matching._repeated") for r in s.plan.runners) == 1
    assert np.array_equal(s.run(feeds[1])["y2"], np.full((1, 4, 5), 2, np.float32))


def test_a_merged_unit_that_fails_names_its_node(tmp_path):
    w = np.ones((8, 6), np.float32)
    m = _save(tmp_path, [helper.make_node("MatMul", ["x", "w"], ["p"], name="proj"),
                         helper.make_node("Add", ["p", "b"], ["y"], name="bias")],
              [_tensor("x", ["n", "k"])], [_tensor("y", ["n", 6])], [("w", w), ("b", np.ones(6, np.float32))])
    s = Session(m)
    s.run({"x": np.ones((2, 8), np.float32)})
    s.run({"x": np.ones((2, 8), np.float32)})
    assert _merged_count(s) == 1
    with pytest.raises(ExecError, match="proj"):
        s.run({"x": np.ones((2, 5), np.float32)})


def test_stepping_after_merged_runs_sees_every_value(tmp_path):
    w = np.ones((4, 4), np.float32)
    m = _save(tmp_path, [helper.make_node("MatMul", ["x", "w"], ["p"]),
                         helper.make_node("Add", ["p", "b"], ["y"])],
              [_tensor("x", [2, 4])], [_tensor("y", [2, 4])], [("w", w), ("b", np.ones(4, np.float32))])
    s = Session(m)
    feeds = {"x": np.ones((2, 4), np.float32)}
    s.run(feeds)
    s.run(feeds)
    s.start(feeds)
    first = s.step()
    assert "p" in first.outputs and np.array_equal(first.outputs["p"], np.full((2, 4), 4, np.float32))
    s.step()
    assert np.array_equal(s.results()["y"], np.full((2, 4), 5, np.float32))


@pytest.mark.parametrize("name", ["bert_small", "bert_12layer_narrow"])
def test_shared_transformers_merged_equal_unmerged(name):
    from shared_models import shared_model
    d = shared_model(name)
    model = core.load(d / "model.onnx")
    s = _merged_matches_unmerged(model, [dict(np.load(d / "inputs.npz"))])
    assert _merged_count(s) > 0


def test_remembered_shape_arithmetic_follows_changed_inputs(tmp_path):
    """Shape arithmetic recognises last run's objects; a feed changed in
    place, or an input of another shape, must still give new results."""
    one = np.array([1], np.int64)
    nodes = [helper.make_node("Shape", ["x"], ["s"]),
             helper.make_node("Add", ["s", "k"], ["s1"]),
             helper.make_node("Mul", ["s1", "two"], ["s2"]),
             helper.make_node("Concat", ["s2", "one"], ["y"], axis=0)]
    m = _save(tmp_path, nodes, [_tensor("x", ["a", "b"]), _tensor("k", [2], TensorProto.INT64)],
              [_tensor("y", [3], TensorProto.INT64)], [("two", np.array(2, np.int64)), ("one", one)])
    s = Session(m)
    x = np.zeros((2, 3), np.float32)
    k = np.array([10, 20], np.int64)
    for _ in range(3):
        assert s.run({"x": x, "k": k})["y"].tolist() == [24, 46, 1]
    k[0] = 0                                   # the same object, changed
    assert s.run({"x": x, "k": k})["y"].tolist() == [4, 46, 1]
    assert s.run({"x": np.zeros((5, 3), np.float32), "k": k})["y"].tolist() == [10, 46, 1]
    assert s.run({"x": x, "k": k})["y"].tolist() == [4, 46, 1]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("form", ["div", "mul-swapped"])
def test_gelu_as_torch_exports_it(tmp_path, dtype, form):
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    c = np.array(np.sqrt(2.0) if form == "div" else 1 / np.sqrt(2.0), dtype)
    scale = (helper.make_node("Div", ["x", "c"], ["t"]) if form == "div"
             else helper.make_node("Mul", ["c", "x"], ["t"]))
    nodes = [scale, helper.make_node("Erf", ["t"], ["e"]),
             helper.make_node("Add", ["one", "e"] if form != "div" else ["e", "one"], ["a"]),
             helper.make_node("Mul", ["a", "x"] if form != "div" else ["x", "a"], ["m"]),
             helper.make_node("Mul", ["half", "m"] if form != "div" else ["m", "half"], ["y"])]
    m = _save(tmp_path, nodes, [_tensor("x", [3, 70], elem)], [_tensor("y", [3, 70], elem)],
              [("c", c), ("one", np.array(1, dtype)), ("half", np.array(0.5, dtype))])
    x = np.random.default_rng(3).standard_normal((3, 70)).astype(dtype) * 3
    x[0, :3] = [np.inf, -np.inf, np.nan]
    s = _merged_matches_unmerged(m, [{"x": x}])
    assert _merged_count(s) == 4


def test_a_merged_unit_that_raises_is_counted_and_still_right(tmp_path, monkeypatch):
    """A fast form raising where the general path computes falls back
    silently (the numbers stay right) but is counted, so the autouse check
    in conftest.py fails a test whose model makes one fall back."""
    from onnxstudio.core.exec import fallbacks, fusion

    rng = np.random.default_rng(5)
    m = _save(tmp_path, [helper.make_node("Softmax", ["x"], ["p"]),
                         helper.make_node("IsNaN", ["p"], ["nan"]),
                         helper.make_node("Where", ["nan", "zero", "p"], ["y"])],
              [_tensor("x", [3, 5])], [_tensor("y", [3, 5])], [("zero", np.zeros((), np.float32))])
    feeds = {"x": rng.standard_normal((3, 5)).astype(np.float32)}

    def planted(x):
        raise RuntimeError("planted")
    monkeypatch.setattr(fusion, "softmax_last_axis", planted)
    s = _merged_matches_unmerged(m, [feeds])
    assert _merged_count(s) == 2
    assert fallbacks.silent() == {"Softmax+IsNaN+Where": 1}
    fallbacks.reset()       # planted: not a failure of this test


def test_an_in_place_step_that_raises_is_counted(tmp_path, monkeypatch):
    from onnxstudio.core.exec import fallbacks, in_place

    x = np.ones((4, 1 << 12), np.float32)
    m = _save(tmp_path, [helper.make_node("Neg", ["x"], ["n"]), helper.make_node("Relu", ["n"], ["y"])],
              [_tensor("x", list(x.shape))], [_tensor("y", list(x.shape))], [])

    def planted(*args, **kwargs):
        raise RuntimeError("planted")
    monkeypatch.setitem(in_place._UNARY, "Relu", (6, planted))
    _merged_matches_unmerged(m, [{"x": x}])
    assert fallbacks.silent() == {"Relu in place": 1}
    fallbacks.reset()       # planted: not a failure of this test

