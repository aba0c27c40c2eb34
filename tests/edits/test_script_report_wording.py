"""The replay report names the node (op and name) and the value each step
sets, says "already so" for a step that sets what the model holds (and then
adds no undo step), in the same words for the app and `onnxstudio edit`."""
import json

from onnxstudio import core
from onnxstudio.__main__ import main
from onnxstudio.core import Document
from onnxstudio.core.edits import replay_report

EPS = [{"kind": "set_attribute", "node": "/m/ln", "name": "epsilon", "type": 1, "value": 1e-05}]


def layernorm_file(path):
    from onnx import TensorProto, helper, save
    ln = helper.make_node("LayerNormalization", ["x", "g", "b"], ["y"], name="/m/ln", epsilon=0.5)
    graph = helper.make_graph([ln], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
                              [helper.make_tensor("g", TensorProto.FLOAT, [4], [1.0] * 4),
                               helper.make_tensor("b", TensorProto.FLOAT, [4], [0.0] * 4)])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    return path


def test_each_line_names_the_node_and_the_value(tmp_path):
    doc = Document.open(layernorm_file(tmp_path / "m.onnx"))
    lines = replay_report(doc, json.dumps(EPS))
    assert lines == ['step 1: Set attribute epsilon of LayerNormalization "/m/ln" to 1e-05']
    assert lines.changed == 1 and doc.can_undo


def test_replaying_again_says_already_so_and_adds_no_undo_step(tmp_path):
    doc = Document.open(layernorm_file(tmp_path / "m.onnx"))
    replay_report(doc, json.dumps(EPS))
    steps = len(doc.steps)
    lines = replay_report(doc, json.dumps(EPS))
    assert lines == ['step 1: already so: Set attribute epsilon of LayerNormalization "/m/ln" to 1e-05; '
                     'nothing to undo']
    assert lines.changed == 0 and len(doc.steps) == steps


def test_a_mixed_script_applies_only_the_changing_steps(tmp_path):
    doc = Document.open(layernorm_file(tmp_path / "m.onnx"))
    script = [{"kind": "set_attribute", "node": "/m/ln", "name": "epsilon", "type": 1, "value": 0.5},
              {"kind": "set_attribute", "node": "/m/ln", "name": "axis", "type": 2, "value": -1}]
    lines = replay_report(doc, json.dumps(script))
    assert lines[0].startswith("step 1: already so: Set attribute epsilon") and lines.changed == 1
    assert lines[1] == 'step 2: Set attribute axis of LayerNormalization "/m/ln" to -1'


def test_the_cli_prints_the_same_lines(tmp_path, capsys):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "eps.json"
    script.write_text(json.dumps(EPS))
    assert main(["edit", str(src), "-o", str(tmp_path / "a.onnx"), "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert '  step 1: Set attribute epsilon of LayerNormalization "/m/ln" to 1e-05\n' in out
    assert main(["edit", str(tmp_path / "a.onnx"), "-o", str(tmp_path / "b.onnx"), "--script", str(script)]) == 0
    out = capsys.readouterr().out
    assert "step 1: already so: Set attribute epsilon" in out and "(1 already so: nothing changed by them)" in out
    assert core.to_bytes(core.load(tmp_path / "b.onnx")) == core.to_bytes(core.load(tmp_path / "a.onnx"))
