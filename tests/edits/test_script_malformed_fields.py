"""Hand-written scripts (JSON from anywhere) with a field of the wrong form:
a node reference of no known form, a graph path that is no path, a name
that is no string, a macro whose edits are no list. Each is refused naming
the step, the field and the form it takes; never a Python error's text and
never "internal error" (exit 3)."""
import json

import pytest

from onnxstudio.__main__ import main

from .test_script_report_wording import layernorm_file


@pytest.mark.parametrize("ref, shown", [(0, "not 0"), ({"id": 1}, "not {'id': 1}"), (["a"], "not ['a']"),
                                        ({"index": "2"}, "not {'index': '2'}")])
def test_a_reference_of_no_known_form_says_which_forms_there_are(tmp_path, capsys, ref, shown):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"kind": "set_attribute", "node": ref, "name": "epsilon", "type": 1,
                                   "value": 1e-05}]))
    out = tmp_path / "out.onnx"
    assert main(["edit", str(src), "-o", str(out), "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert f"{script}: step 1" in err and shown in err
    assert "field 'node' must be a node name (a string), {\"output\": a name it produces} or " \
        '{"index": its position}' in err
    assert "Error" not in err and "not iterable" not in err
    assert not out.exists()


def test_an_index_out_of_range_is_named_as_given(tmp_path, capsys):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"kind": "set_attribute", "node": {"index": 7}, "name": "epsilon", "type": 1,
                                   "value": 1e-05}]))
    assert main(["edit", str(src), "-o", str(tmp_path / "o.onnx"), "--script", str(script)]) == 2
    assert "no node at index 7" in capsys.readouterr().err


def _replay_error(tmp_path, capsys, step):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([step]))
    out = tmp_path / "out.onnx"
    code = main(["edit", str(src), "-o", str(out), "--script", str(script)])
    assert code == 2 and not out.exists()       # 3 would be "internal error"
    err = capsys.readouterr().err
    assert f"{script}: step 1" in err and "Error" not in err
    return err


@pytest.mark.parametrize("graph", [5, [1], "then_branch", [["node"]], [["elsewhere", "a", "b"]]])
def test_a_graph_path_of_the_wrong_form_is_refused_with_its_form(tmp_path, capsys, graph):
    err = _replay_error(tmp_path, capsys, {"kind": "set_attribute", "node": "/m/ln", "name": "epsilon",
                                           "type": 1, "value": 1e-05, "graph": graph})
    assert "field 'graph' must be a graph path" in err and '[["node", "If_0", "then_branch"]]' in err


@pytest.mark.parametrize("name, shown", [(["epsilon"], "a list"), ({"a": 1}, "an object"), (None, "null"),
                                         (3, "a number")])
def test_a_name_that_is_no_string_is_refused_as_such(tmp_path, capsys, name, shown):
    err = _replay_error(tmp_path, capsys, {"kind": "set_attribute", "node": "/m/ln", "name": name,
                                           "type": 1, "value": 1e-05})
    assert f"field 'name' must be a string, not {shown}" in err


def test_a_macro_whose_edits_are_no_list_is_refused(tmp_path, capsys):
    err = _replay_error(tmp_path, capsys, {"kind": "macro", "name": "m", "edits": 3})
    assert "field 'edits' must be a list of edits, not a number" in err


def test_a_function_body_path_without_overload_still_reads(tmp_path):
    from onnxstudio.core.edits.script import edit_from_json
    edit = edit_from_json({"kind": "set_attribute", "node": "n", "name": "alpha", "type": 1, "value": 1.0,
                           "graph": [["function", "local", "F"]]})
    assert edit.graph == (("function", "local", "F"),)


def test_an_edit_built_in_python_with_a_bad_reference_names_it(tmp_path):
    from onnxstudio.core import Document, edits
    from onnxstudio.core.edits import EditError
    doc = Document.open(layernorm_file(tmp_path / "m.onnx"))
    with pytest.raises(EditError, match=r"no node referred to as 5: a node is referred to by a node name"):
        doc.apply(edits.SetAttribute(5, "epsilon", 1, 1e-05))
