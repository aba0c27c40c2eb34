"""Tests write only under temporary folders: every per-user folder the app
and the CLI use points into the test root, and the shared models stay as
they were (isolation.GUARD, checked after every test by conftest.py)."""
import os
import pathlib

import isolation
from shared_models import SHARED_MODELS
from shared_models_guard import SharedModelsGuard


def _inside_test_root(path) -> bool:
    root = pathlib.Path(isolation.TEST_ROOT).resolve()
    return pathlib.Path(path).resolve().is_relative_to(root)


def test_layout_cache_recovery_and_settings_live_in_the_test_root():
    from onnxstudio.core.layout.cache import default_cache_dir
    from onnxstudio.core.recovery import recovery_dir
    assert _inside_test_root(default_cache_dir())
    assert _inside_test_root(recovery_dir())
    assert _inside_test_root(os.environ["ONNXSTUDIO_SETTINGS"])
    assert _inside_test_root(pathlib.Path.home())
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        assert _inside_test_root(os.environ[var]), var


def test_hypothesis_keeps_its_files_in_the_test_root():
    """Hypothesis writes a cache of constants even without an example
    database: into the test root, never .hypothesis/ in the checkout."""
    from hypothesis import given, strategies as st
    from hypothesis.configuration import storage_directory

    @given(st.integers(0, 3))
    def draw(n):
        assert 0 <= n <= 3
    draw()
    assert _inside_test_root(storage_directory("constants", intent_to_write=False).path)


def test_default_settings_file_is_in_the_test_root():
    from onnxstudio.ui.settings import Settings
    settings = Settings()
    assert _inside_test_root(settings.q.fileName())


def test_guard_notices_a_rewrite_a_replacement_and_a_new_file(tmp_path):
    folder = tmp_path / "models" / "m"
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(b"abc")
    (folder / "inputs.npz").write_bytes(b"xyz")
    guard = SharedModelsGuard(tmp_path / "models")
    assert guard.changes() == []

    before = os.stat(folder / "model.onnx").st_mtime_ns
    (folder / "model.onnx").write_bytes(b"abc")            # same bytes, new mtime
    # A later time set outright: a file system's coarse clock can give a rewrite
    # soon after the same time (a 10 ms sleep here only made a new one likely).
    os.utime(folder / "model.onnx", ns=(before + 10**9,) * 2)
    replacement = tmp_path / "beside"
    replacement.write_bytes(b"xyz")
    os.utime(replacement, ns=(os.stat(folder / "inputs.npz").st_mtime_ns,) * 2)
    os.replace(replacement, folder / "inputs.npz")          # an atomic save: same size and time
    (folder / "extra.onnx").write_bytes(b"")
    assert guard.changes() == ["m/extra.onnx", "m/inputs.npz", "m/model.onnx"]
    guard.rebase()
    assert guard.changes() == []


def test_the_shared_models_are_unchanged_so_far():
    assert SHARED_MODELS.is_dir(), SHARED_MODELS
    assert isolation.GUARD.before, "the guard saw no shared model files"
    assert isolation.GUARD.changes() == []

