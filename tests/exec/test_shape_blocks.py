"""Shape arithmetic skipped while shapes stay (core/exec/shape_blocks.py).

A block's steps run only when a shape it reads is new; the results are
those of the steps run one by one, for every shape that comes by, and
what the caller gets is never one of the block's kept arrays."""
import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core.exec import ExecError, Session, shape_blocks

from one_graph import load_graph as _model, tensor as _tensor


@pytest.fixture
def member_calls(monkeypatch):
    """How many times each block member ran, by node name."""
    calls: dict = {}
    plain = shape_blocks.compile_step

    def counted(step, general, **kw):
        runner = plain(step, general, **kw)

        def run(values, frame):
            calls[step.node.name] = calls.get(step.node.name, 0) + 1
            runner(values, frame)
        return run
    monkeypatch.setattr(shape_blocks, "compile_step", counted)
    return calls


def _flatten_model(tmp_path):
    """x reshaped to (rows, cols*2) with the target computed from x's shape,
    plus a causal mask made from the shape (Range, Unsqueeze, Less)."""
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "i0"], ["rows"], name="rows"),
             helper.make_node("Gather", ["s", "i1"], ["cols"], name="cols"),
             helper.make_node("Mul", ["cols", "two"], ["cols2"], name="double"),
             helper.make_node("Div", ["rows", "two"], ["half"], name="half"),
             helper.make_node("Unsqueeze", ["half", "axes"], ["h1"], name="h1"),
             helper.make_node("Unsqueeze", ["cols2", "axes"], ["c1"], name="c1"),
             helper.make_node("Concat", ["h1", "c1"], ["target"], axis=0, name="target"),
             helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape"),
             helper.make_node("Range", ["zero", "cols", "one"], ["r"], name="range"),
             helper.make_node("Unsqueeze", ["r", "axes"], ["row"], name="row"),
             helper.make_node("Unsqueeze", ["r", "axes1"], ["col"], name="col"),
             helper.make_node("Less", ["row", "col"], ["mask"], name="mask")]
    inits = [("i0", np.array(0, np.int64)), ("i1", np.array(1, np.int64)), ("two", np.array(2, np.int64)),
             ("axes", np.array([0], np.int64)), ("axes1", np.array([1], np.int64)),
             ("zero", np.array(0, np.int64)), ("one", np.array(1, np.int64))]
    return _model(tmp_path, nodes, [_tensor("x", ["a", "b"])],
                  [_tensor("y", ["h", "w"]), _tensor("mask", ["b", "b"], TensorProto.BOOL)], inits)


def test_blocks_are_found_and_results_equal_the_graph_for_every_shape(tmp_path, member_calls):
    m = _flatten_model(tmp_path)
    s = Session(m)
    shapes = [(4, 3), (4, 3), (6, 5), (4, 3), (2, 1), (6, 5)]
    for rows, cols in shapes:
        x = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
        got = s.run({"x": x})
        want = Session(m, keep=True).run({"x": x})
        np.testing.assert_array_equal(got["y"], x.reshape(rows // 2, cols * 2))
        np.testing.assert_array_equal(got["mask"], want["mask"])
        assert got["mask"].shape == (cols, cols)
    # all shape arithmetic sits in blocks: the runners are fewer than the steps
    assert len(s.plan.runners) < len(s.plan.live_steps)
    # the first run goes through the general path, the blocks from the second:
    # (4, 3) computed, (6, 5) computed, (4, 3) remembered, (2, 1) computed, (6, 5) remembered
    assert member_calls["target"] == 3
    assert member_calls["shape"] == member_calls["target"]


def test_a_repeated_run_calls_no_block_member(tmp_path, member_calls):
    s = Session(_flatten_model(tmp_path))
    x = np.ones((4, 3), np.float32)
    for _ in range(3):
        s.run({"x": x})
    before = dict(member_calls)
    assert before                                 # the blocks ran their members once, when compiled
    for _ in range(5):
        s.run({"x": x})
    assert member_calls == before


def test_outputs_are_fresh_arrays_the_caller_may_change(tmp_path):
    s = Session(_flatten_model(tmp_path))
    x = np.ones((4, 3), np.float32)
    for _ in range(3):
        out = s.run({"x": x})
        assert out["mask"].flags.writeable
        out["mask"][:] = True                     # the caller's to change
    np.testing.assert_array_equal(s.run({"x": x})["mask"], np.tril(np.ones((3, 3), bool), -1))


def test_a_large_result_is_computed_every_time_and_stays_right(tmp_path, member_calls):
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("ConstantOfShape", ["s"], ["big"], name="fill",
                              value=numpy_helper.from_array(np.array([1.5], np.float32))),
             helper.make_node("Add", ["x", "big"], ["y"], name="add")]
    m = _model(tmp_path, nodes, [_tensor("x", ["a", "b"])], [_tensor("y", ["a", "b"])])
    s = Session(m)
    x = np.zeros((300, 300), np.float32)           # 90,000 elements: over the block's limit
    for _ in range(4):
        np.testing.assert_array_equal(s.run({"x": x})["y"], np.full((300, 300), 1.5, np.float32))
    assert member_calls["fill"] == 3
    small = np.zeros((2, 2), np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(s.run({"x": small})["y"], np.full((2, 2), 1.5, np.float32))
    assert member_calls["fill"] == 4


def test_a_block_step_that_fails_names_its_node(tmp_path):
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "i2"], ["third"], name="third_dim"),
             helper.make_node("Unsqueeze", ["third", "axes"], ["t"], name="t"),
             helper.make_node("Reshape", ["x", "t"], ["y"], name="reshape")]
    m = _model(tmp_path, nodes, [_tensor("x", None)], [_tensor("y", None)],
               [("i2", np.array(2, np.int64)), ("axes", np.array([0], np.int64))])
    s = Session(m)
    for _ in range(3):
        assert s.run({"x": np.ones((1, 1, 6), np.float32)})["y"].shape == (6,)
    with pytest.raises(ExecError, match="third_dim"):
        s.run({"x": np.ones((6,), np.float32)})       # no third dim now
    assert s.run({"x": np.ones((1, 1, 6), np.float32)})["y"].shape == (6,)


def test_stepping_sees_every_shape_value(tmp_path):
    s = Session(_flatten_model(tmp_path))
    x = np.ones((4, 3), np.float32)
    for _ in range(3):
        s.run({"x": x})
    s.start({"x": x})
    seen = {}
    while not s.done:
        seen.update(s.step().outputs)
    assert seen["target"].tolist() == [2, 6] and seen["cols2"].tolist() == 6 and seen["s"].tolist() == [4, 3]


def test_reshape_follows_a_fed_target_changed_in_place(tmp_path):
    """Reshape keeps the decoded target only for read-only arrays owning
    their memory (what shape blocks hand out), never for a caller's array."""
    m = _model(tmp_path, [helper.make_node("Reshape", ["x", "t"], ["y"])],
               [_tensor("x", [2, 6]), _tensor("t", [2], TensorProto.INT64)], [_tensor("y", None)])
    s = Session(m)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    t = np.array([3, 4], np.int64)
    for _ in range(3):
        assert s.run({"x": x, "t": t})["y"].shape == (3, 4)
    t[:] = [4, 3]
    assert s.run({"x": x, "t": t})["y"].shape == (4, 3)
    frozen = np.array([6, 2], np.int64)
    frozen.flags.writeable = False
    view = frozen[:]                                 # read-only, but a view
    for _ in range(2):
        assert s.run({"x": x, "t": frozen})["y"].shape == (6, 2)
        assert s.run({"x": x, "t": view})["y"].shape == (6, 2)
