"""A file named .npz or .npy that is not one: numpy tried it as a pickle,
refused it, and its words reached the Run dock ("This file contains pickled
(object) data. If you trust the file you can load it unsafely using the
`allow_pickle=` keyword argument"), advice to load an unknown file unsafely
(seen under Xvfb loading a damaged .npz with Load all inputs…)."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio.core.exec.errors import FeedError
from onnxstudio.core.exec.feeds import read_array_file


@pytest.mark.parametrize("suffix", [".npz", ".npy"])
@pytest.mark.parametrize("content", [b"not a numpy file at all", b"", b"\x80\x04K\x01."])   # the last: a pickle
def test_a_file_that_is_not_numpys_is_said_to_be_so(tmp_path, suffix, content):
    path = tmp_path / ("inputs" + suffix)
    path.write_bytes(content)
    with pytest.raises(FeedError) as caught:
        read_array_file(path, name="x")
    text = str(caught.value)
    assert f"is not a {suffix} file" in text and str(path) in text
    assert "pickle" not in text


def test_numpy_files_still_read_whatever_their_suffix(tmp_path):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.savez(tmp_path / "set.npz", x=a)
    np.save(tmp_path / "one.npy", a)
    (tmp_path / "one.npy").rename(tmp_path / "saved_as.npz")     # np.save's file under an .npz name
    np.testing.assert_array_equal(read_array_file(tmp_path / "set.npz")["x"], a)
    np.save(tmp_path / "plain.npy", a)
    np.testing.assert_array_equal(read_array_file(tmp_path / "plain.npy", name="x")["x"], a)
    with pytest.raises(FeedError) as caught:              # numpy's, but one array, not an archive of them
        read_array_file(tmp_path / "saved_as.npz")
    assert "holds one array as numpy's save writes it" in str(caught.value)
    assert "context manager" not in str(caught.value)


@pytest.mark.parametrize("name", ["missing", "missing.bin"])
def test_a_missing_file_of_any_suffix_is_said_to_be_missing(tmp_path, name):
    # Before: "missing: unsupported input file type ''", as if the file were there.
    with pytest.raises(FeedError, match="no such file"):
        read_array_file(tmp_path / name, name="x")


def test_an_unknown_suffix_of_a_file_that_is_there_names_the_types(tmp_path):
    (tmp_path / "x.bin").write_bytes(b"\0")
    with pytest.raises(FeedError, match=r"unsupported input file type '\.bin'; use \.npy, \.npz or \.pb"):
        read_array_file(tmp_path / "x.bin", name="x")
