"""Headless commands: info and convert; bad input gives exit 2 and one line."""
import json
import subprocess
import sys

import pytest

from onnxstudio.resources import sample_path

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _cli(*args, timeout=120):
    return subprocess.run([sys.executable, "-m", "onnxstudio", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout)


def test_info_text_lists_the_essentials():
    r = _cli("info", sample_path())
    assert r.returncode == 0, r.stderr
    out = r.stdout
    for needle in ("IR version:   10", "ai.onnx 18", "onnxstudio.demo 1", "pixels: float[batch,3,32,32]",
                   "probs: float[batch,10]", "initializers: 6", "Conv", "onnxstudio.demo::Swish",
                   "/head/choose_activation", "then_branch", "purpose = demo"):
        assert needle in out, f"{needle!r} missing from:\n{out}"


def test_info_json():
    r = _cli("info", sample_path(), "--json")
    data = json.loads(r.stdout)
    assert data["ir_version"] == 10
    assert data["opset_imports"] == {"ai.onnx": 18, "onnxstudio.demo": 1}
    assert data["op_counts"]["Conv"] == 2
    assert data["nodes_in_main_graph"] == 10 and data["nodes"] == 14
    assert data["inputs"][0] == {"name": "pixels", "type": "float[batch,3,32,32]", "elem_type": "float",
                                 "shape": ["batch", 3, 32, 32]}
    assert [f["name"] for f in data["functions"]] == ["Swish"]
    assert data["initializer_bytes"] == sum([8 * 3 * 9 * 4, 8 * 4, 16 * 8 * 9 * 4, 16 * 4, 10 * 16 * 4, 10 * 4])


@pytest.mark.parametrize("content,reason", [
    (None, "no such file"),
    (b"", "the file is empty"),
    (b"\xff\xff\xff\xff garbage", "not an ONNX model"),
    (b"hello world, this is text", "not an ONNX model"),
])
@pytest.mark.parametrize("command", ["info", "convert"])
def test_unreadable_input_exits_2_with_one_line(tmp_path, content, reason, command):
    f = tmp_path / "bad.onnx"
    if content is not None:
        f.write_bytes(content)
    args = [command, f] + ([tmp_path / "out.onnx"] if command == "convert" else [])
    r = _cli(*args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(f) in lines[0] and reason in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out.onnx").exists()


def test_convert_round_trip_and_external_data(tmp_path):
    out = tmp_path / "out.onnx"
    r = _cli("convert", sample_path(), out, "--external-data", "weights.bin", "--size-threshold", "100")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "weights.bin").stat().st_size > 0
    info = json.loads(_cli("info", out, "--json").stdout)
    assert info["external_data"]["weights.bin"]["tensors"] == 3   # the three weights; the biases (< 100 B) stay inline
    back = tmp_path / "back.onnx"
    assert _cli("convert", out, back, "--inline").returncode == 0
    assert json.loads(_cli("info", back, "--json").stdout)["external_data"] == {}


def test_help_lists_the_commands():
    r = _cli("--help")
    assert r.returncode == 0
    for cmd in ("info", "convert"):
        assert cmd in r.stdout


def test_a_bug_of_ours_gives_exit_3_and_one_line(monkeypatch, capsys):
    """An exception nobody expected (here: planted in `info`) must not reach
    the user as a traceback; ONNXSTUDIO_DEBUG=1 asks for it."""
    from onnxstudio import cli
    from onnxstudio.commands import info

    def broken(args):
        raise KeyError("planted")

    monkeypatch.setattr(info, "run", broken)
    monkeypatch.delenv("ONNXSTUDIO_DEBUG", raising=False)
    assert cli.main(["info", str(sample_path())]) == 3
    err = capsys.readouterr().err
    assert err.startswith("onnxstudio info: internal error (KeyError: 'planted')") and err.count("\n") == 1
    monkeypatch.setenv("ONNXSTUDIO_DEBUG", "1")
    with pytest.raises(KeyError):
        cli.main(["info", str(sample_path())])


def _bare_env(**extra):
    """The environment of a machine with no display and no Qt platform chosen."""
    import os
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env.update(extra)
    return env


@pytest.mark.parametrize("argv,needle", [
    (["frobnicate"], "unknown command 'frobnicate'"),
    (["inf", "model.onnx"], "unknown command 'inf'; did you mean 'info' or 'infer'?"),
    (["chek"], "did you mean 'check'?"),
    (["missing_model.onnx"], "missing_model.onnx: no such file"),
])
def test_an_unknown_first_word_is_not_opened_in_the_app(argv, needle):
    # Without a display the app would hang: the timeout turns that into a failure.
    r = subprocess.run([sys.executable, "-m", "onnxstudio", *argv], capture_output=True, text=True,
                       timeout=60, env=_bare_env())
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and r.stderr.count("\n") == 1 and "usage:" not in r.stderr


def test_the_app_without_a_display_says_so():
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "--demo"], capture_output=True, text=True,
                       timeout=60, env=_bare_env())
    assert r.returncode == 2
    assert "no display found" in r.stderr and r.stderr.count("\n") == 1


def test_render_into_a_missing_folder_is_one_clean_line(tmp_path):
    r = _cli("render", sample_path(), "-o", tmp_path / "nonexistent_dir" / "x.svg")
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "QPainter" not in r.stderr, r.stderr
    assert "cannot write the image (no folder" in r.stderr


@pytest.mark.parametrize("command", ["check", "info", "run"])
def test_a_folder_is_called_a_folder(tmp_path, command):
    r = _cli(command, tmp_path)
    assert r.returncode == 2 and f"{tmp_path}: is a folder" in r.stderr, r.stderr


def test_info_counts_weights_held_in_constant_nodes(tmp_path):
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    w = numpy_helper.from_array(np.ones((64, 32), np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("Constant", [], ["w"], name="weight", value=w),
         helper.make_node("Constant", [], ["b"], name="bias", value_floats=[0.5] * 32),
         helper.make_node("MatMul", ["x", "w"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])])
    path = tmp_path / "constants.onnx"
    path.write_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())
    r = _cli("info", path)
    assert r.returncode == 0, r.stderr
    assert "constants:    2 Constant nodes (8.1 KB)" in r.stdout, r.stdout
    data = json.loads(_cli("info", path, "--json").stdout)
    assert data["constants"] == 2 and data["constant_bytes"] == 64 * 32 * 4 + 32 * 4
