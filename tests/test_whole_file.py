"""core/whole_file.py: a file is replaced whole or not at all."""
import pytest

from onnxstudio.core.whole_file import whole_file


def test_the_new_contents_replace_the_file(tmp_path):
    path = tmp_path / "a.json"
    path.write_text("old")
    with whole_file(path, "w") as f:
        f.write("new ✓")
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert [p.name for p in tmp_path.iterdir()] == ["a.json"]


def test_an_error_while_writing_leaves_the_old_file_and_no_leftover(tmp_path):
    path = tmp_path / "a.npz"
    path.write_bytes(b"old")
    with pytest.raises(RuntimeError):
        with whole_file(path) as f:
            f.write(b"half of it")
            raise RuntimeError("disk full")
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["a.npz"]


def test_a_folder_that_cannot_be_written_is_an_oserror(tmp_path):
    with pytest.raises(OSError):
        with whole_file(tmp_path / "missing" / "a.json", "w") as f:
            f.write("x")
