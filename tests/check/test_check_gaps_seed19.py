"""Declaration and attribute facts onnx full_check and onnxruntime refuse
and the checker called clean, found with tools/check_differential.py
(seeds 19-21, then 22-27); the file check now says so, without inference:

- a graph output that is the graph input of its name, declared with another
  rank or known size (node/test_split_equal_parts_default_axis_opset13:20000423:
  an output renamed like the input): graph_rules, graph.declared-type-contradicts;
- LabelEncoder's keys of another element type than its input
  (test_ai_onnx_ml_label_encoder_string_int:21004422), and its keys_tensor or
  values_tensor not 1-D (node/test_ai_onnx_ml_label_encoder_tensor_mapping:26004190):
  operator_rules.

And what the README said was left and is not (a variadic input given as ""),
and what stays left on purpose (a BatchNormalization's trailing "" output:
test_check_onnx_gaps.py lists it as onnx being stricter than the spec)."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from oracle_verdicts import onnx_accepts, onnxruntime_loads, our_errors
from onnxstudio.core.check import ERROR, check

F, I64, S = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _model(nodes, inputs, outputs, inits=(), opsets=(("", 17),)):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    return helper.make_model(g, ir_version=10, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


def _file_errors(model, tmp_path) -> list:
    """check(path): the file alone, no inference."""
    path = tmp_path / "file.onnx"
    path.write_bytes(model.SerializeToString())
    return [d for d in check(path) if d.severity == ERROR]


def _pass_through(output_shape, input_shape=(6,)):
    """x is a graph input and, as it is, a graph output (beside a Relu of it)."""
    node = helper.make_node("Relu", ["x"], ["r"], name="relu")
    return _model([node], [_vi("x", F, list(input_shape))],
                  [_vi("r", F, list(input_shape)), _vi("x", F, output_shape)])


def _label_encoder(input_elem, opset=4, **attrs):
    attrs = attrs or {"keys_strings": ["a", "b"], "values_int64s": [1, 2]}
    out_elem = S if "values_strings" in attrs else I64
    node = helper.make_node("LabelEncoder", ["x"], ["y"], name="enc", domain="ai.onnx.ml", **attrs)
    return _model([node], [_vi("x", input_elem, [3])], [_vi("y", out_elem, [3])],
                  opsets=(("", 17), ("ai.onnx.ml", opset)))


def _tensor(values, dtype, shape=None):
    return numpy_helper.from_array(np.array(values, dtype).reshape(shape or [len(values)]))


# name -> (model, our code, the path's end); onnx refuses each
REFUSED = {
    "pass_through_other_size": (_pass_through([2]), "graph.declared-type-contradicts", 'graph/output[1] "x"'),
    "pass_through_other_rank": (_pass_through([6, 1]), "graph.declared-type-contradicts", 'graph/output[1] "x"'),
    "pass_through_scalar": (_pass_through([]), "graph.declared-type-contradicts", 'graph/output[1] "x"'),
    "label_encoder_int64_input_string_keys": (_label_encoder(I64, opset=2), "node.input-type",
                                              'attribute "keys_strings"'),
    "label_encoder_float_input_int64_keys": (_label_encoder(F, keys_int64s=[1, 2], values_strings=["a", "b"]),
                                             "node.input-type", 'attribute "keys_int64s"'),
    "label_encoder_int32_input_string_keys": (_label_encoder(TensorProto.INT32), "node.input-type",
                                              'attribute "keys_strings"'),
    "label_encoder_int64_input_int32_tensor_keys": (
        _label_encoder(I64, keys_tensor=_tensor([1, 2], np.int32), values_int64s=[1, 2]), "node.input-type",
        'attribute "keys_tensor"'),
    "label_encoder_values_tensor_2d": (
        _label_encoder(I64, keys_int64s=[1, 2, 3], values_tensor=_tensor([4, 5, 6], np.int64, [3, 1])),
        "attr.value-out-of-range", 'attribute "values_tensor"'),
    "label_encoder_keys_tensor_2d": (
        _label_encoder(I64, keys_tensor=_tensor([1, 2], np.int64, [2, 1]), values_int64s=[4, 5]),
        "attr.value-out-of-range", 'attribute "keys_tensor"'),
}
ACCEPTED = {
    "pass_through_same_shape": _pass_through([6]),
    "pass_through_symbolic": _pass_through(["n"]),
    "pass_through_of_a_symbolic_input": _pass_through([6], input_shape=("n",)),
    "label_encoder_string_keys": _label_encoder(S),
    "label_encoder_v2_string_keys": _label_encoder(S, opset=2),
    "label_encoder_int64_keys": _label_encoder(I64, keys_int64s=[1, 2], values_int64s=[3, 4]),
    "label_encoder_float_keys": _label_encoder(F, keys_floats=[1.0, 2.0], values_int64s=[3, 4]),
    "label_encoder_int64_tensors": _label_encoder(I64, keys_tensor=_tensor([1, 2], np.int64),
                                                  values_tensor=_tensor([3, 4], np.int64)),
    # The page says 1-D; both oracles read a scalar as one entry (and onnxruntime runs it).
    "label_encoder_scalar_keys_tensor": _label_encoder(I64, keys_tensor=_tensor([1], np.int64, []),
                                                       values_int64s=[4]),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_by_onnx_and_by_the_file_check(name, tmp_path):
    model, code, where = REFUSED[name]
    assert not onnx_accepts(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [d.code for d in found] == [code], found
        assert found[0].path.endswith(where), found


@pytest.mark.parametrize("name", sorted(n for n in REFUSED if n.startswith("label_encoder")))
def test_onnxruntime_refuses_the_label_encoders(name):
    assert not onnxruntime_loads(REFUSED[name][0])


@pytest.mark.parametrize("name", sorted(n for n in REFUSED if n.startswith("pass_through")))
def test_onnxruntime_returns_the_input_as_it_is_not_as_declared(name):
    """onnxruntime runs a pass-through whatever its output declares: the
    declared shape is not what comes out."""
    model = REFUSED[name][0]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    declared = [d.dim_value for d in model.graph.output[1].type.tensor_type.shape.dim]
    (_, x) = session.run(None, {"x": np.arange(6, dtype=np.float32)})
    assert x.shape == (6,) and list(x.shape) != declared


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_valid_forms_are_clean(name, tmp_path):
    model = ACCEPTED[name]
    assert onnx_accepts(model)
    assert onnxruntime_loads(model)
    assert _file_errors(model, tmp_path) == []
    assert our_errors(model, tmp_path) == []


def test_the_message_shows_both_shapes(tmp_path):
    (found,) = _file_errors(_pass_through([2]), tmp_path)
    assert "declared with shape [6]" in found.message and "declares [2]" in found.message
    assert "dim 0: 2 declared, 6 given" in found.message
    (found,) = _file_errors(_pass_through(["n", 6], input_shape=("n", 5)), tmp_path)
    assert "[n, 5]" in found.message and "dim 1: 6 declared, 5 given" in found.message


def _sequence_construct_with_an_empty_input():
    nodes = [helper.make_node("SequenceConstruct", ["a", "", "b"], ["s"], name="seq"),
             helper.make_node("SequenceLength", ["s"], ["n"], name="len")]
    return _model(nodes, [_vi("a", F, [2]), _vi("b", F, [2])], [_vi("n", I64, [])])


def _scan_with_an_empty_state():
    body = helper.make_graph(
        [helper.make_node("Add", ["s", "xt"], ["s2"]), helper.make_node("Identity", ["s2"], ["yt"])], "body",
        [_vi("s", F, [2]), _vi("xt", F, [2])], [_vi("s2", F, [2]), _vi("yt", F, [2])])
    node = helper.make_node("Scan", ["", "x"], ["sf", "y"], name="scan", body=body, num_scan_inputs=1)
    return _model([node], [_vi("x", F, [3, 2])], [_vi("sf", F, [2]), _vi("y", F, [3, 2])], opsets=(("", 16),))


@pytest.mark.parametrize("model", [_sequence_construct_with_an_empty_input(), _scan_with_an_empty_state()],
                         ids=["SequenceConstruct", "Scan"])
def test_a_variadic_input_given_as_empty_is_caught(model, tmp_path):
    """The README listed this as left; node_rules.check_arity reports it."""
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    found = _file_errors(model, tmp_path)
    assert [d.code for d in found] == ["node.required-input-empty"]
    assert found[0].path.endswith('/input[1] ""') or found[0].path.endswith('/input[0] ""')


def test_batch_normalization_with_a_trailing_empty_output_is_left_to_the_spec(tmp_path):
    """[Y, ""] gives Y alone (IR spec: a trailing "" is an output not
    given), which BatchNormalization allows; onnx and onnxruntime count two
    entries and refuse it. We follow the spec (README, onnx-stricter list)."""
    inputs = [_vi("x", F, [1, 2, 3])] + [_vi(n, F, [2]) for n in ("scale", "bias", "mean", "var")]
    node = helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y", ""], name="bn")
    model = _model([node], inputs, [_vi("y", F, [1, 2, 3])], opsets=(("", 15),))
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    assert our_errors(model, tmp_path) == []


def test_the_live_checker_follows_a_label_encoder_s_input_retyped(tmp_path):
    """The keys rule reads the input's type: an edit retyping the input
    re-checks the LabelEncoder (its reader), as a full check would."""
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetValueType
    path = tmp_path / "enc.onnx"
    path.write_bytes(ACCEPTED["label_encoder_string_keys"].SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetValueType("x", TensorProto.INT64, [3]))
    found = [d for d in doc.diagnostics if d.severity == ERROR]
    assert [d.code for d in found] == ["node.input-type"]
    assert found == [d for d in core.check(doc.model) if d.severity == ERROR]
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]


def test_the_live_checker_gives_a_full_check_s_verdict_on_a_pass_through(tmp_path):
    """Retyping the pass-through value (an edit of the header) and undoing
    it: the live list equals a full check each time."""
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetValueType
    path = tmp_path / "pass.onnx"
    path.write_bytes(REFUSED["pass_through_other_size"][0].SerializeToString())
    doc = Document(core.load(path))
    assert [d.code for d in doc.diagnostics if d.severity == ERROR] == ["graph.declared-type-contradicts"]
    for edit in (SetValueType("x", TensorProto.FLOAT, [5]), SetValueType("r", TensorProto.FLOAT, [6])):
        doc.apply(edit)
        assert doc.diagnostics == core.check(doc.model)
        doc.undo()
        assert doc.diagnostics == core.check(doc.model)


def _function_call(x_type, y_type=None):
    """with_function's ScaledRelu (its body multiplies X by a Constant, its
    LeakyRelu gives Y) called once with x of `x_type`, y declared `y_type`
    (TypeProtos; y float[2] by default)."""
    from onnx import AttributeProto, ValueInfoProto
    fn = helper.make_function(
        "local.fns", "ScaledRelu", ["X"], ["Y"],
        [helper.make_node("Constant", [], ["s"], name="scale", value_float=1.0),
         helper.make_node("Mul", ["X", "s"], ["m"], name="mul"),
         helper.make_node("LeakyRelu", ["m"], ["Y"], name="act")],
        opset_imports=[helper.make_opsetid("", 17)], attributes=["alpha"])
    fn.node[2].attribute.append(helper.make_attribute_ref("alpha", AttributeProto.FLOAT))
    x = ValueInfoProto(name="x")
    x.type.CopyFrom(x_type)
    node = helper.make_node("ScaledRelu", ["x"], ["y"], domain="local.fns", name="f1", alpha=0.1)
    y = ValueInfoProto(name="y")
    y.type.CopyFrom(y_type or helper.make_tensor_type_proto(F, [2]))
    g = helper.make_graph([node], "calls", [x], [y])
    return helper.make_model(g, functions=[fn], ir_version=10,
                             opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local.fns", 1)])


_FLOAT_2 = helper.make_tensor_type_proto(F, [2])
CALLS_REFUSED = {
    # with_function:20000159 and 27003122, 25000199, 27002357
    "optional": helper.make_optional_type_proto(_FLOAT_2),
    "map": helper.make_map_type_proto(I64, _FLOAT_2),
    "sparse": helper.make_sparse_tensor_type_proto(F, [2]),
    "string_tensor": helper.make_tensor_type_proto(S, [2]),
}


@pytest.mark.parametrize("kind", sorted(CALLS_REFUSED))
def test_a_function_called_with_a_type_its_body_cannot_take(kind, tmp_path):
    """The function's input is untyped; the call gives it a type the body's
    Mul does not take: onnx (inferring the body per call) and onnxruntime
    refuse the call, and so does the file check, at the call's input."""
    model = _function_call(CALLS_REFUSED[kind])
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("node.input-type", 'graph/node[0] ScaledRelu "f1"/input[0] "x"')]
        assert "passes it to Mul 'mul' as 'A'" in found[0].message


def test_a_call_output_declared_of_a_kind_the_body_cannot_make(tmp_path):
    """with_function:22000940: the call's output declared sparse where the
    body's LeakyRelu makes a tensor; both oracles refuse it."""
    model = _function_call(_FLOAT_2, helper.make_sparse_tensor_type_proto(F, [2]))
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("node.input-type", 'graph/node[0] ScaledRelu "f1"/output[0] "y"')]
        assert "takes it from LeakyRelu 'act' as 'Y', which makes" in found[0].message


def test_a_function_called_with_a_tensor_it_takes_is_clean(tmp_path):
    model = _function_call(_FLOAT_2)
    assert onnx_accepts(model) and onnxruntime_loads(model)
    assert _file_errors(model, tmp_path) == [] and our_errors(model, tmp_path) == []


def test_the_live_checker_follows_a_call_s_input_retyped(tmp_path):
    from onnxstudio import core
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetValueType
    path = tmp_path / "call.onnx"
    path.write_bytes(_function_call(_FLOAT_2).SerializeToString())
    doc = Document(core.load(path))
    assert not [d for d in doc.diagnostics if d.severity == ERROR]
    doc.apply(SetValueType("x", S, [2]))
    found = [d for d in doc.diagnostics if d.severity == ERROR]
    assert [d.code for d in found] == ["node.input-type"]
    assert found == [d for d in core.check(doc.model) if d.severity == ERROR]
    doc.undo()
    assert not [d for d in doc.diagnostics if d.severity == ERROR]


def _tree_ensemble(**lists):
    """node/test_ai_onnx_ml_tree_ensemble_single_tree's TreeEnsemble, lists replaced by `lists`."""
    attrs = dict(aggregate_function=1, n_targets=2, post_transform=0, tree_roots=[0],
                 nodes_featureids=[0, 0, 0], nodes_truenodeids=[1, 0, 1], nodes_trueleafs=[0, 1, 1],
                 nodes_falsenodeids=[2, 2, 3], nodes_falseleafs=[0, 1, 1], leaf_targetids=[0, 1, 0, 1],
                 nodes_modes=[0, 0, 0], nodes_splits=[3.14, 1.2, 4.2], leaf_weights=[5.23, 12.12, -12.23, 7.21])
    attrs.update(lists)
    for name, dtype in (("nodes_modes", np.uint8), ("nodes_splits", np.float64), ("leaf_weights", np.float64)):
        attrs[name] = numpy_helper.from_array(np.array(attrs[name], dtype))
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], name="trees", domain="ai.onnx.ml", **attrs)
    return _model([node], [_vi("x", TensorProto.DOUBLE, [3, 2])], [_vi("y", TensorProto.DOUBLE, [3, 2])],
                  opsets=(("", 21), ("ai.onnx.ml", 5)))


# node/test_ai_onnx_ml_tree_ensemble_single_tree:28001605 gave nodes_falseleafs four entries
TREES_REFUSED = {
    "falseleafs_four": {"nodes_falseleafs": [0, 1, 1, 3]},
    "featureids_two": {"nodes_featureids": [0, 0]},
    "modes_four": {"nodes_modes": [0, 0, 0, 0]},
    "splits_four": {"nodes_splits": [1.0, 2.0, 3.0, 4.0]},
    "leaf_targetids_three": {"leaf_targetids": [0, 1, 0]},
}


@pytest.mark.parametrize("name", sorted(TREES_REFUSED))
def test_tree_ensemble_lists_of_other_lengths_are_refused(name, tmp_path):
    model = _tree_ensemble(**TREES_REFUSED[name])
    assert not onnx_accepts(model)
    assert not onnxruntime_loads(model)
    for found in (_file_errors(model, tmp_path), our_errors(model, tmp_path)):
        assert [(d.code, d.path) for d in found] == [("attr.length-mismatch", 'graph/node[0] TreeEnsemble "trees"')]


def test_tree_ensemble_lists_of_one_length_are_clean(tmp_path):
    model = _tree_ensemble()
    assert onnx_accepts(model) and onnxruntime_loads(model)
    assert _file_errors(model, tmp_path) == [] and our_errors(model, tmp_path) == []
    (found,) = _file_errors(_tree_ensemble(nodes_falseleafs=[0, 1, 1, 3]), tmp_path)
    assert "nodes_splits 3" in found.message and "nodes_falseleafs 4" in found.message
