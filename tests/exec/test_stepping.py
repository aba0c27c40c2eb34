"""core.exec.stepping: Step Over / Step Into / Step Out on a DebugRun, as in
an IDE, passing by constants (and, unless asked, shape arithmetic), on a
Loop holding an If (onnx.helper), a function call and silero_vad."""
import numpy as np
from onnx import TensorProto, helper

from shared_models import SHARED_MODELS
from onnxstudio import core
from onnxstudio.core.exec import run
from onnxstudio.core.exec.debug import DebugRun


def _const(name, out, value):
    return helper.make_node("Constant", [], [out], name=name,
                            value=helper.make_tensor(name, TensorProto.FLOAT, [1], [value]))


def _tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def write_loop_if(path):
    """x -> Relu "pre" -> Loop "loop" (trips) -> Neg "post" -> y; each
    iteration: Constant "one", Add "add" (acc + 1), If "choose" on `cond`
    (then: Constant "two", Mul "double"; else: Identity "same"), Identity
    "keep_going", Identity "pass_on"."""
    then = helper.make_graph([_const("two", "two", 2.0), helper.make_node("Mul", ["summed", "two"], ["doubled"],
                                                                          name="double")],
                             "then", [], [_tensor("doubled", None)])
    other = helper.make_graph([helper.make_node("Identity", ["summed"], ["same"], name="same")], "else", [],
                              [_tensor("same", None)])
    body = helper.make_graph(
        [_const("one", "one", 1.0),
         helper.make_node("Add", ["acc_in", "one"], ["summed"], name="add"),
         helper.make_node("If", ["cond"], ["picked"], name="choose", then_branch=then, else_branch=other),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Identity", ["picked"], ["acc_out"], name="pass_on")],
        "body", [_tensor("i", [], TensorProto.INT64), _tensor("cond_in", [], TensorProto.BOOL), _tensor("acc_in", [2])],
        [_tensor("cond_out", [], TensorProto.BOOL), _tensor("acc_out", [2])])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["pre_out"], name="pre"),
         helper.make_node("Loop", ["trips", "", "pre_out"], ["loop_out"], name="loop", body=body),
         helper.make_node("Neg", ["loop_out"], ["y"], name="post")],
        "main", [_tensor("x", [2]), _tensor("trips", [], TensorProto.INT64), _tensor("cond", [], TensorProto.BOOL)],
        [_tensor("y", [2])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                       ir_version=8).SerializeToString())
    return path


FEEDS = {"x": np.array([1.0, 2.0], np.float32), "trips": np.array(2, np.int64), "cond": np.array(True)}


def _started(tmp_path):
    model = core.load(write_loop_if(tmp_path / "loop_if.onnx"))
    d = DebugRun(model)
    d.start(FEEDS)
    return model, d


def _named(model, name):
    return next(n for g in model.graph.walk() for n in g.nodes if n.name == name)


def test_step_over_runs_a_loop_as_one_step(tmp_path):
    model, d = _started(tmp_path)
    assert d.step_over().node.name == "pre" and d.current.name == "loop"
    ev = d.step_over()
    assert ev.node.name == "loop" and ev.reason == "step" and ev.how == ""
    assert d.current.name == "post" and d.values["loop_out"].tolist() == [10, 14]
    assert d.step_over().node.name == "post" and d.done


def test_step_into_enters_iteration_by_iteration_and_passes_constants(tmp_path):
    model, d = _started(tmp_path)
    d.step_into()
    ev = d.step_into()                              # into the Loop: its first step is Add, not the Constant
    assert ev.node.name == "loop" and ev.how == "into"
    assert d.current.name == "add" and d.current_iteration == 0
    assert d.value_of(_named(model, "one").outputs[0]).tolist() == [1.0]   # passed by, still run
    d.step_into()
    assert d.current.name == "choose"               # a nested If is a step of its own
    ev = d.step_over()                              # ... run whole
    assert ev.node.name == "choose" and ev.outputs["picked"].tolist() == [4, 6]
    assert d.current.name == "keep_going" and d.current_iteration == 0
    d.step_over()
    d.step_over()
    assert d.current.name == "add" and d.current_iteration == 1
    d.step_over()
    ev = d.step_into()                              # into the If: past Constant "two"
    assert ev.node.name == "choose" and ev.how == "into"
    assert d.current.name == "double" and d.current.graph.parent_node.name == "choose"
    ev = d.step_out()                               # the branch finished: after the If
    assert ev.node.name == "choose" and ev.how == "out"
    assert d.current.name == "keep_going" and d.current_iteration == 1
    assert d.value_of(_named(model, "double").outputs[0]).tolist() == [10, 14]
    ev = d.step_out()                               # the Loop finished: after it
    assert ev.node.name == "loop" and ev.how == "out"
    assert d.current.name == "post"
    assert d.step_over().node.name == "post" and d.values["y"].tolist() == [-10, -14]


def test_step_out_finishes_every_remaining_iteration(tmp_path):
    model, d = _started(tmp_path)
    d.step_over()
    d.step_into()
    assert d.current.name == "add" and d.current_iteration == 0
    d.step_out()
    assert d.current.name == "post" and d.values["loop_out"].tolist() == [10, 14]
    body = _named(model, "add").graph
    assert d.iterations[id(body)] == 1 and d.value_of("summed", body).tolist() == [5, 7]


def test_a_breakpoint_inside_stops_step_over_and_step_out(tmp_path):
    model, d = _started(tmp_path)
    double = _named(model, "double")
    d.breakpoints.add(double)
    d.step_over()
    ev = d.step_over()                              # over the Loop: stopped inside, in iteration 0
    assert ev.reason == "breakpoint" and d.current is double and d.current_iteration == 0
    d.step_over()
    assert d.current.name == "keep_going"
    ev = d.step_out()                               # out of the Loop: stopped again in iteration 1
    assert ev.reason == "breakpoint" and d.current is double and d.current_iteration == 1
    ev = d.step_out()                               # out of the branch, from the breakpoint
    assert ev.node.name == "choose" and ev.outputs["picked"].tolist() == [10, 14]
    assert d.current.name == "keep_going" and d.current_iteration == 1
    d.step_out()
    assert d.current.name == "post"


def test_constants_are_steps_when_asked(tmp_path):
    model, d = _started(tmp_path)
    d.step_on_constants = True
    d.step_over()
    d.step_into()
    assert d.current.name == "one"
    d.step_into()
    assert d.current.name == "add"
    d.step_into()
    d.step_into()
    assert d.current.name == "two"


def test_a_breakpoint_on_a_constant_stops_there(tmp_path):
    model, d = _started(tmp_path)
    d.breakpoints.add(_named(model, "one"))
    d.step_over()
    d.step_into()
    assert d.current.name == "one"


def _calls_of_add_twice(tmp_path, calls):
    """A loaded model whose nodes named `calls` call the model-local function
    AddTwice (its body: Constant k = 1, b = a + k, c = b + k) one after the
    other on x, then Neg ("post") gives y."""
    fn = helper.make_function("local", "AddTwice", ["a"], ["c"],
                              [_const("fn_one", "k", 1.0),
                               helper.make_node("Add", ["a", "k"], ["b"], name="fn_add"),
                               helper.make_node("Add", ["b", "k"], ["c"], name="fn_add_again")],
                              [helper.make_opsetid("", 17)])
    nodes = [helper.make_node("AddTwice", ["x" if k == 0 else f"y{k - 1}"], [f"y{k}"], name=name, domain="local")
             for k, name in enumerate(calls)]
    nodes.append(helper.make_node("Neg", [f"y{len(calls) - 1}"], ["y"], name="post"))
    graph = helper.make_graph(nodes, "g", [_tensor("x", [2])], [_tensor("y", None)])
    proto = helper.make_model(graph, functions=[fn], ir_version=8,
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    path = tmp_path / "fn.onnx"
    path.write_bytes(proto.SerializeToString())
    return core.load(path)


def test_a_function_call_is_one_step_over_and_entered_into(tmp_path):
    d = DebugRun(_calls_of_add_twice(tmp_path, ["call"]))
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    assert d.step_over().node.name == "call" and d.current.name == "post"
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    ev = d.step_into()
    assert ev.node.name == "call" and d.current.name == "fn_add"
    assert d.step_into().node.name == "fn_add" and d.current.name == "fn_add_again"
    d.step_out()
    assert d.current.name == "post" and d.values["y0"].tolist() == [3, 4]
    body = d.model.function("local", "AddTwice").graph
    d.breakpoints.add(next(n for n in body.nodes if n.name == "fn_add_again"))
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    ev = d.step_over()                              # a breakpoint inside the function stops Step Over there
    assert ev.reason == "breakpoint" and d.current.name == "fn_add_again"


def _silero():
    folder = SHARED_MODELS / "silero_vad"
    model = core.load(folder / "model.onnx")
    with np.load(folder / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    return folder, model, feeds


def test_silero_vad_over_into_and_out_of_its_if():
    folder, model, feeds = _silero()
    top = list(model.graph.nodes)
    if0 = next(n for n in top if n.op_type == "If")
    d = DebugRun(model)
    d.start(feeds)
    d.settle()                                      # the leading Constant is passed by
    assert d.current.op_type == "Equal" and "Constant" not in [n.op_type for n in d.nodes_run[1:]]
    d.step_over()
    assert d.current is if0
    ev = d.step_over()
    assert ev.node is if0 and d.current is top[top.index(if0) + 1] and d.current.graph is model.graph
    d.start(feeds)
    d.step_over()
    ev = d.step_into()
    first = d.current
    assert ev.how == "into" and first.graph.parent_node is if0
    # twenty-odd Constants lead the branch: none of them is a step, all of them ran
    leading = list(first.graph.nodes)[:list(first.graph.nodes).index(first)]
    assert sum(n.op_type == "Constant" for n in leading) >= 20
    assert all(d.value_of(v) is not None for n in leading for v in n.outputs if v is not None)
    assert first.op_type != "Constant"
    ev = d.step_out()
    assert ev.node is if0 and ev.how == "out" and d.current is top[top.index(if0) + 1]
    d.resume()
    ref = run(core.load(folder / "model.onnx"), feeds)
    for k, v in ref.items():
        np.testing.assert_allclose(d.values[k], v)


def test_silero_vad_shape_arithmetic_is_passed_by_unless_asked():
    _, model, feeds = _silero()
    kinds = {}
    for asked in (False, True):
        d = DebugRun(model)
        d.step_on_shapes = asked
        d.start(feeds)
        d.step_over()
        d.step_into()
        seen = []
        while d.current is not None and d.current.graph is not model.graph and len(seen) < 400:
            seen.append(d.step_into().node.op_type)
        kinds[asked] = seen
    assert "Shape" not in kinds[False] and "Shape" in kinds[True]
    assert len(kinds[False]) < len(kinds[True])


def test_a_whole_run_keeps_the_values_inside_a_function_body(tmp_path):
    """Like an If/Loop body's: with keep_body_values, the values a function
    call computes are kept and read by the body's graph (the last call's)."""
    d = DebugRun(_calls_of_add_twice(tmp_path, ["call", "call_again"]))
    d.keep_body_values = True
    d.every_iteration = True
    d.run({"x": np.array([1.0, 2.0], np.float32)})
    body = d.model.function("local", "AddTwice").graph
    assert d.value_of("b", body).tolist() == [4, 5]               # the last call's (on [3, 4])
    assert d.kept.runs[body.path] == 2
    assert d.kept.value_in_run(body.path, "b", 0).tolist() == [2, 3]
    assert d.values["y"].tolist() == [-5, -6]
