"""A script's node reference of no known form (an int, an object with other
keys: scripts are JSON written by hand or by other tools) is refused with
the forms a reference takes, naming the step; no Python error text."""
import json

import pytest

from onnxstudio.__main__ import main

from .test_script_report_wording import layernorm_file


@pytest.mark.parametrize("ref, shown", [(0, "referred to as 0"), ({"id": 1}, "referred to as {'id': 1}"),
                                        (["a"], "referred to as ['a']")])
def test_a_reference_of_no_known_form_says_which_forms_there_are(tmp_path, capsys, ref, shown):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"kind": "set_attribute", "node": ref, "name": "epsilon", "type": 1,
                                   "value": 1e-05}]))
    out = tmp_path / "out.onnx"
    assert main(["edit", str(src), "-o", str(out), "--script", str(script)]) == 2
    err = capsys.readouterr().err
    assert f"{script}: step 1" in err and shown in err
    assert 'its name (a string), {"output": a name it produces} or {"index": its position}' in err
    assert "Error" not in err and "not iterable" not in err
    assert not out.exists()


def test_an_index_out_of_range_is_named_as_given(tmp_path, capsys):
    src = layernorm_file(tmp_path / "m.onnx")
    script = tmp_path / "s.json"
    script.write_text(json.dumps([{"kind": "set_attribute", "node": {"index": 7}, "name": "epsilon", "type": 1,
                                   "value": 1e-05}]))
    assert main(["edit", str(src), "-o", str(tmp_path / "o.onnx"), "--script", str(script)]) == 2
    assert "no node at index 7" in capsys.readouterr().err
