"""Where a run stops and what it says: NaN/Inf made inside nested bodies,
NaN fed as an input, a node failing two If levels deep, numpy's messages in
a user's words, and kernels refusing inputs their operator does not take."""
import numpy as np
import pytest
from onnx import TensorProto, helper

from nested_models import load_failing_inside, load_nan_inside
from one_graph import load_graph, tensor
from onnxstudio.core.exec import ExecError, Session
from onnxstudio.core.exec.debug import DebugRun
from onnxstudio.core.exec.failures import plain_words

FEEDS = {"x": np.array([1.0, 2.0], np.float32), "cond": np.array(True)}


def test_nan_made_two_bodies_deep_stops_at_that_node(tmp_path):
    model = load_nan_inside(tmp_path)
    d = DebugRun(model)
    d.break_on_nonfinite = True
    d.start(FEEDS)
    ev = d.resume()
    assert ev.reason == "nonfinite" and ev.node.name == "make_nan", ev
    assert ev.nonfinite == ["logged"]
    assert ev.graph is ev.node.graph and ev.graph.parent_node.name == "inner"
    assert '"outer"/attribute "then_branch"' in ev.node.path and '"inner"/attribute "then_branch"' in ev.node.path
    assert d.nonfinite[ev.node] == ["logged"]
    assert np.isnan(d.value_of(ev.node.outputs[0])).all()
    # The NaN goes on through the body; the run is still inside it, not past the If.
    assert d.current is not None and d.current.graph is ev.node.graph
    assert "post" not in [n.name for n in d.nodes_run]
    d.break_on_nonfinite = False                 # without it, the run goes to the end
    d.start(FEEDS)
    assert d.resume().reason == "done"


def test_a_nan_input_is_flagged_before_the_first_node(tmp_path):
    model = load_nan_inside(tmp_path)
    d = DebugRun(model)
    d.break_on_nonfinite = True
    d.start({"x": np.array([np.nan, 7.0], np.float32), "cond": np.array(True)})
    ev = d.resume()
    assert ev.reason == "nonfinite" and ev.node is None and ev.nonfinite == ["x"]
    assert d.current.name == "pre" and not d.nodes_run
    ev = d.resume()                              # then the first node that passes it on
    assert ev.reason == "nonfinite" and ev.node.name == "pre"


def test_a_failing_node_two_bodies_deep_is_named_with_its_path_op_and_inputs(tmp_path):
    model = load_failing_inside(tmp_path)
    with pytest.raises(ExecError) as info:
        Session(model).run(FEEDS)
    e = info.value
    text = str(e)
    assert e.node is not None and e.node.name == "bad_matmul"
    assert '"outer"/attribute "then_branch"' in text and 'MatMul "bad_matmul"' in text
    assert "MatMul failed: matrix product with mismatched inner dimensions" in text
    assert "pre_out: float[2]" in text and "w: float[3,4]" in text
    assert "gufunc" not in text and "\n" not in text
    assert "gufunc" in e.detail                 # numpy's own words are kept


def test_a_failed_debug_run_stops_at_the_node_holding_the_failure(tmp_path):
    model = load_failing_inside(tmp_path)
    d = DebugRun(model)
    with pytest.raises(ExecError):
        d.run(FEEDS)
    assert d.error.node.name == "bad_matmul"
    assert d.current.name == "outer"              # not the first node: the run stopped there
    assert "pre_out" in d.values
    with pytest.raises(ExecError):                # stepping retries it
        d.step()
    assert d.error.node.name == "bad_matmul"


def test_numpy_messages_in_plain_words():
    said = []
    for bad in (lambda: np.ones((2, 3)) @ np.ones((4, 5)), lambda: np.ones((2, 3)) + np.ones(4),
                lambda: np.ones(6).reshape(4), lambda: np.ones(3)[5],
                lambda: np.concatenate([np.ones((2, 3)), np.ones((2, 4))])):
        with pytest.raises(Exception) as info:
            bad()
        said.append(plain_words(str(info.value)))
    assert said[0].startswith("matrix product with mismatched inner dimensions") and "3" in said[0]
    assert said[1].startswith("shapes (2,3) and (4,) do not broadcast")
    assert said[2].startswith("cannot reshape 6 elements into shape (4,)")
    assert said[3].startswith("index 5 is out of range for an axis of size 3")
    assert said[4].startswith("inputs 0 and 1 differ on axis 1 (3 against 4)")
    assert plain_words("something else") is None


def test_a_function_call_leads_to_the_failing_node_inside(tmp_path):
    from onnx import numpy_helper
    fn = helper.make_function("local", "Twice", ["a", "b"], ["c"],
                              [helper.make_node("MatMul", ["a", "b"], ["c"], name="inner_matmul")],
                              [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("Twice", ["x", "w"], ["y"], name="call", domain="local")], "g",
                              [tensor("x", [2])], [tensor("y", None)],
                              [numpy_helper.from_array(np.ones((3, 4), np.float32), "w")])
    proto = helper.make_model(graph, functions=[fn], ir_version=8,
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    path = tmp_path / "fn.onnx"
    path.write_bytes(proto.SerializeToString())
    from onnxstudio import core
    model = core.load(path)
    d = DebugRun(model)
    with pytest.raises(ExecError) as info:
        d.run({"x": np.ones(2, np.float32)})
    text = str(info.value)
    assert text.startswith('graph/node[0] Twice "call", calling functions/"Twice"/node[0] MatMul "inner_matmul"')
    assert info.value.node.name == "inner_matmul" and info.value.via[0].name == "call"
    assert d.current.name == "call"


# -- kernels refuse what their operator does not take -------------------------------------------

def _pad_model(tmp_path, mode, length):
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="first"),
             helper.make_node("Pad", ["r", "pads"], ["y"], name="the_pad", mode=mode)]
    return load_graph(tmp_path, nodes, [tensor("x", [1, length])], [tensor("y", None)],
                      inits=[("pads", np.array([0, 1, 0, 1], np.int64))])


def test_pad_reflect_on_a_length_one_axis_fails_at_the_pad(tmp_path):
    model = _pad_model(tmp_path, "reflect", 1)
    for session in (Session(model), Session(model, keep=True)):
        with pytest.raises(ExecError) as info:
            session.run({"x": np.ones((1, 1), np.float32)})
        assert info.value.node.name == "the_pad"
        assert "reflect" in str(info.value) and "axis 1" in str(info.value)
    # A longer axis pads as before.
    out = Session(_pad_model(tmp_path, "reflect", 3)).run({"x": np.arange(3, dtype=np.float32)[None]})["y"]
    assert out.tolist() == [[1, 0, 1, 2, 1]]


def test_nan_made_inside_a_function_stops_at_that_node(tmp_path):
    from onnx import numpy_helper
    from onnxstudio import core
    fn = helper.make_function("local", "LogShifted", ["a", "s"], ["c"],
                              [helper.make_node("Sub", ["a", "s"], ["d"], name="fn_shift"),
                               helper.make_node("Log", ["d"], ["c"], name="fn_log"),
                               ], [helper.make_opsetid("", 17)])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"], name="pre"),
                               helper.make_node("LogShifted", ["r", "five"], ["y0"], name="call", domain="local"),
                               helper.make_node("Neg", ["y0"], ["y"], name="post")], "g",
                              [tensor("x", [2])], [tensor("y", None)],
                              [numpy_helper.from_array(np.array([5.0], np.float32), "five")])
    proto = helper.make_model(graph, functions=[fn], ir_version=8,
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    path = tmp_path / "fn_nan.onnx"
    path.write_bytes(proto.SerializeToString())
    d = DebugRun(core.load(path))
    d.break_on_nonfinite = True
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    ev = d.resume()
    assert ev.reason == "nonfinite" and ev.node.name == "fn_log" and ev.nonfinite == ["c"]
    assert np.isnan(d.value_of(ev.node.outputs[0])).all()
    d.break_on_nonfinite = False                 # without it, a call is one step
    d.start({"x": np.array([1.0, 2.0], np.float32)})
    d.step()
    assert d.step().node.name == "call" and d.current.name == "post"


def test_the_cli_names_the_failing_node_inside_its_body(tmp_path):
    import subprocess
    import sys
    from nested_models import write_failing_inside
    path = write_failing_inside(tmp_path / "fail.onnx")
    for name, value in FEEDS.items():
        np.save(tmp_path / f"{name}.npy", value)
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "run", str(path), "-i", f"x={tmp_path / 'x.npy'}",
                        "-i", f"cond={tmp_path / 'cond.npy'}"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    line = lines[0]
    assert '"inner"/attribute "then_branch"/node[0] MatMul "bad_matmul": MatMul failed: matrix product' in line
    assert "[inputs: pre_out: float[2], w: float[3,4]]" in line
    assert line.index("matrix product") < line.index("(numpy said: ValueError: matmul:")


def _f(*shape):
    return np.ones(shape, np.float32)


def _i(*values):
    return np.array(values, np.int64)


# op, inputs, attributes, the refusal's words; each of these ran (or failed
# with numpy's words elsewhere) before, and onnxruntime refuses every one.
REFUSED = [
    ("Slice", [_f(5, 5), _i(0, 0), _i(3, 3), _i(0, -2)], {}, "axes [0, 0] name an axis twice"),
    ("Slice", [_f(5), _i(0), _i(3), _i(0), _i(0)], {}, "a step of 0 on axis 0"),
    ("Tile", [_f(2, 2), _i(2)], {}, "repeats [2]: one count of 0 or more for each of the input's 2 axes"),
    ("Pad", [_f(1, 2), _i(0, -3, 0, 0)], {}, "negative pads remove 3 values from axis 1, which has 2"),
    ("Pad", [np.ones((0, 2), np.float32), _i(1, 0, 1, 0)], {"mode": "edge"}, "edge padding of axis 0, which is empty"),
    ("Resize", [_f(1, 1, 2, 2), None, np.array([1, 1, 2], np.float32)], {},
     "scales has 3 values for a tensor of rank 4"),
    ("Conv", [_f(1, 4, 5, 5), _f(2, 3, 3, 3)], {}, "X has 4 channels but W [2, 3, 3, 3] with group 1 takes 3"),
    ("Conv", [_f(1, 4, 5, 5), _f(3, 2, 3, 3)], {"group": 2}, "has 3 output channels, which must be a multiple"),
    ("LSTM", [_f(1, 1, 1, 4), _f(1, 8, 4), _f(1, 8, 2)], {"hidden_size": 2}, "X must have rank 3"),
    ("LSTM", [_f(1, 1, 3), _f(1, 8, 4), _f(1, 8, 2)], {"hidden_size": 2}, "X has 3 features on its last axis but W "
                                                                          "expects 4"),
    ("GRU", [_f(1, 1, 3), _f(1, 6, 4), _f(1, 6, 2)], {"hidden_size": 2}, "X has 3 features"),
    ("DepthToSpace", [_f(1, 3, 2, 2)], {"blocksize": 2}, "3 channels cannot be spread over 2x2 blocks"),
    ("SpaceToDepth", [_f(1, 1, 3, 4)], {"blocksize": 2}, "a 3x4 image cannot be cut into 2x2 blocks"),
    ("Range", [np.array(0, np.int64), np.array(5, np.int64), np.array(0, np.int64)], {}, "delta is 0"),
    ("Reshape", [_f(2, 3), _i(-2, 3)], {}, "shape [-2, 3] has a size below -1"),
    ("Reshape", [_f(2, 3), _i(0, 0, 0)], {}, "shape [0, 0, 0] copies (0) an axis the input of rank 2 does not have"),
    # an index below -size was made -1 and read the last element
    ("GatherElements", [_f(3, 2), np.array([[0, -3]], np.int64)], {"axis": 1},
     "index -3 is out of range for axis 1 of size 2"),
    ("ScatterElements", [_f(3, 2), np.array([[0, -3]], np.int64), _f(1, 2)], {"axis": 1},
     "index -3 is out of range for axis 1 of size 2"),
    ("GatherND", [_f(3, 2), np.array([[-4]], np.int64)], {}, "index -4 is out of range for axis 0 of size 3"),
    ("ScatterND", [_f(3, 2), np.array([[-4]], np.int64), _f(1, 2)], {},
     "index -4 is out of range for axis 0 of size 3"),
    ("ConvTranspose", [_f(1, 4, 5, 5), _f(3, 2, 3, 3)], {}, "X has 4 channels but W [3, 2, 3, 3] takes 3"),
    ("Conv", [_f(1, 1, 2, 2), _f(1, 1, 3, 3)], {}, "shorter than the kernel's span of 3: no output position fits"),
    ("InstanceNormalization", [_f(1, 3, 4), _f(2), _f(2)], {}, "need one value per channel of X [1, 3, 4]"),
    ("OneHot", [_i(1), np.array(0, np.int64), np.array([0, 1], np.float32)], {}, "depth 0: a one-hot encoding"),
    # refused before too, in a Python exception's words
    ("Split", [_f(6), _i(2, 3)], {}, "split sizes [2, 3] do not add up to the length 6 of axis 0"),
    ("Softmax", [_f(3, 2)], {"axis": 3}, "axis 3 is out of range for a tensor of rank 2 (valid axes: -2 to 1)"),
    ("Flatten", [_f(2, 3)], {"axis": 5}, "axis 5 is out of range for Flatten of a rank-2 tensor"),
    ("Transpose", [_f(2, 3)], {"perm": [0, 0]}, "the permutation names an axis twice"),
]


@pytest.mark.parametrize("op,inputs,attrs,words", REFUSED, ids=[f"{c[0]}-{i}" for i, c in enumerate(REFUSED)])
def test_kernels_refuse_what_their_operator_does_not_take(tmp_path, op, inputs, attrs, words):
    names = [f"in{k}" if v is not None else "" for k, v in enumerate(inputs)]
    n_out = {"LSTM": 3, "GRU": 2, "Split": 2}.get(op, 1)
    node = helper.make_node(op, names, [f"out{k}" for k in range(n_out)], name="the_node", **attrs)
    feeds = {n: v for n, v in zip(names, inputs) if v is not None}
    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
           for n, v in feeds.items()]
    model = load_graph(tmp_path, [node], ins, [helper.make_tensor_value_info("out0", TensorProto.UNDEFINED, None)],
                       opset=18)
    with pytest.raises(ExecError) as info:
        Session(model).run(feeds)
    assert info.value.node.name == "the_node"
    assert words in str(info.value), str(info.value)
    assert "Error:" not in str(info.value)          # the executor's own words, not a Python exception's


def test_compress_reads_only_as_much_condition_as_there_is_data(tmp_path):
    """The spec (and onnxruntime) read a longer condition's first values; np.compress refused it."""
    node = helper.make_node("Compress", ["x", "c"], ["y"], name="pick")
    model = load_graph(tmp_path, [node], [tensor("x", [3]), tensor("c", [5], TensorProto.BOOL)], [tensor("y", None)])
    out = Session(model).run({"x": np.arange(3, dtype=np.float32), "c": np.array([1, 0, 1, 1, 1], bool)})["y"]
    assert out.tolist() == [0.0, 2.0]


def test_nan_made_in_a_later_loop_iteration_stops_there(tmp_path):
    """log(2 - i) is finite for i = 0, 1 and NaN/-Inf from i = 2: the stop is in that iteration."""
    from onnxstudio import core
    body = helper.make_graph(
        [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT, name="as_float"),
         helper.make_node("Sub", ["two", "fi"], ["left"], name="left"),
         helper.make_node("Log", ["left"], ["logged"], name="body_log"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going")], "body",
        [tensor("i", [], TensorProto.INT64), tensor("cond_in", [], TensorProto.BOOL)],
        [tensor("cond_out", [], TensorProto.BOOL), tensor("logged", [])])
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["two"], value=helper.make_tensor("v", TensorProto.FLOAT, [], [2.0]),
                          name="two"),
         helper.make_node("Loop", ["trips", "go"], ["logs"], body=body, name="the_loop")], "g",
        [tensor("trips", [], TensorProto.INT64), tensor("go", [], TensorProto.BOOL)], [tensor("logs", None)])
    path = tmp_path / "loop.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)],
                                       ir_version=8).SerializeToString())
    d = DebugRun(core.load(path))
    d.break_on_nonfinite = True
    d.start({"trips": np.array(4, np.int64), "go": np.array(True)})
    ev = d.resume()
    assert ev.reason == "nonfinite" and ev.node.name == "body_log" and ev.iteration == 2, ev
