"""Rules the mutation suite cannot reach with one generic edit: warnings and
infos, deprecated operators, variadic minimums, external data ranges."""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from check_bases import load_base
from onnxstudio.core.check import ERROR, INFO, WARNING, check


def _vi(name, dtype=TensorProto.FLOAT, shape=(2, 3)):
    return helper.make_tensor_value_info(name, dtype, list(shape))


def _model(nodes, inputs, outputs, opset=17, **kw):
    return helper.make_model(helper.make_graph(nodes, "g", inputs, outputs, **kw),
                             opset_imports=[helper.make_opsetid("", opset)])


def _find(diags, code):
    return [d for d in diags if d.code == code]


def test_deprecated_operator_is_an_error():
    m = _model([helper.make_node("Upsample", ["x", "s"], ["y"], name="up")],
               [_vi("x", shape=(1, 1, 2, 2)), _vi("s", shape=(4,))], [_vi("y", shape=(1, 1, 4, 4))], opset=10)
    hits = _find(check(m), "node.deprecated-op")
    assert hits and hits[0].path == 'graph/node[0] Upsample "up"' and hits[0].severity == ERROR


def test_variadic_minimum():
    m = _model([helper.make_node("Concat", [], ["y"], name="cat", axis=0)], [], [_vi("y")])
    paths = {d.code: d.path for d in check(m)}
    assert paths["node.variadic-arity"] == 'graph/node[0] Concat "cat"'
    assert paths["node.input-count"] == 'graph/node[0] Concat "cat"'


def test_custom_domain_op_is_info_only():
    m = _model([helper.make_node("Fancy", ["x"], ["y"], domain="com.acme", name="f")], [_vi("x")], [_vi("y")])
    m.opset_import.add(domain="com.acme", version=1)
    diags = check(m)
    assert [(d.code, d.severity) for d in diags] == [("node.custom-op", INFO)]


def test_subgraph_input_shadowing_warns_and_unused_value_info_warns():
    m = load_base("branchy")
    loop = m.graph.node[4]
    loop.attribute[0].g.input[2].name = "x"           # the loop body's acc_in hides the outer "x"
    for n in loop.attribute[0].g.node:
        n.input[:] = ["x" if i == "acc_in" else i for i in n.input]
    m.graph.value_info.append(_vi("nobody_defines_this"))
    diags = check(m)
    shadow = _find(diags, "graph.shadowing")
    assert shadow and shadow[0].severity == WARNING
    assert shadow[0].path == 'graph/node[4] Loop "repeat"/attribute "body"/input[2] "x"'
    unused = _find(diags, "graph.value-info-unused")
    assert unused and unused[0].path == 'graph/value_info "nobody_defines_this"'
    assert not [d for d in diags if d.severity == ERROR], diags


def _external_model(offset, length):
    w = helper.make_tensor("w", TensorProto.FLOAT, [2, 3], [0.0] * 6)
    m = _model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [_vi("x")], [_vi("y")], initializer=[w])
    t = m.graph.initializer[0]
    t.ClearField("float_data")
    t.data_location = TensorProto.EXTERNAL
    t.external_data.add(key="location", value="w.bin")
    t.external_data.add(key="offset", value=str(offset))
    t.external_data.add(key="length", value=str(length))
    return m


def test_external_data_in_range_is_clean_and_beyond_the_file_is_an_error(tmp_path):
    (tmp_path / "w.bin").write_bytes(b"\0" * 32)
    assert not [d for d in check(_external_model(8, 24), model_dir=tmp_path) if d.severity >= WARNING]
    bad = _find(check(_external_model(16, 24), model_dir=tmp_path), "tensor.external-range")
    assert bad and bad[0].path == 'graph/initializer "w"'
    wrong_len = _find(check(_external_model(0, 20), model_dir=tmp_path), "tensor.external-range")
    assert wrong_len and "need 24" in wrong_len[0].message


def test_external_data_without_a_folder_is_info():
    diags = check(_external_model(0, 24).SerializeToString())
    assert [(d.code, d.severity) for d in diags] == [("tensor.external-unverified", INFO)]


def test_external_data_next_to_a_saved_model(tmp_path):
    m = _model([helper.make_node("Add", ["x", "w"], ["y"], name="add")], [_vi("x")], [_vi("y")],
               initializer=[numpy_helper.from_array(np.ones((2, 3), np.float32), "w")])
    onnx.save(m, tmp_path / "m.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
              location="weights.bin", size_threshold=0)
    assert not [d for d in check(tmp_path / "m.onnx") if d.severity >= WARNING]
    (tmp_path / "weights.bin").unlink()
    assert _find(check(tmp_path / "m.onnx"), "tensor.external-missing-file")
    (tmp_path / "weights.bin").mkdir()          # a folder where the data file should be
    found = _find(check(tmp_path / "m.onnx"), "tensor.external-missing-file")
    assert found and "not a regular file" in found[0].message


def test_onnxruntime_default_domain_ops_stay_errors_but_say_who_runs_them():
    """A model saved after onnxruntime's optimizations may hold its own
    LayerNormalization below opset 17 and SimplifiedLayerNormalization:
    not ONNX, so errors, with the reason a user sees them in such a file."""
    m = _model([helper.make_node("SimplifiedLayerNormalization", ["x", "g"], ["y"], name="sln"),
                helper.make_node("LayerNormalization", ["y", "g"], ["z"], name="ln")],
               [_vi("x", TensorProto.FLOAT, [2, 8]), _vi("g", TensorProto.FLOAT, [8])],
               [_vi("z", TensorProto.FLOAT, [2, 8])], opset=13)
    found = {d.code: d for d in check(m) if d.severity == ERROR}
    assert set(found) == {"node.unknown-op", "node.op-too-new"}
    assert all("onnxruntime registers" in d.message for d in found.values())
