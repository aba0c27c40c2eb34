"""An edit script derived from a diff (core/diff/to_script.py, `onnxstudio
diff --script`): replayed on A it gives B, on real models; what no edit
expresses is listed, never dropped; the file is written all or nothing."""
import json

import pytest
from onnx import TensorProto, helper

from onnxstudio.cli import main
from onnxstudio.core import Document, load, load_bytes, save
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.to_script import derive_script, write_script
from onnxstudio.core.edits import replay
from shared_models import SHARED_MODELS

from .models import edited_bert, folded_ppocr, rename_everything, with_bodies

BERT = SHARED_MODELS / "bert_small" / "model.onnx"


def _replayed_equals(a, b, script) -> bool:
    doc = Document(a.clone())
    replay(doc, script)
    return diff_models(doc.model, b).equal


@pytest.mark.slow
def test_cli_script_replayed_with_edit_gives_b(tmp_path, capsys):
    """The acceptance test: five known edits (attribute, bypass, insert on an
    edge, weight, input shape) make B; the script derived from diff(A, B),
    replayed on A by `onnxstudio edit`, is B again."""
    a, b, touched = edited_bert(BERT)
    save(a, tmp_path / "a.onnx")
    save(b, tmp_path / "b.onnx")
    assert main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--script",
                 str(tmp_path / "fix.json")]) == 1
    out = capsys.readouterr().out
    assert "written to" in out and "not expressed" not in out
    script = json.loads((tmp_path / "fix.json").read_text())
    kinds = [s["kind"] for s in script]
    assert "set_attribute" in kinds and "set_initializer" in kinds and "add_node" in kinds
    assert "remove_node" in kinds and {"node": touched["tanh"], "graph": [], "kind": "remove_node"} in script
    assert any(s["kind"] == "macro" and s["name"] == "Set shape of input_ids" for s in script)
    assert "$array" not in json.dumps([s for s in script if s["kind"] != "set_initializer"])
    assert main(["edit", str(tmp_path / "a.onnx"), "-o", str(tmp_path / "r.onnx"), "--script",
                 str(tmp_path / "fix.json")]) == 0
    capsys.readouterr()
    assert main(["diff", str(tmp_path / "r.onnx"), str(tmp_path / "b.onnx")]) == 0
    assert "the models are the same" in capsys.readouterr().out


def test_renamed_model_gives_renames_only():
    a, b = load(BERT), rename_everything(load(BERT))
    derived = derive_script(diff_models(a, b))
    assert derived.complete
    assert {s["kind"] for s in derived.script} == {"rename_value", "set_node_field"}
    assert _replayed_equals(a, b, derived.script)


def test_a_fold_is_expressed_as_its_edits():
    path = SHARED_MODELS / "ppocr_v4_det" / "model.onnx"
    a, b, conv, bn = folded_ppocr(path)
    derived = derive_script(diff_models(a, b))
    assert derived.complete
    assert {"kind": "remove_node", "node": bn, "graph": []} in derived.script
    assert _replayed_equals(a, b, derived.script)


def test_bodies_are_edited_inside():
    a, b = with_bodies(0.1), with_bodies(0.3)
    [step] = derive_script(diff_models(a, b)).script
    assert step["kind"] == "set_attribute" and step["name"] == "alpha" and step["node"] == "leaky"
    assert step["graph"] == [["node", "choose", "then_branch"]]
    assert _replayed_equals(a, b, [step])


def _dropout(outputs):
    graph = helper.make_graph([helper.make_node("Dropout", ["x"], outputs, name="drop")], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def test_what_no_edit_expresses_is_listed():
    a, b = _dropout(["y", "mask"]), _dropout(["y"])
    derived = derive_script(diff_models(a, b))
    assert not derived.complete
    assert any("drop" in line and "outputs" in line for line in derived.not_expressed)


def test_cli_lists_what_is_not_expressed_and_keeps_an_old_file_on_failure(tmp_path, capsys):
    a, b = _dropout(["y", "mask"]), _dropout(["y"])
    save(a, tmp_path / "a.onnx")
    save(b, tmp_path / "b.onnx")
    main(["diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"), "--json", "--script",
          str(tmp_path / "s.json")])
    out, err = capsys.readouterr()
    json.loads(out)                      # the JSON on stdout stays one object
    assert "not expressed as edits" in err and "drop" in err
    old = tmp_path / "old.json"
    old.write_text("[]")
    derived = derive_script(diff_models(a, b))
    derived.script.append({"kind": "x", "bad": object()})     # cannot be written as JSON
    with pytest.raises(TypeError):
        write_script(derived, old)
    assert old.read_text() == "[]" and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_swapped_names_and_an_opset_import_replay():
    from onnxstudio.core.edits import SetOpsetImport

    from .models import fused_pair
    a, _ = fused_pair()
    b, _ = fused_pair()
    g = b.graph
    g.rename_value(g.get_value("mm"), "tmp")
    g.rename_value(g.get_value("sum"), "mm")
    g.rename_value(g.get_value("tmp"), "sum")
    SetOpsetImport("", 18).apply(b)
    derived = derive_script(diff_models(a, b))
    assert derived.complete and derived.script[0] == {"kind": "set_opset_import", "domain": "", "version": 18,
                                                      "graph": [], "position": None, "listed": None}
    assert _replayed_equals(a, b, derived.script)
    doc = Document(a.clone())
    replay(doc, derived.script)
    assert doc.model.opset_imports == {"": 18}
