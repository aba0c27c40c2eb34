"""While a loop body is walked step by step, the bodies nested in it show
only values of the iteration being walked: an If branch that ran in the
iteration before holds nothing until it runs again (it showed the iteration
before's values as this one's). Likewise a function called twice: after
walking the first call and stepping over the second, its body shows no
value of the first call as the second's."""
import numpy as np
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.exec.debug import DebugRun


def _tensor(name, dims, elem=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, elem, dims)


def _loop_with_branch(path):
    """x -> Loop "loop" (trips): acc + 1 -> If "choose" on `cond` (then: Mul
    "double" by 2; else: Identity "same") -> acc; y is the last acc."""
    two = helper.make_node("Constant", [], ["two"], name="two",
                           value=helper.make_tensor("two", TensorProto.FLOAT, [1], [2.0]))
    then = helper.make_graph([two, helper.make_node("Mul", ["summed", "two"], ["doubled"], name="double")],
                             "then", [], [_tensor("doubled", None)])
    other = helper.make_graph([helper.make_node("Identity", ["summed"], ["same"], name="same")], "else", [],
                              [_tensor("same", None)])
    one = helper.make_node("Constant", [], ["one"], name="one",
                           value=helper.make_tensor("one", TensorProto.FLOAT, [1], [1.0]))
    body = helper.make_graph(
        [one, helper.make_node("Add", ["acc_in", "one"], ["summed"], name="add"),
         helper.make_node("If", ["cond"], ["picked"], name="choose", then_branch=then, else_branch=other),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Identity", ["picked"], ["acc_out"], name="pass_on")],
        "body", [_tensor("i", [], TensorProto.INT64), _tensor("cond_in", [], TensorProto.BOOL), _tensor("acc_in", [2])],
        [_tensor("cond_out", [], TensorProto.BOOL), _tensor("acc_out", [2])])
    graph = helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["y"], name="loop", body=body)],
        "main", [_tensor("x", [2]), _tensor("trips", [], TensorProto.INT64), _tensor("cond", [], TensorProto.BOOL)],
        [_tensor("y", [2])])
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                       ir_version=8).SerializeToString())
    return core.load(path)


FEEDS = {"x": np.array([1.0, 2.0], np.float32), "trips": np.array(3, np.int64), "cond": np.array(True)}


def _node(model_or_graph, name):
    graph = getattr(model_or_graph, "graph", model_or_graph)
    return next(n for g in graph.walk() for n in g.nodes if n.name == name)


def test_a_branch_holds_no_value_of_the_iteration_before(tmp_path):
    model = _loop_with_branch(tmp_path / "loop.onnx")
    doubled = _node(model, "double").outputs[0]
    d = DebugRun(model)
    d.start(FEEDS)
    seen = []
    while not d.done:
        ev = d.step_into()
        if ev.node is None:
            continue
        shown = d.value_of(doubled)
        # The branch's value is there only once "double" ran in the iteration walked now.
        # (after the last iteration, with the run over, its values stay)
        ran_now = ev.node.name == "double" or d.current is None or d.current.name in ("keep_going", "pass_on")
        if d.current is not None and d.current.name == "add" and d.current_iteration > 0:
            assert shown is None, f"iteration {d.current_iteration}: the branch still shows {shown}"
        if shown is not None:
            assert ran_now, f"after {ev.node.name}: the branch shows {shown}"
            seen.append(shown.tolist())
    # acc: 1,2 -> (2,3)*2 = 4,6 -> (5,7)*2 = 10,14 -> (11,15)*2 = 22,30
    assert d.values["y"].tolist() == [22.0, 30.0]
    assert [4.0, 6.0] in seen and [10.0, 14.0] in seen and [22.0, 30.0] in seen


def test_step_over_a_nested_if_shows_its_branch_of_this_iteration(tmp_path):
    model = _loop_with_branch(tmp_path / "loop.onnx")
    doubled = _node(model, "double").outputs[0]
    d = DebugRun(model)
    d.start(FEEDS)
    d.step_into()                                  # into the Loop: "add" of iteration 0 is next
    while not (d.current.name == "add" and d.current_iteration == 1):
        d.step_into()
    assert d.value_of(doubled) is None
    d.step_over()                                  # add
    assert d.current.name == "choose" and d.value_of(doubled) is None
    d.step_over()                                  # the If, whole: its branch ran in this iteration
    assert d.value_of(doubled).tolist() == [10.0, 14.0]


def _two_calls(path):
    """x -> AddTwice "first" -> AddTwice "second" -> y; AddTwice (a model-local
    function): b = a + k, c = b + k with the Constant k = 1."""
    k = helper.make_node("Constant", [], ["k"], name="fn_one",
                         value=helper.make_tensor("k", TensorProto.FLOAT, [1], [1.0]))
    fn = helper.make_function("local", "AddTwice", ["a"], ["c"],
                              [k, helper.make_node("Add", ["a", "k"], ["b"], name="fn_add"),
                               helper.make_node("Add", ["b", "k"], ["c"], name="fn_add_again")],
                              [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("AddTwice", ["x"], ["y0"], name="first", domain="local"),
                               helper.make_node("AddTwice", ["y0"], ["y"], name="second", domain="local")],
                              "g", [_tensor("x", [2])], [_tensor("y", None)])
    path.write_bytes(helper.make_model(graph, functions=[fn], ir_version=8,
                                       opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
                     .SerializeToString())
    return core.load(path)


def test_a_call_stepped_over_leaves_no_value_of_the_call_walked_before(tmp_path):
    model = _two_calls(tmp_path / "calls.onnx")
    b = _node(model.function("local", "AddTwice").graph, "fn_add").outputs[0]
    d = DebugRun(model)
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    d.step_into()                                  # into the first call
    d.step_into()                                  # fn_add
    assert d.value_of(b).tolist() == [2.0, 3.0]
    d.step_out()
    assert d.current.name == "second" and d.value_of(b).tolist() == [2.0, 3.0]   # the first call's, said as such
    d.step_over()                                  # the second call, whole: b is now 4, 5 (not walked)
    assert d.done and d.values["y"].tolist() == [5.0, 6.0]
    assert d.value_of(b) is None


def test_a_run_after_walking_one_call_leaves_no_value_of_it_as_the_next_calls(tmp_path):
    model = _two_calls(tmp_path / "calls.onnx")
    b = _node(model.function("local", "AddTwice").graph, "fn_add").outputs[0]
    d = DebugRun(model)                            # keeping no body values: the run computes what is missing
    feeds = {"x": np.array([1.0, 2.0], np.float32)}
    d.start(feeds)
    d.step_into()
    d.step_into()
    d.step_out()
    assert d.value_of(b).tolist() == [2.0, 3.0]
    assert d.run(feeds)["y"].tolist() == [5.0, 6.0]          # the second call, run whole
    assert d.value_of(b) is None
