"""Text fields holding invalid UTF-8 (a damaged file; onnx and onnxruntime
accept such files): the IR holds str with U+FFFD, every command works, and
the checker reports the bytes where they are."""
from __future__ import annotations

import subprocess
import sys

import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core.check import check


def _damaged_model(tmp_path):
    """Names, producer, metadata, a dim_param and an attribute name, each
    with its last letter replaced by 0xff."""
    node = helper.make_node("LeakyRelu", ["XIN"], ["YOUT"], name="NAMEX", alpha=0.5)
    graph = helper.make_graph([node], "GRAPHX",
                              [helper.make_tensor_value_info("XIN", TensorProto.FLOAT, ["BATCHX", 2])],
                              [helper.make_tensor_value_info("YOUT", TensorProto.FLOAT, ["BATCHX", 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="PRODX")
    helper.set_model_props(model, {"KEYX": "VALX"})
    data = model.SerializeToString()
    for word in (b"NAMEX", b"XIN", b"YOUT", b"GRAPHX", b"PRODX", b"KEYX", b"VALX", b"BATCHX"):
        assert word in data
        data = data.replace(word, word[:-1] + b"\xff")
    path = tmp_path / "damaged.onnx"
    path.write_bytes(data)
    return path


def test_the_ir_holds_text_with_replacement_characters(tmp_path):
    m = core.load(_damaged_model(tmp_path))
    node = m.graph.nodes[0]
    assert node.name == "NAME\ufffd"
    assert [v.name for v in node.inputs] == ["XI\ufffd"] and [v.name for v in node.outputs] == ["YOU\ufffd"]
    assert m.graph.name == "GRAPH\ufffd" and m.producer_name == "PROD\ufffd"
    assert m.metadata_props == {"KEY\ufffd": "VAL\ufffd"}
    assert m.graph.inputs[0].type.shape == ("BATCH\ufffd", 2)
    saved = tmp_path / "saved.onnx"
    core.save(m, saved)
    again = core.load(saved)
    assert again.graph.nodes[0].name == "NAME\ufffd" and again.graph.outputs[0].name == "YOU\ufffd"
    assert not [d for d in check(saved) if str(d.severity) == "error"]


def test_the_checker_reports_the_damaged_text(tmp_path):
    found = {(d.code, d.path) for d in check(_damaged_model(tmp_path))}
    assert ("text.invalid-utf8", "model") in found
    assert ("text.invalid-utf8", "graph") in found


def _text_findings(diagnostics) -> list:
    return sorted((d.code, d.path, d.message) for d in diagnostics if d.code == "text.invalid-utf8")


def test_the_app_reports_it_as_the_file_check_does(tmp_path):
    """The app checks the IR, whose text holds U+FFFD: the damage is read
    from the source messages, in the file check's words, for as long as the
    model still holds that text."""
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import RenameValue, SetGraphField, SetModelField, SetNodeField
    path = _damaged_model(tmp_path)
    want = _text_findings(check(path))
    node = 'graph/node[0] LeakyRelu "NAME\ufffd"'
    assert [(p, m.split(";")[0]) for _, p, m in want] == [
        ("graph", '2 names are not valid UTF-8 (shown with U+FFFD: "XI\ufffd", "YOU\ufffd")'),
        ("graph", "not valid UTF-8: name"), (node, "not valid UTF-8: name"),
        ("model", "not valid UTF-8: producer_name, metadata key 'KEY\ufffd'")]
    assert _text_findings(check(core.load(path))) == want
    doc = Document.open(path)
    assert _text_findings(doc.diagnostics) == want

    def apply(edit):
        # The live checker, brought up to date after the edit, says what a fresh check says.
        doc.apply(edit)
        assert _text_findings(doc.diagnostics) == _text_findings(check(doc.model, use_inference=False))
    apply(SetModelField("producer_name", "tests"))
    model_says = [m for _, p, m in _text_findings(doc.diagnostics) if p == "model"]
    assert len(model_says) == 1 and "producer_name" not in model_says[0] and "metadata key" in model_says[0]
    apply(RenameValue("YOU\ufffd", "y_out"))
    graph = [m for _, p, m in _text_findings(doc.diagnostics) if p == "graph"]
    assert len(graph) == 2 and graph[0].startswith("1 name is not valid UTF-8") and graph[1] == want[1][2], graph
    apply(RenameValue("XI\ufffd", "x_in"))
    assert [p for _, p, _ in _text_findings(doc.diagnostics)] == ["graph", node, "model"]
    apply(SetNodeField("NAME\ufffd", "name", "leaky"))
    apply(SetGraphField("name", "fixed"))
    assert [p for _, p, _ in _text_findings(doc.diagnostics)] == ["model"]
    for _ in range(5):
        doc.undo()
    assert _text_findings(doc.diagnostics) == want


def test_a_damaged_op_type_is_told_beside_the_unknown_operator(tmp_path):
    """An op_type that is not UTF-8 names no operator: the node gets both
    findings, in the same words from the file and from the loaded model, and
    no message shows a bytes literal."""
    node = helper.make_node("Relu", ["x"], ["y"], name="act")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    path = tmp_path / "op.onnx"
    path.write_bytes(data.replace(b"Relu", b"Rel\xcc"))
    found = _verdict(check(path))
    where = 'graph/node[0] Rel\ufffd "act"'
    assert ("node.unknown-op", where, "'Rel\ufffd' is not an operator of 'ai.onnx'") in found
    assert ("text.invalid-utf8", where, "not valid UTF-8: op_type; the file is damaged (onnxstudio shows and "
            "saves these with U+FFFD)") in found
    assert not [m for _, _, m in found if "b'" in m or '\\x' in m]
    loaded = core.load(path)
    assert _verdict(check(loaded, use_inference=False)) == found
    from onnxstudio.core.document import Document
    from onnxstudio.core.edits import SetNodeField
    doc = Document.open(path)
    assert ("text.invalid-utf8", where) in {(c, p) for c, p, _ in _verdict(doc.diagnostics)}
    doc.apply(SetNodeField("act", "op_type", "Relu"))
    assert not [d for d in doc.diagnostics if d.code in ("text.invalid-utf8", "node.unknown-op")]


def _verdict(diagnostics) -> list:
    return sorted((d.code, d.path, d.message) for d in diagnostics)


@pytest.mark.slow
def test_every_command_works_on_it(tmp_path):
    path = _damaged_model(tmp_path)
    for args in (["info", path], ["info", path, "--json"], ["render", path, "-o", tmp_path / "g.svg"],
                 ["infer", path, "-o", tmp_path / "i.onnx"], ["convert", path, tmp_path / "c.onnx"],
                 ["run", path, "--random"]):
        r = subprocess.run([sys.executable, "-m", "onnxstudio", *map(str, args)], capture_output=True, text=True,
                           timeout=120)
        assert r.returncode == 0, (args, r.stderr)
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "check", str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "text.invalid-utf8" in r.stdout, r.stdout + r.stderr
