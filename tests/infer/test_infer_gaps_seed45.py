"""Facts onnx full_check and onnxruntime refuse and the app called clean,
found with tools/check_differential.py (seeds 45-48); inference now reports
them (so the app and `onnxstudio check` do). Each case names the reproducer
it comes from (`--replay BASE:SEED`):

- DFT's input holds a real signal (last dim 1) or its real and imaginary
  parts (last dim 2) (node/test_dft_rfft_opset19:47004082: the input's last
  dim made 0 on a one-sided DFT): shape.dim-mismatch. A one-sided DFT takes
  a real signal, an inverse one-sided one the complex half spectrum: onnx
  and onnxruntime refuse either other at load. Without onesided, onnx
  accepts any last dim and onnxruntime fails to run one other than 1 or 2
  (its kernel's layout check, before any arithmetic: the same on every
  machine).

Valid neighbours are accepted by both, run on onnxruntime and are clean
for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F = TensorProto.FLOAT
DFT = 'graph/node[0] DFT "dft"'


def _dft(last, onesided=0, inverse=0, opset=19):
    """A DFT over axis 1 of a [1, 10, 10, last] input; the output's dims
    symbolic, so onnx's inference meets no declaration."""
    x = helper.make_tensor_value_info("x", F, [1, 10, 10, last])
    y = helper.make_tensor_value_info("y", F, ["a", "b", "c", "d"])
    attrs = {"onesided": onesided, "inverse": inverse}
    if opset < 20:
        node = helper.make_node("DFT", ["x"], ["y"], name="dft", axis=1, **attrs)
        nodes, inits = [node], []
    else:
        node = helper.make_node("DFT", ["x", "", "axis"], ["y"], name="dft", **attrs)
        nodes, inits = [node], [helper.make_tensor("axis", TensorProto.INT64, [], [1])]
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=inits)
    return helper.make_model(graph, ir_version=10, opset_imports=[helper.make_opsetid("", opset)])


def _run(model, last) -> str:
    """'runs', or onnxruntime's refusal or failure."""
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.ones((1, 10, 10, last), np.float32)})
    except Exception as e:  # noqa: BLE001 - the failure is the verdict
        return str(e)
    return "runs"


# name -> (last dim, onesided, inverse, opset, words of our message)
REFUSED_AT_LOAD = {
    "reproducer_one_sided_of_last_dim_0": (0, 1, 0, 19, "a one-sided DFT (onesided=1) transforms a real signal"),
    "one_sided_of_a_complex_input": (2, 1, 0, 19, "a last dim of 1: give it a real signal, or set onesided=0"),
    "inverse_one_sided_of_a_real_input": (1, 1, 1, 19, "takes the complex half spectrum, a last dim of 2"),
    "inverse_one_sided_of_last_dim_3": (3, 1, 1, 19, "inverse one-sided DFT (inverse=1, onesided=1)"),
    "one_sided_of_a_complex_input_opset_17": (2, 1, 0, 17, "a one-sided DFT"),
    "one_sided_of_a_complex_input_opset_20": (2, 1, 0, 20, "a one-sided DFT"),
}


@pytest.mark.parametrize("name", sorted(REFUSED_AT_LOAD))
def test_a_one_sided_dft_of_the_other_kind_of_input_is_refused_by_both_and_by_us(name, tmp_path):
    last, onesided, inverse, opset, words = REFUSED_AT_LOAD[name]
    model = _dft(last, onesided, inverse, opset)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("shape.dim-mismatch", DFT)], found
    assert found[0].message.startswith(f"input 0 'x' [1, 10, 10, {last}] has a last dim of {last}, but")
    assert words in found[0].message


# name -> (last dim, inverse, opset)
FAILS_TO_RUN = {
    "last_dim_0": (0, 0, 19),
    "last_dim_3": (3, 0, 19),
    "inverse_of_last_dim_3": (3, 1, 19),
    "last_dim_4_opset_20": (4, 0, 20),
}


@pytest.mark.parametrize("name", sorted(FAILS_TO_RUN))
def test_a_last_dim_other_than_1_or_2_fails_to_run_and_is_refused_by_us(name, tmp_path):
    """onnx accepts these (it checks the last dim only for a one-sided
    transform); onnxruntime loads each and its kernel refuses the layout."""
    last, inverse, opset = FAILS_TO_RUN[name]
    model = _dft(last, 0, inverse, opset)
    assert onnx_accepts(model)
    assert onnxruntime_loads(model)
    assert "must have a last dimension of 1 (real) or 2 (complex)" in _run(model, last)
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("shape.dim-mismatch", DFT)], found
    assert found[0].message == (f"input 0 'x' [1, 10, 10, {last}] has a last dim of {last}, but DFT reads its last "
                                "dim as a real signal (1) or its real and imaginary parts (2): give it a last dim "
                                "of 1 or 2")


# (last dim, onesided, inverse, opset)
VALID = [(1, 0, 0, 19), (1, 0, 1, 19), (2, 0, 0, 19), (2, 0, 1, 19), (1, 1, 0, 19), (2, 1, 1, 19),
         (1, 1, 0, 17), (2, 1, 1, 20), (2, 0, 0, 20)]


@pytest.mark.parametrize("last, onesided, inverse, opset", VALID)
def test_a_real_or_complex_input_of_its_kind_runs_and_is_clean(last, onesided, inverse, opset, tmp_path):
    model = _dft(last, onesided, inverse, opset)
    assert onnx_accepts(model)
    assert _run(model, last) == "runs"
    assert our_errors(model, tmp_path) == []


def test_a_symbolic_last_dim_is_not_judged(tmp_path):
    """A last dim named, not numbered, may be 1 or 2: no finding."""
    model = _dft(1, 1, 0)
    model.graph.input[0].type.tensor_type.shape.dim[3].dim_param = "parts"
    assert our_errors(model, tmp_path) == []


def test_the_live_checker_follows_onesided_edited(tmp_path):
    """Setting onesided=1 on a DFT of a complex input makes it a mismatch;
    undoing it clears it: the live list equals a full check each time."""
    from onnxstudio import core
    from onnxstudio.core.check import ERROR
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute
    path = tmp_path / "dft.onnx"
    path.write_bytes(_dft(2).SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetAttribute({"output": "y"}, "onesided", type=2, value=1))     # 2: INT
    assert [(d.code, d.path) for d in doc.diagnostics if d.severity == ERROR] == [("shape.dim-mismatch", DFT)]
    assert doc.diagnostics == core.check(doc.model)
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    assert doc.diagnostics == core.check(doc.model)
