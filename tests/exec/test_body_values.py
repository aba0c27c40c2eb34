"""Values inside If/Loop bodies kept by a whole run (issue 22)."""
import numpy as np
import pytest

from shared_models import SHARED_MODELS
from onnxstudio.core import load
from onnxstudio.core.exec import Session
from onnxstudio.core.exec.debug import DebugRun

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402


def nested_if_model(path):
    """x -> If(x.sum() > 0) whose then-branch holds another If; each body
    computes a named value from x, read from the enclosing graphs."""
    f = TensorProto.FLOAT
    inner_then = helper.make_graph([helper.make_node("Mul", ["x", "two"], ["inner_y"])], "inner_then", [],
                                   [helper.make_tensor_value_info("inner_y", f, [3])],
                                   initializer=[helper.make_tensor("two", f, [], [2.0])])
    inner_else = helper.make_graph([helper.make_node("Neg", ["x"], ["inner_n"])], "inner_else", [],
                                   [helper.make_tensor_value_info("inner_n", f, [3])])
    then = helper.make_graph(
        [helper.make_node("Abs", ["x"], ["then_abs"]),
         helper.make_node("ReduceMax", ["then_abs"], ["then_max"], keepdims=0),
         helper.make_node("Greater", ["then_max", "zero"], ["then_cond"]),
         helper.make_node("If", ["then_cond"], ["then_if"], then_branch=inner_then, else_branch=inner_else),
         helper.make_node("Add", ["then_if", "then_abs"], ["then_y"])],
        "then", [], [helper.make_tensor_value_info("then_y", f, [3])])
    other = helper.make_graph([helper.make_node("Sub", ["x", "x"], ["else_y"])], "else", [],
                              [helper.make_tensor_value_info("else_y", f, [3])])
    graph = helper.make_graph(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         helper.make_node("Greater", ["s", "zero"], ["c"]),
         helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)],
        "main", [helper.make_tensor_value_info("x", f, [3])], [helper.make_tensor_value_info("y", f, [3])],
        initializer=[helper.make_tensor("zero", f, [], [0.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return load(path)


def loop_model(path):
    """A Loop of `trips` iterations adding `step` to a carried vector, with
    a scan output of each iteration's sum."""
    f = TensorProto.FLOAT
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "step"], ["acc_sum"]),
         helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Identity", ["acc_sum"], ["acc_out"]),
         helper.make_node("ReduceSum", ["acc_sum"], ["scan_out"], keepdims=0)],
        "body",
        [helper.make_tensor_value_info("iter", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", f, [2])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", f, [2]),
         helper.make_tensor_value_info("scan_out", f, [])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "start"], ["result", "sums"], body=body)],
        "main",
        [helper.make_tensor_value_info("trips", TensorProto.INT64, []),
         helper.make_tensor_value_info("start", f, [2])],
        [helper.make_tensor_value_info("result", f, [2]), helper.make_tensor_value_info("sums", f, [None])],
        initializer=[helper.make_tensor("step", f, [2], [1.0, 2.0])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return load(path)


def _body(model, *names):
    g = model.graph
    for name in names:
        node = next(n for n in g.nodes if n.subgraphs())
        g = dict(node.subgraphs())[name]
    return g


LOOP_FEEDS = {"trips": np.array(3, np.int64), "start": np.zeros(2, np.float32)}


def test_a_plain_run_keeps_nothing_inside_bodies(tmp_path):
    model = nested_if_model(tmp_path / "m.onnx")
    s = Session(model)
    s.run({"x": np.array([1, -2, 3], np.float32)})
    assert s.body_values is None


def test_nested_if_bodies_keep_their_values_on_every_run(tmp_path):
    model = nested_if_model(tmp_path / "m.onnx")
    x = np.array([1, -2, 3], np.float32)
    s = Session(model, keep_body_values=True)
    for _ in range(3):      # the first run and the compiled repeated runs both keep
        out = s.run({"x": x})
        kept = s.body_values
        then, inner = _body(model, "then_branch"), _body(model, "then_branch", "then_branch")
        np.testing.assert_array_equal(kept.values[(then.path, "then_abs")], np.abs(x))
        np.testing.assert_array_equal(kept.values[(then.path, "then_max")], 3)
        np.testing.assert_array_equal(kept.values[(inner.path, "inner_y")], x * 2)
        assert (then.path, "two") not in kept.values          # initializers are not run values
        assert (then.path, "x") not in kept.values            # nor what a body reads from outside
        assert not any(p == _body(model, "else_branch").path for p, _ in kept.values)   # did not run
        np.testing.assert_array_equal(out["y"], x * 2 + np.abs(x))
        assert kept.nbytes == sum(np.asarray(v).nbytes for v in kept.values.values())
        assert not kept.not_kept


def test_a_loop_keeps_its_last_iteration_and_every_one_on_request(tmp_path):
    model = loop_model(tmp_path / "m.onnx")
    body = _body(model, "body")
    s = Session(model, keep_body_values=True)
    s.run(LOOP_FEEDS)
    kept = s.body_values
    assert kept.values[(body.path, "acc_sum")].tolist() == [3, 6]
    assert kept.values[(body.path, "iter")] == 2
    assert kept.iterations[body.path] == 2 and kept.runs[body.path] == 3
    assert kept.iteration_of(body.path, "acc_sum") == 2
    assert not kept.history
    s = Session(model, keep_body_values=True, every_iteration=True)
    s.run(LOOP_FEEDS)
    sums = s.body_values.history[(body.path, "acc_sum")]
    assert [(i, v.tolist()) for i, v in sums] == [(0, [1, 2]), (1, [2, 4]), (2, [3, 6])]
    assert s.body_values.nbytes == sum(v.nbytes for h in s.body_values.history.values() for _, v in h)


def test_the_budget_is_respected_and_what_it_left_out_is_named(tmp_path):
    model = loop_model(tmp_path / "m.onnx")
    body = _body(model, "body")
    # iter (8 bytes), cond_in (1), acc_in (8) fit in 20 bytes; acc_sum (8 more) does not
    s = Session(model, keep_body_values=True, body_budget=20)
    s.run(LOOP_FEEDS)
    kept = s.body_values
    assert kept.nbytes <= 20 and kept.full
    assert (body.path, "acc_sum") in kept.not_kept and (body.path, "acc_sum") not in kept.values
    # after the first refusal nothing more is kept, not even later iterations of what fitted
    assert set(kept.values) <= {(body.path, n) for n in ("iter", "cond_in", "acc_in")}
    assert "not kept: " in kept.summary() and "acc_sum" in kept.summary()
    assert {"graph": body.path, "name": "acc_sum"} in kept.to_json()["not_kept"]
    s = Session(model, keep_body_values=True, body_budget=0)
    s.run(LOOP_FEEDS)
    assert s.body_values.nbytes == 0 and not s.body_values.values


def test_debug_run_shows_body_values_after_a_whole_run(tmp_path):
    model = loop_model(tmp_path / "m.onnx")
    body = _body(model, "body")
    acc_sum = body.get_value("acc_sum")
    d = DebugRun(model)
    d.run(LOOP_FEEDS)
    assert d.value_of(acc_sum) is None and d.kept is None       # the option is off by default
    d.keep_body_values = True
    d.run(LOOP_FEEDS)             # same feeds, but the bodies were not kept: a whole run again
    assert d.value_of(acc_sum).tolist() == [3, 6]
    assert d.iterations[id(body)] == 2
    d.start(LOOP_FEEDS)           # stepping starts afresh: no stale body values
    assert d.value_of(acc_sum) is None and d.kept is None


def test_silero_vad_body_values_after_a_whole_run():
    folder = SHARED_MODELS / "silero_vad"
    model = load(folder / "model.onnx")
    with np.load(folder / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    d = DebugRun(model)
    d.keep_body_values = True
    d.run(feeds)
    kept = d.kept
    assert len(kept.values) > 100 and kept.nbytes <= kept.budget
    lstm = next(n for g in model.graph.walk() for n in g.nodes
                if n.op_type == "LSTM" and id(n.graph) in d.body_values)
    assert all(d.value_of(v) is not None for v in lstm.outputs if v is not None and v.name)
    plain = Session(load(folder / "model.onnx")).run(feeds)
    for k, v in plain.items():
        np.testing.assert_array_equal(d.values[k], v)
    # a budget too small for the encoder keeps less, and names the rest
    small = DebugRun(model)
    small.keep_body_values, small.body_budget = True, 64 << 10
    small.run(feeds)
    assert small.kept.nbytes <= 64 << 10 and small.kept.not_kept
    assert len(small.kept.values) < len(kept.values)


def two_part_model(path):
    """LeakyRelu "leaky" on x, and beside it (not downstream) a Loop: an edit
    of the LeakyRelu leaves the Loop's body values as they are."""
    f = TensorProto.FLOAT
    loop_model(path)
    model = onnx.load(str(path))
    model.graph.node.append(helper.make_node("LeakyRelu", ["start"], ["leaky_out"], name="leaky", alpha=0.1))
    model.graph.output.append(helper.make_tensor_value_info("leaky_out", f, [2]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return path


def test_an_edit_drops_only_the_stale_bodies_and_the_rerun_keeps_them_again(tmp_path):
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute, SetInitializer
    from onnxstudio.core.ir import AttrType
    doc = Document.open(two_part_model(tmp_path / "m.onnx"))
    model = doc.model
    body = _body(model, "body")
    d = DebugRun(model)
    d.keep_body_values = True
    doc.subscribe(lambda ev: d.invalidate(ev.changes))
    d.run(LOOP_FEEDS)
    kept_bytes = d.kept.nbytes
    doc.apply(SetAttribute("leaky", "alpha", AttrType.FLOAT, 0.2))
    assert d.value_of("acc_sum", body).tolist() == [3, 6]      # not downstream of the edit
    d.run(LOOP_FEEDS)
    assert [n.name for n in d.nodes_run] == ["leaky"]           # the Loop did not run again
    assert d.value_of("acc_sum", body).tolist() == [3, 6] and d.kept.nbytes == kept_bytes
    doc.apply(SetInitializer("step", np.array([2, 2], np.float32)))     # read inside the body: stale
    assert d.value_of("acc_sum", body) is None and (body.path, "acc_sum") not in d.kept.values
    d.run(LOOP_FEEDS)
    assert [n.op_type for n in d.nodes_run] == ["Loop"]
    assert d.value_of("acc_sum", body).tolist() == [6, 6] and d.kept.nbytes == kept_bytes
