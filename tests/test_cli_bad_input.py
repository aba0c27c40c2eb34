"""Options with impossible values or names the model does not have are bad
input: exit 2, one line naming the option and the value (with the closest
names the model has), and nothing written. (`run`'s own cases are in
tests/exec/test_run_cli.py.)"""
import struct
import subprocess
import sys

import onnx
import pytest

from onnxstudio.cli import main
from onnxstudio.resources import sample_path

from edits.models import chain_model

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line_exit_2(code, err, *needles):
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err


@pytest.fixture
def chain_file(tmp_path):
    p = tmp_path / "m.onnx"
    p.write_bytes(chain_model())
    return p


@pytest.mark.parametrize("scale", ["0", "-1", "nan", "inf", "1000"])
@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_render_refuses_a_scale_no_picture_is_drawn_at(tmp_path, capsys, scale, suffix):
    out = tmp_path / f"g{suffix}"
    code, _, err = _cli(capsys, "render", sample_path(), "-o", out, "--scale", scale)
    _one_line_exit_2(code, err, f"--scale {float(scale):g}", "above 0 and at most 16")
    assert not out.exists()


def test_render_draws_at_a_small_scale(tmp_path):
    out = tmp_path / "g.png"
    r = subprocess.run([sys.executable, "-m", "onnxstudio", "render", str(sample_path()), "-o", str(out),
                        "--scale", "0.5", "--depth", "0"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    width, height = struct.unpack(">II", out.read_bytes()[16:24])      # the PNG's IHDR
    assert width > 20 and height > 20


def test_rename_refuses_a_value_the_model_lacks_twice_or_to_itself(chain_file, tmp_path, capsys):
    out = tmp_path / "r.onnx"
    code, _, err = _cli(capsys, "rename", chain_file, "-o", out, "--value", "a_ot=hidden")
    _one_line_exit_2(code, err, "--value 'a_ot': no value of that name", "did you mean 'a_out'")
    code, _, err = _cli(capsys, "rename", chain_file, "-o", out, "--value", "x=p", "--value", "x=q")
    _one_line_exit_2(code, err, "--value x=q: 'x' is renamed to 'p' by an earlier --value")
    code, _, err = _cli(capsys, "rename", chain_file, "-o", out, "--value", "x=x")
    _one_line_exit_2(code, err, "--value x=x: the new name is the old one")
    assert not out.exists()
    # Renaming in turn still works.
    code, _, err = _cli(capsys, "rename", chain_file, "-o", out, "--value", "x=p", "--value", "p=q")
    assert code == 0, err
    assert onnx.load(out).graph.input[0].name == "q"


@pytest.mark.parametrize("option,given,needles", [
    ("--inputs", "nope", ["--inputs 'nope': no value of that name"]),
    ("--outputs", "a_ou", ["--outputs 'a_ou': no value of that name", "did you mean 'a_out'"]),
])
def test_extract_names_the_option_of_an_unknown_value(chain_file, tmp_path, capsys, option, given, needles):
    out = tmp_path / "part.onnx"
    names = {"--inputs": "x", "--outputs": "a_out", option: given}
    code, _, err = _cli(capsys, "extract", chain_file, "-o", out, "--inputs", names["--inputs"],
                        "--outputs", names["--outputs"])
    _one_line_exit_2(code, err, *needles)
    assert not out.exists()


@pytest.mark.parametrize("name", ["", "  "])
def test_convert_refuses_an_empty_external_data_name(tmp_path, capsys, name):
    out = tmp_path / "c.onnx"
    code, _, err = _cli(capsys, "convert", sample_path(), out, f"--external-data={name}")
    _one_line_exit_2(code, err, "--external-data: give the name of the data file")
    assert not out.exists()



@pytest.mark.parametrize("data_name", ["out.onnx", "in.onnx", "./in.onnx"])
def test_convert_refuses_external_data_over_a_model_file(tmp_path, capsys, data_name):
    """The data file named as the model being written, or as the model being
    read: the weights would overwrite a model file (the source was lost)."""
    src, out = tmp_path / "in.onnx", tmp_path / "out.onnx"
    src.write_bytes(sample_path().read_bytes())
    before = src.read_bytes()
    code, _, err = _cli(capsys, "convert", src, out, "--external-data", data_name, "--size-threshold", "10")
    _one_line_exit_2(code, err, f"external data file {data_name!r} is the model file", "a name of its own")
    assert src.read_bytes() == before and not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["in.onnx"]       # no temporary files left


def test_check_refuses_a_path_that_is_no_regular_file(tmp_path, capsys):
    """A FIFO (or /dev/null) is there but is no file: check said 'no such
    file'; reading it as a model would give an empty one (or block)."""
    import os
    fifo = tmp_path / "pipe.onnx"
    os.mkfifo(fifo)
    assert main(["check", str(fifo)]) == 2
    err = capsys.readouterr().err
    assert f"{fifo}: not a regular file" in err and "no such file" not in err
    assert main(["check", str(tmp_path / "missing.onnx")]) == 2
    assert "missing.onnx: no such file" in capsys.readouterr().err
