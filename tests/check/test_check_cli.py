"""`onnxstudio check`: output lines, --json, --severity and exit codes."""
from __future__ import annotations

import json

from check_bases import load_base
from onnxstudio.cli import main


def _write(tmp_path, model, name="m.onnx"):
    path = tmp_path / name
    path.write_bytes(model.SerializeToString())
    return path


def test_clean_model_exits_0(tmp_path, capsys):
    path = _write(tmp_path, load_base("convnet"))
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().out == ""


def test_errors_exit_1_with_one_line_each(tmp_path, capsys):
    m = load_base("convnet")
    m.graph.node[1].input[0] = "missing"
    m.graph.node[0].attribute[1].type = 3    # pads: type STRING, value in ints
    path = _write(tmp_path, m)
    assert main(["check", str(path)]) == 1
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert captured.err.strip() == "m.onnx: 3 errors, 0 warnings, 0 infos"
    assert 'graph/node[1] Relu "relu1"/input[0] "missing": error graph.undefined-input: ' in "\n".join(lines)
    assert any(line.startswith('graph/node[0] Conv "conv1"/attribute "pads": error attr.type-field-mismatch: ')
               for line in lines)
    assert all(": error " in line or ": warning " in line for line in lines)


def test_json_and_severity_filter(tmp_path, capsys):
    m = load_base("convnet")
    m.graph.node[2].output[0] = "p/with.dots"         # not an identifier -> info
    m.graph.node[3].input[0] = "p/with.dots"
    path = _write(tmp_path, m)
    assert main(["check", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []   # default shows warnings and errors only
    assert main(["check", str(path), "--json", "--severity", "info"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert [d["code"] for d in items] == ["name.not-identifier"]
    assert set(items[0]) == {"severity", "code", "path", "message"} and items[0]["severity"] == "info"
    assert main(["check", str(path)]) == 0
    assert capsys.readouterr().err.strip() == "m.onnx: 0 errors, 0 warnings, 1 info (1 below --severity not shown)"


def test_unreadable_file_exits_2(tmp_path, capsys):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\xff\xff\xff not protobuf")
    assert main(["check", str(bad)]) == 2
    assert "bad.onnx" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "absent.onnx")]) == 2


def test_package_is_callable_as_the_issue_names_it(tmp_path):
    from onnxstudio.core import check as check_pkg
    path = _write(tmp_path, load_base("convnet"))
    assert check_pkg(path) == check_pkg.check(path) == []
    assert check_pkg.CheckSession is not None
