"""Facts onnx full_check and onnxruntime refuse and the app called clean,
found with tools/check_differential.py (seeds 41-44); inference now reports
them (so the app and `onnxstudio check` do). Each case names the reproducer
it comes from (`--replay BASE:SEED`):

- SequenceInsert's tensor is of the sequence's element type
  (simple/test_sequence_model1:42002599: a float16 tensor inserted into a
  sequence of float): node.type-mismatch; onnx and onnxruntime refuse it at
  load;
- Attention's keys and values are pairs: K and V of one batch, number of
  heads (4-D) and sequence length, Q of their batch
  (node/test_attention_local_window_with_past:42004025: V rewired to Q, of
  4 positions beside K's 2): shape.dim-mismatch. onnx refuses it where the
  present value is declared from K's length (the reproducer); with the
  outputs' dims left symbolic onnx accepts such a node, and onnxruntime
  loads every form and fails to run each (its attention shape check, before
  any arithmetic: the same on every machine).

Valid neighbours are accepted by both, run on onnxruntime and are clean
for us."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors

F, F16, I64 = TensorProto.FLOAT, TensorProto.FLOAT16, TensorProto.INT64
NUMPY = {F: np.float32, F16: np.float16, I64: np.int64}


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, opset, ir_version=10):
    g = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(g, ir_version=ir_version, opset_imports=[helper.make_opsetid("", opset)])


def _run(model, feeds) -> str:
    """'runs', or onnxruntime's refusal or failure."""
    try:
        session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        session.run(None, feeds)
    except Exception as e:  # noqa: BLE001 - the failure is the verdict
        return str(e)
    return "runs"


# --- SequenceInsert's tensor against the sequence ----------------------------------------------------

def _sequence_insert(tensor_elem, empty_dtype=None, sequence_input=None):
    """A sequence (from SequenceEmpty, or a graph input of `sequence_input`
    tensors) and a tensor inserted into it; the length is the output."""
    nodes, inputs = [], [_vi("t", tensor_elem, [2])]
    if sequence_input is None:
        dtype = {} if empty_dtype is None else {"dtype": empty_dtype}
        nodes.append(helper.make_node("SequenceEmpty", [], ["s0"], name="empty", **dtype))
    else:
        inputs.append(helper.make_tensor_sequence_value_info("s0", sequence_input, [2]))
    nodes += [helper.make_node("SequenceInsert", ["s0", "t"], ["s1"], name="insert"),
              helper.make_node("SequenceLength", ["s1"], ["n"], name="length")]
    model = _model(nodes, inputs, [_vi("n", I64, [])], opset=12, ir_version=8)
    feeds = {"t": np.ones(2, NUMPY[tensor_elem])}
    if sequence_input is not None:
        feeds["s0"] = [np.ones(2, NUMPY[sequence_input])]
    return model, feeds


def _insert_path(kwargs) -> str:
    """The SequenceInsert's path: after the SequenceEmpty, or first."""
    return f'graph/node[{0 if "sequence_input" in kwargs else 1}] SequenceInsert "insert"'

# name -> (arguments of _sequence_insert, the tensor's type, the sequence's)
INSERT_REFUSED = {
    "float16_into_float_by_default": ({"tensor_elem": F16}, "float16", "float"),   # the reproducer's
    "int64_into_float_by_default": ({"tensor_elem": I64}, "int64", "float"),
    "float_into_int64": ({"tensor_elem": F, "empty_dtype": I64}, "float", "int64"),
    "float16_into_a_declared_float_sequence": ({"tensor_elem": F16, "sequence_input": F}, "float16", "float"),
}


@pytest.mark.parametrize("name", sorted(INSERT_REFUSED))
def test_a_tensor_of_another_type_than_the_sequence_s_is_refused_by_both_and_by_us(name, tmp_path):
    kwargs, given, have = INSERT_REFUSED[name]
    model, feeds = _sequence_insert(**kwargs)
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    found = our_errors(model, tmp_path)
    assert [d.code for d in found] == ["node.type-mismatch"], found
    assert f"input 1 't' is {given}, but input 0 's0' is a sequence of {have}" in found[0].message
    assert found[0].path == _insert_path(kwargs)


INSERT_VALID = {
    "float_into_float_by_default": {"tensor_elem": F},
    "float16_into_float16": {"tensor_elem": F16, "empty_dtype": F16},
    "float_into_a_declared_float_sequence": {"tensor_elem": F, "sequence_input": F},
}


@pytest.mark.parametrize("name", sorted(INSERT_VALID))
def test_a_tensor_of_the_sequence_s_type_runs_and_is_clean(name, tmp_path):
    model, feeds = _sequence_insert(**INSERT_VALID[name])
    assert onnx_accepts(model)
    assert _run(model, feeds) == "runs"
    assert our_errors(model, tmp_path) == []


def test_a_dtype_that_is_no_element_type_is_the_checker_s_finding_alone(tmp_path):
    """SequenceEmpty's dtype 999: the checker says so (attr.dtype-invalid);
    inference does not add a mismatch against a type that does not exist."""
    model, _ = _sequence_insert(F, empty_dtype=999)
    codes = [d.code for d in our_errors(model, tmp_path)]
    assert "attr.dtype-invalid" in codes
    assert "node.type-mismatch" not in codes


def test_the_live_checker_follows_the_sequence_s_dtype_edited(tmp_path):
    """Giving the SequenceEmpty an int64 dtype makes the float tensor
    inserted a mismatch; undoing it clears it: the live list equals a full
    check each time (the SequenceInsert is re-inferred through its input)."""
    from onnxstudio import core
    from onnxstudio.core.check import ERROR
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetAttribute
    model, _ = _sequence_insert(F)
    path = tmp_path / "seq.onnx"
    path.write_bytes(model.SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetAttribute({"output": "s0"}, "dtype", type=2, value=int(I64)))     # 2: INT
    assert [(d.code, d.path) for d in doc.diagnostics if d.severity == ERROR] == [
        ("node.type-mismatch", _insert_path({}))]
    assert doc.diagnostics == core.check(doc.model)
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    assert doc.diagnostics == core.check(doc.model)


# --- Attention's keys and values ---------------------------------------------------------------------

def _attention(q, k, v, past=None, heads=None, present=None):
    """Attention-23 of Q, K, V (and the past keys and values); the outputs'
    dims are symbolic unless `present` declares the present keys' and
    values' shapes."""
    names, inputs, outputs = ["q", "k", "v"], [_vi("q", F, q), _vi("k", F, k), _vi("v", F, v)], ["y"]
    if past is not None:
        names += ["", "past_k", "past_v"]
        inputs += [_vi("past_k", F, past), _vi("past_v", F, past)]
        outputs += ["present_k", "present_v"]
    attrs = {} if heads is None else {"q_num_heads": heads[0], "kv_num_heads": heads[1]}
    node = helper.make_node("Attention", names, outputs, name="att", **attrs)
    declared = [_vi("y", F, [f"y{i}" for i in range(len(q))])]
    declared += [_vi(o, F, present or [f"{o}{i}" for i in range(4)]) for o in outputs[1:]]
    model = _model([node], inputs, declared, opset=23)
    shapes = {"q": q, "k": k, "v": v} | ({"past_k": past, "past_v": past} if past is not None else {})
    if any(type(d) is not int for s in shapes.values() for d in s):
        return model, None          # a symbolic dim: not run
    rng = np.random.default_rng(0)
    return model, {n: rng.random(s, dtype=np.float32) for n, s in shapes.items()}


ATTENTION = 'graph/node[0] Attention "att"'


def test_the_reproducer_values_of_another_length_than_the_keys_are_refused_by_both_and_by_us(tmp_path):
    """42004025: V rewired to Q (4 positions) beside K's 2, on a cache of 8;
    the present keys and values declared 8 + 2 long, as K makes them."""
    model, feeds = _attention([2, 3, 4, 8], [2, 3, 2, 8], [2, 3, 4, 8], past=[2, 3, 8, 8], present=[2, 3, 10, 8])
    assert not onnx_accepts(model)
    assert _run(model, feeds) != "runs"
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("shape.dim-mismatch", ATTENTION)], found
    assert ("input 1 'k' [2, 3, 2, 8] and input 2 'v' [2, 3, 4, 8] differ in the sequence length (2 and 4, "
            "axis 2)") in found[0].message


# name -> (Q, K, V shapes, q_num_heads and kv_num_heads, the inputs and the dim our finding names)
ATTENTION_FAILS = {
    "values_longer_4d": ([2, 3, 4, 8], [2, 3, 2, 8], [2, 3, 4, 8], None, "input 1 'k'", "sequence length (2 and 4"),
    "values_longer_3d": ([2, 4, 24], [2, 6, 24], [2, 5, 24], (3, 3), "input 1 'k'", "sequence length (6 and 5"),
    "values_of_another_batch_4d": ([2, 3, 4, 8], [2, 3, 2, 8], [1, 3, 2, 8], None, "input 1 'k'", "batch (2 and 1"),
    "values_of_another_batch_3d": ([2, 4, 24], [2, 6, 24], [1, 6, 24], (3, 3), "input 1 'k'", "batch (2 and 1"),
    "values_of_other_heads": ([2, 6, 4, 8], [2, 3, 2, 8], [2, 2, 2, 8], None, "input 1 'k'",
                              "number of heads (3 and 2"),
    "keys_of_another_batch_than_the_queries": ([1, 3, 4, 8], [2, 3, 2, 8], [2, 3, 2, 8], None, "input 0 'q'",
                                               "batch (1 and 2"),
}


@pytest.mark.parametrize("name", sorted(ATTENTION_FAILS))
def test_keys_and_values_that_do_not_pair_fail_to_run_and_are_refused_by_us(name, tmp_path):
    """onnx accepts these (the outputs' dims are symbolic, so its inference
    meets no declaration); onnxruntime loads each and fails to run it."""
    q, k, v, heads, first, words = ATTENTION_FAILS[name]
    model, feeds = _attention(q, k, v, heads=heads)
    assert onnxruntime_loads(model)
    assert "attention_helper" in _run(model, feeds)
    found = our_errors(model, tmp_path)
    assert [(d.code, d.path) for d in found] == [("shape.dim-mismatch", ATTENTION)], found
    assert found[0].message.startswith(first) and f"differ in the {words}" in found[0].message


# Valid neighbours: a value head size of its own, grouped query heads (6
# over 3), the 3-D layout with a value hidden size of its own, a cache.
ATTENTION_VALID = {
    "value_head_size_of_its_own": ([2, 3, 4, 8], [2, 3, 2, 8], [2, 3, 2, 16], None, None),
    "grouped_query_heads": ([2, 6, 4, 8], [2, 3, 2, 8], [2, 3, 2, 8], None, None),
    "3d_value_hidden_of_its_own": ([2, 4, 24], [2, 6, 24], [2, 6, 12], (3, 3), None),
    "with_a_cache": ([2, 3, 4, 8], [2, 3, 2, 8], [2, 3, 2, 8], None, [2, 3, 8, 8]),
}


@pytest.mark.parametrize("name", sorted(ATTENTION_VALID))
def test_keys_and_values_that_pair_run_and_are_clean(name, tmp_path):
    q, k, v, heads, past = ATTENTION_VALID[name]
    model, feeds = _attention(q, k, v, past=past, heads=heads)
    assert onnx_accepts(model)
    assert _run(model, feeds) == "runs"
    assert our_errors(model, tmp_path) == []


def test_a_symbolic_key_length_is_not_judged(tmp_path):
    """K's length a symbol beside V's 4: it may be 4, so no finding."""
    model, _ = _attention([2, 3, 4, 8], [2, 3, "kv", 8], [2, 3, 4, 8])
    assert onnx_accepts(model) and onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []
