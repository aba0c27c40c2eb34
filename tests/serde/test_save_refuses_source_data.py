"""Saving a copy with `external_data` named after the file its source still
reads its weights from (`onnxstudio convert model.onnx copy.onnx
--external-data model.onnx.data --size-threshold 1000000`) rewrote that file
with the copy's layout: the source then read past the end of its data (QA
h37 on llama_extdata_dynamo_op23). It is refused, naming the file, and
nothing is written; over the source itself the save may still rewrite it."""
from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.cli import main
from onnxstudio.core.errors import SaveError


def _saved(folder):
    folder.mkdir(parents=True, exist_ok=True)
    w1, w2 = np.arange(1024, dtype=np.float32), np.full(1, 3, np.float32)
    g = helper.make_graph([helper.make_node("Add", ["x", "w1"], ["h"]), helper.make_node("Mul", ["h", "w2"], ["y"])],
                          "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1024])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1024])],
                          initializer=[numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(w2, "w2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.save_model(m, folder / "model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=0)
    return folder / "model.onnx"


def test_a_copy_may_not_write_its_sources_data_file(tmp_path):
    source = _saved(tmp_path)
    before = (tmp_path / "model.onnx.data").read_bytes()
    with pytest.raises(SaveError, match="'model.onnx.data' is the one .* reads its weights from"):
        core.save(core.load(source), tmp_path / "copy.onnx", external_data="model.onnx.data",
                  size_threshold=2048)
    assert (tmp_path / "model.onnx.data").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "model.onnx.data"]
    onnx.checker.check_model(str(source), full_check=True)


def test_convert_says_so_and_writes_nothing(tmp_path, capsys):
    source = _saved(tmp_path)
    before = (tmp_path / "model.onnx.data").read_bytes()
    code = main(["convert", str(source), str(tmp_path / "copy.onnx"), "--external-data", "model.onnx.data",
                 "--size-threshold", "2048"])
    assert code == 2
    assert "give another name" in capsys.readouterr().err
    assert (tmp_path / "model.onnx.data").read_bytes() == before
    assert not (tmp_path / "copy.onnx").exists()


def test_over_the_source_itself_its_data_file_is_rewritten(tmp_path):
    source = _saved(tmp_path)
    core.save(core.load(source), source, external_data="model.onnx.data", size_threshold=2048)
    got = core.load(source)
    np.testing.assert_array_equal(np.asarray(got.graph.initializers["w1"].const.numpy()), np.arange(1024))
    onnx.checker.check_model(str(source), full_check=True)
