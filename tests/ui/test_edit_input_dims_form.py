"""New dims typed for a model input in the value form reach the value_info
entries and outputs downstream (core's set_input_shape, as Set Dims of All
Inputs does): a batch of 2 typed into resnet18's input left its 92 value_info
entries at batch 1, and the saved file failed onnx's checker ("Inferred
shape and existing shape differ"). One undo step gives the file back."""
from __future__ import annotations

import onnx
from onnx import TensorProto, helper

from edit_helpers import open_editable, type_into


def _declared_model(path) -> str:
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("Neg", ["r"], ["y"], name="neg")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])],
                          value_info=[helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    onnx.save(m, str(path))
    return str(path)


def _dims(vi):
    return [d.dim_param or d.dim_value for d in vi.type.tensor_type.shape.dim]


def test_input_dims_from_the_value_form_rewrite_the_declarations_downstream(qtbot, window, tmp_path):
    path = _declared_model(tmp_path / "m.onnx")
    before = open(path, "rb").read()
    open_editable(qtbot, window, path)
    x = window.model.graph.get_value("x")
    window.properties.show_value(x)
    type_into(qtbot, window.properties.editor.dims_edit, "2, 3")
    assert list(x.type.shape) == [2, 3]
    assert window.document.undo_name == "Set shape of x"
    assert window.edit_actions.files.save()
    onnx.checker.check_model(path, full_check=True)
    saved = onnx.load(path)
    assert _dims(saved.graph.value_info[0]) == [2, 3] and _dims(saved.graph.output[0]) == [2, 3]
    window.edit_actions.undo()
    assert window.edit_actions.files.save()
    assert open(path, "rb").read() == before


def test_an_inner_value_keeps_the_plain_type_edit(qtbot, window, tmp_path):
    path = _declared_model(tmp_path / "m.onnx")
    open_editable(qtbot, window, path)
    r = window.model.graph.get_value("r")
    window.properties.show_value(r)
    type_into(qtbot, window.properties.editor.dims_edit, "N, 3")
    assert list(r.type.shape) == ["N", 3]
    assert window.document.undo_name != "Set shape of r"
