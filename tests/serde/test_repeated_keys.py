"""A file that repeats a key the IR holds once (a node's attribute, a
function's attribute default, a metadata key, a function) or gives a tensor
attribute no tensor: the IR keeps what readers use, a save writes the file's
entries back, the app's checker names the damage, and an edit of the kept
entry decides the one value (undo brings the file's entries back)."""
from __future__ import annotations

import numpy as np
from onnx import AttributeProto, TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.document import Document
from onnxstudio.core.edits import SetAttribute
from onnxstudio.core.edits.model_edits import SetMetadata
from onnxstudio.core.ir import AttrType
from onnxstudio.core.proto import onnx_pb2 as pb

F = TensorProto.FLOAT


def _model():
    node = helper.make_node("LeakyRelu", ["x"], ["y"], name="act", alpha=0.1)
    node.attribute.append(helper.make_attribute("alpha", 0.3))          # the last is the one readers use
    const = helper.make_node("Constant", [], ["k"], name="k", value=numpy_helper.from_array(np.ones(2, np.float32)))
    const.attribute[0].ClearField("t")                                   # a tensor attribute without a tensor
    add = helper.make_node("Add", ["y", "k"], ["z"], name="add")
    graph = helper.make_graph([node, const, add], "g", [helper.make_tensor_value_info("x", F, [2])],
                              [helper.make_tensor_value_info("z", F, [2])])
    fn = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                              [helper.make_opsetid("", 17)])
    other = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Mul", ["a", "a"], ["b"])],
                                 [helper.make_opsetid("", 17)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              functions=[fn, other])
    model.metadata_props.add(key="k", value="first")
    model.metadata_props.add(key="k", value="second")
    return model


def _write(tmp_path):
    path = tmp_path / "repeats.onnx"
    path.write_bytes(_model().SerializeToString())
    return path


def _saved(model, tmp_path) -> pb.ModelProto:
    core.save(model, tmp_path / "saved.onnx")
    out = pb.ModelProto()
    out.ParseFromString((tmp_path / "saved.onnx").read_bytes())
    return out


def _findings(diagnostics) -> set:
    return {(d.code, d.path) for d in diagnostics}


DAMAGE = {
    ("attr.duplicate", 'graph/node[0] LeakyRelu "act"/attribute "alpha"'),
    ("attr.no-value", 'graph/node[1] Constant "k"/attribute "value"'),
    ("model.metadata-duplicate", 'model/metadata_props "k"'),
    ("function.duplicate", 'functions/"Twice"'),
}


def test_the_ir_keeps_what_readers_use(tmp_path):
    m = core.load(_write(tmp_path))
    assert m.graph.nodes[0].attr("alpha") == np.float32(0.3)
    assert m.metadata_props == {"k": "second"}
    assert [n.op_type for n in m.functions[("local", "Twice", "")].graph.nodes] == ["Add"]


def test_a_save_writes_the_files_entries_back(tmp_path):
    path = _write(tmp_path)
    saved = _saved(core.load(path), tmp_path)
    act = saved.graph.node[0]
    assert [(a.name, round(a.f, 3)) for a in act.attribute] == [("alpha", 0.1), ("alpha", 0.3)]
    assert not saved.graph.node[1].attribute[0].HasField("t")
    assert [(e.key, e.value) for e in saved.metadata_props] == [("k", "first"), ("k", "second")]
    assert [f.node[0].op_type for f in saved.functions] == ["Add", "Mul"]
    again = core.load(tmp_path / "saved.onnx")           # readers still get the same values
    assert again.graph.nodes[0].attr("alpha") == np.float32(0.3) and again.metadata_props == {"k": "second"}


def test_the_apps_checker_names_the_damage(tmp_path):
    path = _write(tmp_path)
    assert DAMAGE <= _findings(core.check.check(path))
    doc = Document.open(path)
    assert DAMAGE <= _findings(doc.diagnostics)


def test_editing_the_kept_entry_decides_the_value(tmp_path):
    doc = Document.open(_write(tmp_path))
    doc.apply(SetAttribute("act", "alpha", AttrType.FLOAT, 0.5))
    doc.apply(SetMetadata("k", "second"))       # the same text, set by the user: one entry from now on
    found = _findings(doc.diagnostics)
    assert ("attr.duplicate", 'graph/node[0] LeakyRelu "act"/attribute "alpha"') not in found
    assert ("model.metadata-duplicate", 'model/metadata_props "k"') not in found
    saved = _saved(doc.model, tmp_path)
    assert [a.name for a in saved.graph.node[0].attribute] == ["alpha"]
    assert [(e.key, e.value) for e in saved.metadata_props] == [("k", "second")]
    doc.undo()
    doc.undo()
    assert DAMAGE <= _findings(doc.diagnostics)
    saved = _saved(doc.model, tmp_path)
    assert [a.name for a in saved.graph.node[0].attribute] == ["alpha", "alpha"]
    assert len(saved.metadata_props) == 2


def test_a_clone_keeps_the_files_entries(tmp_path):
    clone = core.load(_write(tmp_path)).clone()
    saved = _saved(clone, tmp_path)
    assert [a.name for a in saved.graph.node[0].attribute] == ["alpha", "alpha"]
    assert len(saved.metadata_props) == 2 and len(saved.functions) == 2


def test_a_repeated_function_attribute_default(tmp_path):
    fn = helper.make_function("local", "Scaled", ["a"], ["b"],
                              [helper.make_node("Mul", ["a", "a"], ["b"])], [helper.make_opsetid("", 17)])
    for value in (1.0, 2.0):
        fn.attribute_proto.append(helper.make_attribute("scale", value))
    graph = helper.make_graph([helper.make_node("Scaled", ["x"], ["y"], domain="local")], "g",
                              [helper.make_tensor_value_info("x", F, [2])],
                              [helper.make_tensor_value_info("y", F, [2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                              functions=[fn])
    path = tmp_path / "fn.onnx"
    path.write_bytes(model.SerializeToString())
    m = core.load(path)
    assert m.functions[("local", "Scaled", "")].attribute_defaults["scale"].value == 2.0
    saved = _saved(m, tmp_path)
    assert [(a.name, a.f, a.type) for a in saved.functions[0].attribute_proto] == \
        [("scale", 1.0, AttributeProto.FLOAT), ("scale", 2.0, AttributeProto.FLOAT)]
    assert ("function.attribute-duplicate", 'functions/"Scaled"') in _findings(core.check.check(m))
