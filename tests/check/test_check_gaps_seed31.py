"""Node facts onnx full_check or onnxruntime refuse and the checker called
clean, found with tools/check_differential.py (seeds 31-36); the file check
now says so, without inference:

- Split's num_outputs is its number of outputs
  (node/test_split_equal_parts_default_axis_opset18:34003136: num_outputs
  2^40 beside 3 outputs): operator_rules, node.output-count;
- a call to a model function leaves out an input its body needs
  (with_function:33004394: ScaledRelu's input given as ""): node_rules,
  node.required-input-empty at the call.

Each refused case is proved on both oracles: onnx full_check refuses it, or
onnxruntime refuses it at load (its load runs onnx's inference and graph
checks, never a kernel) or fails to run it. Valid neighbours are accepted by
both and clean for us."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnxruntime as ort
import pytest
from onnx import AttributeProto, TensorProto, helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors
from onnxstudio.core.check import ERROR, check

F = TensorProto.FLOAT


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _file_errors(model, tmp_path) -> list:
    """check(path): the file alone, no inference."""
    path = tmp_path / "file.onnx"
    path.write_bytes(model.SerializeToString())
    return [d for d in check(path) if d.severity == ERROR]


def _split(num_outputs, outputs=3):
    node = helper.make_node("Split", ["x"], [f"y{i}" for i in range(outputs)], name="split", axis=0,
                            num_outputs=num_outputs)
    g = helper.make_graph([node], "g", [_vi("x", F, [6])], [_vi(f"y{i}", F, [f"d{i}"]) for i in range(outputs)])
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid("", 18)])


def _split_fails_to_run(model) -> bool:
    """Whether onnxruntime refuses or fails to run the Split, in a child
    process: with fewer pieces than outputs it aborts the process."""
    code = ("import sys, numpy as np, onnxruntime as ort\n"
            "s = ort.InferenceSession(sys.stdin.buffer.read(), providers=['CPUExecutionProvider'])\n"
            "s.run(None, {'x': np.arange(6, dtype=np.float32)})\n")
    done = subprocess.run([sys.executable, "-c", code], input=model.SerializeToString(), capture_output=True,
                          timeout=120)
    return done.returncode != 0


SPLIT_PATH = 'graph/node[0] Split "split"/attribute "num_outputs"'


@pytest.mark.parametrize("num_outputs", [2 ** 40, 2 ** 32 + 3])
def test_split_counts_too_large_to_allocate_are_refused_by_both(num_outputs, tmp_path):
    """The reproducer's 2^40, and a count whose low 32 bits are the output
    count (3): both oracles read the int64 and refuse it."""
    model = _split(num_outputs)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("node.output-count", SPLIT_PATH)]


@pytest.mark.parametrize("num_outputs,outputs", [(4, 3), (5, 3), (3, 2), (2, 3)])
def test_split_counts_other_than_the_outputs_fail_to_run(num_outputs, outputs, tmp_path):
    """onnx accepts these (its inference reads the count only to size the
    pieces); onnxruntime fails to run each (fewer pieces than outputs: it
    aborts), so the count is a fault of the model."""
    model = _split(num_outputs, outputs)
    assert _split_fails_to_run(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("node.output-count", SPLIT_PATH)]
        assert f"num_outputs {num_outputs}" in found[0].message and f"{outputs} outputs" in found[0].message


def test_split_with_one_piece_per_output_runs_and_is_clean(tmp_path):
    model = _split(3)
    assert onnx_accepts(model)
    assert not _split_fails_to_run(model)
    assert _file_errors(model, tmp_path) == [] and our_errors(model, tmp_path) == []


def _call(inputs, body_op="Mul"):
    """A model function Scaled(X, S) whose body is `body_op`(X, S) (Mul needs
    both; Clip reads S as its optional min), called with `inputs`."""
    fn = helper.make_function("local", "Scaled", ["X", "S"], ["Y"],
                              [helper.make_node(body_op, ["X", "S"], ["Y"], name="body_op")],
                              [helper.make_opsetid("", 17)])
    node = helper.make_node("Scaled", inputs, ["y"], domain="local", name="call")
    g = helper.make_graph([node], "g", [_vi("x", F, [3]), _vi("s", F, [])], [_vi("y", F, [3])])
    return helper.make_model(g, ir_version=10, functions=[fn],
                             opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])


CALL = 'graph/node[0] Scaled "call"'
# name -> (call's inputs, body op, the paths of our findings)
CALLS_REFUSED = {
    "x_empty": (["", "s"], "Mul", [f'{CALL}/input[0] ""']),           # with_function:33004394
    "s_empty": (["x", ""], "Mul", [f'{CALL}/input[1] ""']),
    "s_left_out": (["x"], "Mul", [CALL]),
    "none_given": ([], "Mul", [CALL, CALL]),
    "x_empty_of_clip": (["", "s"], "Clip", [f'{CALL}/input[0] ""']),
}


@pytest.mark.parametrize("name", sorted(CALLS_REFUSED))
def test_a_call_leaving_out_an_input_its_body_needs(name, tmp_path):
    """onnxruntime refuses each at load; onnx refuses those where the body
    operator's types need the input (its first), and accepts a missing
    second input of Mul."""
    inputs, body_op, where = CALLS_REFUSED[name]
    model = _call(inputs, body_op)
    assert not onnxruntime_loads(model)
    assert onnx_accepts(model) == (name in ("s_empty", "s_left_out"))
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("node.required-input-empty", w) for w in where]


def test_the_message_names_the_function_input_and_the_body_operator(tmp_path):
    (found,) = _file_errors(_call(["", "s"]), tmp_path)
    assert "input 0 of function Scaled ('X') is given as empty" in found.message
    assert "Mul 'body_op' reads it as 'A'" in found.message
    (found,) = _file_errors(_call(["x"]), tmp_path)
    assert "input 1 of function Scaled ('S') is not given" in found.message


@pytest.mark.parametrize("inputs,body_op", [(["x", "s"], "Mul"), (["x", ""], "Clip"), (["x"], "Clip")],
                         ids=["both_given", "clip_min_empty", "clip_min_left_out"])
def test_calls_giving_what_the_body_needs_run_and_are_clean(inputs, body_op, tmp_path):
    """Clip reads S as its optional min: leaving it out is allowed."""
    model = _call(inputs, body_op)
    assert onnx_accepts(model)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {"x": np.ones(3, np.float32), "s": np.array(0.5, np.float32)}
    (y,) = session.run(None, {i.name: feeds[i.name] for i in session.get_inputs()})
    assert y.shape == (3,)
    assert _file_errors(model, tmp_path) == [] and our_errors(model, tmp_path) == []


def test_the_live_checker_follows_a_call_s_input_cleared(tmp_path):
    """Clearing the call's input and undoing it: the live list equals a
    full check each time."""
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetNodeInput
    path = tmp_path / "call.onnx"
    path.write_bytes(_call(["x", "s"]).SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetNodeInput("call", 0, ""))
    found = [d for d in doc.diagnostics if d.severity == ERROR]
    assert [(d.code, d.path) for d in found] == [("node.required-input-empty", f'{CALL}/input[0] ""')]
    assert doc.diagnostics == core.check(doc.model)
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    assert doc.diagnostics == core.check(doc.model)


def test_the_live_checker_follows_split_s_count_edited(tmp_path):
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute
    path = tmp_path / "split.onnx"
    path.write_bytes(_split(3).SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetAttribute("split", "num_outputs", AttributeProto.INT, 4))
    found = [d for d in doc.diagnostics if d.severity == ERROR]
    assert [(d.code, d.path) for d in found] == [("node.output-count", SPLIT_PATH)]
    assert doc.diagnostics == core.check(doc.model)
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
