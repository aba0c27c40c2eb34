"""A document read from a damaged file (invalid UTF-8) and saved: the file
then holds U+FFFD, so its checker no longer reports the damage, whether its
analysis ran before the save, is built after it, or was built elsewhere
before it and adopted after (the app's open)."""
from __future__ import annotations

from onnx import TensorProto, helper

from onnxstudio.core.analysis import Analysis
from onnxstudio.core.check import check
from onnxstudio.core.document import Document


def _damaged(path):
    node = helper.make_node("Relu", ["x"], ["y"], name="act")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    path.write_bytes(data.replace(b'"act', b'"a\xcct').replace(b"\x03act", b"\x03a\xcct"))
    return path


def _codes(diagnostics) -> set:
    return {d.code for d in diagnostics}


def test_analysis_before_the_save(tmp_path):
    path = _damaged(tmp_path / "m.onnx")
    doc = Document.open(path)
    assert _codes(doc.diagnostics) == _codes(check(path)) == {"text.invalid-utf8"}
    doc.save()
    assert _codes(check(path)) == set()
    assert _codes(doc.diagnostics) == set()


def test_analysis_built_after_the_save(tmp_path):
    path = _damaged(tmp_path / "m.onnx")
    doc = Document.open(path)
    doc.save(tmp_path / "copy.onnx")
    assert _codes(doc.diagnostics) == set()


def test_analysis_built_before_and_adopted_after_the_save(tmp_path):
    path = _damaged(tmp_path / "m.onnx")
    doc = Document.open(path)
    early = Analysis(doc.model)
    doc.save()
    assert doc.seed_analysis(early, doc.revision)
    assert _codes(doc.diagnostics) == set()
