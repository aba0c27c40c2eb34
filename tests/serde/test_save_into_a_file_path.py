"""Saving where a file stands in for a folder says so, naming it; the
message was "cannot write (File exists)" (QA h42, Save As in the app)."""
import pytest

from onnxstudio import core
from onnxstudio.core.edits import SetMetadata

from external_models import saved_with_external_data


@pytest.mark.parametrize("below", ["copy.onnx", "deeper/copy.onnx"])
def test_a_file_where_the_folder_should_be_is_named(tmp_path, below):
    path = saved_with_external_data(tmp_path / "m")
    doc = core.Document.open(path)
    doc.apply(SetMetadata("k", "v"))
    in_the_way = tmp_path / "not_a_folder"
    in_the_way.write_text("x")
    with pytest.raises(core.SaveError, match=f"{in_the_way} is a file, not a folder"):
        doc.save(in_the_way / below)
    assert in_the_way.read_text() == "x" and doc.dirty
