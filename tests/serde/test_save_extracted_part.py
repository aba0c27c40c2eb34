"""A part cut from a model with external data (`extract_model`, `onnxstudio
extract`) is a new model with no file of its own, and the save skipped the
check that keeps another model's data file: extracted into a folder that
holds a copy of the model (model.onnx reading model.onnx.data), the part's
weights were written over that copy's data file, which then read past its end
(QA h37: convert, then extract, into one output folder, on the llama
exports)."""
from __future__ import annotations

import numpy as np
import onnx

from onnxstudio import core
from onnxstudio.cli import main
from onnxstudio.core.edits import extract_model

from external_models import saved_with_external_data


def _run(path, x):
    from onnxstudio.core.exec import run
    return run(core.load(path), {"x": x})


def test_a_part_saved_beside_another_models_data_leaves_it_alone(tmp_path):
    source = saved_with_external_data(tmp_path / "a")
    out = tmp_path / "out"
    out.mkdir()
    core.save(core.load(source), out / "copy.onnx")      # out/copy.onnx reads out/model.onnx.data
    assert (out / "model.onnx.data").is_file()
    before = (out / "model.onnx.data").read_bytes()
    core.save(extract_model(core.load(source), ["x"], ["h"]), out / "part.onnx")
    assert (out / "model.onnx.data").read_bytes() == before
    x = np.ones(1024, np.float32)
    np.testing.assert_array_equal(_run(out / "copy.onnx", x)["y"], (x + np.arange(1024)) * 3)
    np.testing.assert_array_equal(_run(out / "part.onnx", x)["h"], x + np.arange(1024))
    onnx.checker.check_model(str(out / "part.onnx"), full_check=True)


def test_extract_command_after_convert_into_one_folder(tmp_path, capsys):
    source = saved_with_external_data(tmp_path / "a")
    out = tmp_path / "out"
    out.mkdir()
    assert main(["convert", str(source), str(out / "rt.onnx")]) == 0
    before = (out / "model.onnx.data").read_bytes()
    assert main(["extract", str(source), "-o", str(out / "part.onnx"), "--inputs", "x", "--outputs", "h"]) == 0
    assert (out / "model.onnx.data").read_bytes() == before
    assert main(["diff", str(source), str(out / "rt.onnx")]) == 0
    assert "the models are the same" in capsys.readouterr().out
