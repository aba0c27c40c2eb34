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

from onnxstudio import core
from onnxstudio.cli import main
from onnxstudio.core.errors import SaveError

from external_models import saved_with_external_data


def test_a_copy_may_not_write_its_sources_data_file(tmp_path):
    source = saved_with_external_data(tmp_path, w2_size=1)
    before = (tmp_path / "model.onnx.data").read_bytes()
    with pytest.raises(SaveError, match="'model.onnx.data' is the one .* reads its weights from"):
        core.save(core.load(source), tmp_path / "copy.onnx", external_data="model.onnx.data",
                  size_threshold=2048)
    assert (tmp_path / "model.onnx.data").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.onnx", "model.onnx.data"]
    onnx.checker.check_model(str(source), full_check=True)


def test_convert_says_so_and_writes_nothing(tmp_path, capsys):
    source = saved_with_external_data(tmp_path, w2_size=1)
    before = (tmp_path / "model.onnx.data").read_bytes()
    code = main(["convert", str(source), str(tmp_path / "copy.onnx"), "--external-data", "model.onnx.data",
                 "--size-threshold", "2048"])
    assert code == 2
    assert "give another name" in capsys.readouterr().err
    assert (tmp_path / "model.onnx.data").read_bytes() == before
    assert not (tmp_path / "copy.onnx").exists()


def test_over_the_source_itself_its_data_file_is_rewritten(tmp_path):
    source = saved_with_external_data(tmp_path, w2_size=1)
    core.save(core.load(source), source, external_data="model.onnx.data", size_threshold=2048)
    got = core.load(source)
    np.testing.assert_array_equal(np.asarray(got.graph.initializers["w1"].const.numpy()), np.arange(1024))
    onnx.checker.check_model(str(source), full_check=True)
