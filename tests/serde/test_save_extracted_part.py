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
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.cli import main
from onnxstudio.core.edits import extract_model


def _saved(folder):
    """y = (x + w1) * w2, w1 and w2 (4 KB each) in folder/model.onnx.data."""
    folder.mkdir(parents=True, exist_ok=True)
    w1, w2 = np.arange(1024, dtype=np.float32), np.full(1024, 3, np.float32)
    g = helper.make_graph([helper.make_node("Add", ["x", "w1"], ["h"]), helper.make_node("Mul", ["h", "w2"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
                          initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.save_model(m, folder / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    return folder / "model.onnx"


def _run(path, x):
    from onnxstudio.core.exec import run
    return run(core.load(path), {"x": x})


def test_a_part_saved_beside_another_models_data_leaves_it_alone(tmp_path):
    source = _saved(tmp_path / "a")
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
    source = _saved(tmp_path / "a")
    out = tmp_path / "out"
    out.mkdir()
    assert main(["convert", str(source), str(out / "rt.onnx")]) == 0
    before = (out / "model.onnx.data").read_bytes()
    assert main(["extract", str(source), "-o", str(out / "part.onnx"), "--inputs", "x", "--outputs", "h"]) == 0
    assert (out / "model.onnx.data").read_bytes() == before
    assert main(["diff", str(source), str(out / "rt.onnx")]) == 0
    assert "the models are the same" in capsys.readouterr().out
