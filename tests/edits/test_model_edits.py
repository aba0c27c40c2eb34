"""Model fields, opset imports, metadata and graph fields: apply, look, undo
to the original bytes, redo."""
import pytest

from onnxstudio.core.edits import EditError, SetGraphField, SetMetadata, SetModelField, SetOpsetImport

from .models import chain, check_roundtrip, onnx_model

FN = (("function", "local", "Twice", ""),)


@pytest.mark.parametrize("field,value", [("ir_version", 9), ("producer_name", "me"), ("producer_version", "2"),
                                         ("domain", "org.example"), ("model_version", 7), ("doc_string", "hi")])
def test_model_fields(field, value):
    m = chain()

    def look(model, ch):
        assert getattr(onnx_model(model), field) == value and ch.model_fields == {field}
    check_roundtrip(m, SetModelField(field, value), look=look)


def test_model_field_refusals():
    m = chain()
    with pytest.raises(EditError, match="model ir_version must be an integer"):
        SetModelField("ir_version", "9").apply(m)
    with pytest.raises(EditError, match="no field 'colour'"):
        SetModelField("colour", "red").apply(m)


def test_opset_imports_change_add_remove_keep_their_order():
    m = chain()

    def look(model, ch):
        assert {o.domain: o.version for o in onnx_model(model).opset_import}[""] == 17
    check_roundtrip(m, SetOpsetImport("ai.onnx", 17), look=look)
    check_roundtrip(m, SetOpsetImport("com.microsoft", 1),
                    look=lambda mm, ch: mm.opset_imports["com.microsoft"] == 1 or None)
    check_roundtrip(m, SetOpsetImport("local", None),
                    look=lambda mm, ch: "local" not in mm.opset_imports or None)
    with pytest.raises(EditError, match="no opset import for domain 'nope'"):
        SetOpsetImport("nope", None).apply(m)
    with pytest.raises(EditError, match="at least 1"):
        SetOpsetImport("", 0).apply(m)


def test_an_opset_edit_resolves_a_domain_the_file_imports_twice():
    """A damaged file imports ai.onnx at 17 and again at 18 (readers take
    the first). Setting the version, even to the one it had, writes one
    import; undo gives the file's list back."""
    from onnxstudio import core
    from onnxstudio.core.document import Document
    proto = onnx_model(chain())
    proto.opset_import.add(domain="ai.onnx", version=19)
    doc = Document(core.load_bytes(proto.SerializeToString()))
    assert "model.opset-duplicate" in {d.code for d in doc.diagnostics}
    doc.apply(SetOpsetImport("", doc.model.opset_imports[""]))
    assert "model.opset-duplicate" not in {d.code for d in doc.diagnostics}
    assert [o.domain for o in onnx_model(doc.model).opset_import].count("ai.onnx") == 0
    doc.undo()
    assert "model.opset-duplicate" in {d.code for d in doc.diagnostics}
    assert core.to_bytes(doc.model) == proto.SerializeToString()


def test_function_opset_imports():
    m = chain()

    def look(model, ch):
        assert onnx_model(model).functions[0].opset_import[0].version == 17
        assert ch.functions == {("local", "Twice", "")}
    check_roundtrip(m, SetOpsetImport("", 17, FN), look=look)


def test_metadata_set_add_remove_keep_order():
    m = chain()

    def names(model):
        return [p.key for p in onnx_model(model).metadata_props]
    check_roundtrip(m, SetMetadata("author", "you"))
    check_roundtrip(m, SetMetadata("new", "1"), look=lambda mm, ch: names(mm) == ["author", "license", "new"] or None)
    check_roundtrip(m, SetMetadata("author", None), look=lambda mm, ch: names(mm)[0] != "author" or None)


def test_graph_fields_main_and_branch():
    m = chain()
    check_roundtrip(m, SetGraphField("name", "main"), look=lambda mm, ch: onnx_model(mm).graph.name == "main" or None)
    check_roundtrip(m, SetGraphField("doc_string", "then", (("node", "if", "then_branch"),)))
    with pytest.raises(EditError, match="no field 'colour'"):
        SetGraphField("colour", "x").apply(m)
