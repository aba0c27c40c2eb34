"""A re-export to another opset (or IR version) is a difference: the same
nodes run other versions of their operators. `onnxstudio diff` called such
a pair "the same" and exited 0 while its --script held the
set_opset_import step; the Compare window listed nothing."""
import json

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.cli import main
from onnxstudio.core import Document, load, load_bytes, save
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import replay


def _relu(opset: int, ir_version: int = 8, extra_domain: bool = False):
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
                              [numpy_helper.from_array(np.ones(2, np.float32), "unused")])
    opsets = [helper.make_opsetid("", opset)] + ([helper.make_opsetid("com.microsoft", 1)] if extra_domain else [])
    proto = helper.make_model(graph, opset_imports=opsets, ir_version=ir_version)
    return load_bytes(proto.SerializeToString())


def test_another_opset_is_not_the_same_model(tmp_path, capsys):
    save(_relu(17), tmp_path / "a.onnx")
    save(_relu(18), tmp_path / "b.onnx")
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx")]) == 1
    out = capsys.readouterr().out
    assert "model:    opset ai.onnx 17 -> 18" in out
    assert "the models are the same" not in out
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--json"]) == 1
    j = json.loads(capsys.readouterr().out)
    assert j["equal"] is False
    assert j["model"] == [{"field": "opset_import", "domain": "", "a": 17, "b": 18}]


def test_ir_version_and_a_domain_only_one_side_imports():
    d = diff_models(_relu(17, 8), _relu(17, 9, extra_domain=True))
    assert not d.equal
    assert [c.text for c in d.model_fields] == ["opset com.microsoft none -> 1", "IR version 8 -> 9"]
    # Nothing else differs: the nodes, values and weights are one model's.
    assert not (d.changed or d.added or d.removed or d.weights_changed or d.renamed_values)


def test_same_opsets_stay_equal():
    d = diff_models(_relu(17), _relu(17))
    assert d.equal and d.model_fields == []


def test_the_script_of_the_reported_fields_gives_b():
    a, b = _relu(17, 8), _relu(18, 9, extra_domain=True)
    derived = derive_script(diff_models(a, b))
    assert derived.complete
    assert [s["kind"] for s in derived.script] == ["set_opset_import", "set_opset_import", "set_model_field"]
    doc = Document(a.clone())
    replay(doc, derived.script)
    assert diff_models(doc.model, b).equal


def test_compare_window_lists_and_summarises_the_opset(qtbot):
    from PySide6.QtWidgets import QLabel

    from onnxstudio.ui.diff.compare_window import CompareWindow
    win = CompareWindow(diff_models(_relu(17), _relu(18)), "a.onnx", "b.onnx")
    qtbot.addWidget(win)
    rows = win.differences.list
    assert [rows.item(i).text() for i in range(rows.count())] == ["opset import ai.onnx: 17 → 18"]
    assert win.differences.total == 1
    assert any("opset ai.onnx 17 -> 18" in label.text() for label in win.findChildren(QLabel))
    # Choosing the row shows the hint: there is no node to put side by side.
    win.differences.list.setCurrentRow(0)
    assert "opset" not in win.properties.toPlainText()


def test_loaded_files_keep_the_difference(tmp_path):
    save(_relu(17), tmp_path / "a.onnx")
    save(_relu(18), tmp_path / "b.onnx")
    assert not diff_models(load(tmp_path / "a.onnx"), load(tmp_path / "b.onnx")).equal
