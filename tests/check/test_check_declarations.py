"""Stale and contradicting declarations (what hand edits and onnx-modifier
leave behind), incomplete ones, attribute values set from Python that their
type cannot carry: each an error pinned to its place, the model untouched."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import ERROR, check, check_file
from onnxstudio.core.ir import AttrType
from onnxstudio.core.ir.graph import Attr

F = TensorProto.FLOAT


def _conv_model(out_shape, *, value_info=(), inputs=None, inits=None):
    w = numpy_helper.from_array(np.zeros((8, 3, 3, 3), np.float32), "w")
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], name="conv", pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["y"], name="act")], "g",
        inputs or [helper.make_tensor_value_info("x", F, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", F, out_shape)],
        initializer=[w] + list(inits or []), value_info=list(value_info))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 9
    return m


def _found(diags, code):
    return [d for d in diags if d.code == code]


def test_stale_output_shape_is_an_error_on_the_output_naming_both_shapes():
    m = _conv_model([1, 8, 16, 16])           # stale: the Conv keeps 8x8
    with pytest.raises(Exception, match="differ in dimension 2"):
        onnx.checker.check_model(m, full_check=True)      # onnx catches it too
    ir = core.load_bytes(m.SerializeToString())
    (d,) = _found(check(ir), "graph.declared-type-contradicts")
    assert d.severity == ERROR and d.path == 'graph/output[0] "y"'
    assert "float[1,8,16,16]" in d.message and "float[1,8,8,8]" in d.message
    assert 'node[1] Relu "act"' in d.message and "dim 2: 16 declared, 8 derived" in d.message
    assert ir.graph.get_value("y").type.shape == (1, 8, 16, 16)          # untouched


def test_contradicting_value_info_and_rank_and_element_type():
    vi = [helper.make_tensor_value_info("c", TensorProto.INT64, [1, 8, 8, 8])]
    ir = core.load_bytes(_conv_model([1, 8, 8, 8], value_info=vi).SerializeToString())
    (d,) = _found(check(ir), "graph.declared-type-contradicts")
    assert d.path == 'graph/value_info "c"' and "element type" in d.message and "int64" in d.message
    vi = [helper.make_tensor_value_info("c", F, [1, 8, 64])]
    ir = core.load_bytes(_conv_model([1, 8, 8, 8], value_info=vi).SerializeToString())
    (d,) = _found(check(ir), "graph.declared-type-contradicts")
    assert d.path == 'graph/value_info "c"' and "rank" in d.message


def test_graph_input_contradicting_its_initializer():
    inputs = [helper.make_tensor_value_info("x", F, [1, 3, 8, 8]), helper.make_tensor_value_info("b", F, [5])]
    ir = core.load_bytes(_conv_model([1, 8, 8, 8], inputs=inputs,
                                     inits=[numpy_helper.from_array(np.zeros(8, np.float32), "b")]).SerializeToString())
    (d,) = _found(check(ir), "graph.declared-type-contradicts")
    assert d.path == 'graph/input[1] "b"' and "initializer" in d.message and "float[5]" in d.message


def test_subgraph_input_contradicting_what_the_loop_passes():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), helper.make_node("Identity", ["v_in"], ["v_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.FLOAT, []),      # the iteration number is int64
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("v_in", F, [3])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("v_out", F, [3])])
    g = helper.make_graph([helper.make_node("Loop", ["n", "", "v0"], ["v"], name="loop", body=body)], "g",
                          [helper.make_tensor_value_info("n", TensorProto.INT64, []),
                           helper.make_tensor_value_info("v0", F, [3])],
                          [helper.make_tensor_value_info("v", F, [3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    diags = _found(check(core.load_bytes(m.SerializeToString())), "graph.declared-type-contradicts")
    assert [d.path for d in diags] == ['graph/node[0] Loop "loop"/attribute "body"/input[0] "i"']
    assert "passing it in" in diags[0].message


def test_any_size_and_symbolic_declarations_do_not_contradict():
    # Paddle writes -1; a symbol or an unknown dim says nothing against a number.
    for shape in ([-1, 8, -1, -1], ["N", 8, "H", "W"], [None, 8, 8, None]):
        ir = core.load_bytes(_conv_model(shape).SerializeToString())
        assert not _found(check(ir), "graph.declared-type-contradicts"), shape


def test_incomplete_value_info_is_reported():
    vi = [helper.make_tensor_value_info("c", TensorProto.UNDEFINED, [1, 8, 8, 8])]
    diags = check(_conv_model([1, 8, 8, 8], value_info=vi))
    assert [d.path for d in diags if d.code == "graph.elem-type-missing"] == ['graph/value_info "c"']


def test_an_int_attribute_set_to_a_string_is_a_diagnostic_not_a_traceback():
    ir = core.load_bytes(_conv_model([1, 8, 8, 8]).SerializeToString())
    node = ir.graph.nodes[0]
    node.attributes["pads"].value = ["one", 1, 1, 1]
    node.attributes["group"] = Attr("group", AttrType.INT, 1)
    node.attributes["group"].value = "two"
    diags = check(ir)
    bad = {d.path: d for d in diags if d.code == "attr.value-not-of-type"}
    assert set(bad) == {'graph/node[0] Conv "conv"/attribute "group"', 'graph/node[0] Conv "conv"/attribute "pads"'}
    assert "'two'" in bad['graph/node[0] Conv "conv"/attribute "group"'].message
    assert all(d.severity == ERROR for d in bad.values())
    # Nothing else is claimed about those attributes, and the model is as edited.
    assert not [d for d in diags if d.path in bad and d.code != "attr.value-not-of-type"]
    assert node.attributes["group"].value == "two"


@pytest.mark.slow
def test_no_contradictions_on_backend_and_shared_models():
    from backend_data import all_cases
    from shared_models import shared_model_dirs
    paths = [c.model_path for c in all_cases()] + [d / "model.onnx" for d in shared_model_dirs()]
    found = []
    for p in paths:
        try:
            ir = core.load(p)
        except Exception:  # noqa: BLE001 - unreadable cases are the loader's tests
            continue
        found += [f"{p}: {d}" for d in check(ir) if d.code == "graph.declared-type-contradicts"]
    assert not found, "\n".join(found[:10])
    assert len(paths) > 2000


def test_cli_reports_a_stale_output(tmp_path):
    path = tmp_path / "stale.onnx"
    path.write_bytes(_conv_model([1, 8, 16, 16]).SerializeToString())
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "check", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1, r.stderr
    assert 'graph/output[0] "y": error graph.declared-type-contradicts' in r.stdout
    diags = check_file(path, ir_model=core.load(path))
    assert _found(diags, "graph.declared-type-contradicts")
