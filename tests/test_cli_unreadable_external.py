"""The commands on a model whose weight `w` refers to ../secret.bin, outside
its folder: `info` lists it as UNREADABLE with the reason, `run` refuses
naming it (exit 2, one line), `convert` beside the file keeps the reference
as read and `convert` anywhere else refuses before writing."""
from __future__ import annotations

import json

import onnx

from onnxstudio.cli import main

from unreadable_models import weight_outside

REASON = "tensor 'w': external data location '../secret.bin' leaves the model's folder"


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_info_lists_it_as_unreadable(tmp_path, capsys):
    path = weight_outside(tmp_path)
    code, out, err = _cli(capsys, "info", path)
    assert code == 0, err
    line = next(x for x in out.splitlines() if "UNREADABLE" in x)
    assert REASON in line
    code, out, _ = _cli(capsys, "info", path, "--json")
    assert [REASON in m for m in json.loads(out)["unreadable_data"]] == [True]


def test_run_refuses_naming_it(tmp_path, capsys):
    code, out, err = _cli(capsys, "run", weight_outside(tmp_path), "--random")
    assert code == 2 and len(err.strip().splitlines()) == 1 and REASON in err, err
    assert "Traceback" not in err


def test_convert_beside_keeps_it_and_elsewhere_refuses(tmp_path, capsys):
    path = weight_outside(tmp_path)
    code, _, err = _cli(capsys, "convert", path, path.parent / "copy.onnx")
    assert code == 0, err
    written = onnx.load(path.parent / "copy.onnx", load_external_data=False).graph.initializer[0]
    assert written.SerializeToString() == onnx.load(path, load_external_data=False).graph.initializer[0] \
        .SerializeToString()
    for target, extra in ((tmp_path / "copy.onnx", []), (path.parent / "inline.onnx", ["--inline"])):
        code, _, err = _cli(capsys, "convert", path, target, *extra)
        assert code == 2 and REASON in err and "nothing was written" in err, err
        assert not target.exists()
