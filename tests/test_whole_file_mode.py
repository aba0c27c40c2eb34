"""Files written all-or-nothing (a run's inputs and values as .npz, the
diff's edit scripts) came out 0600, the temporary file's mode, where a model save gives
the usual 0666 & ~umask: a colleague in the same group could not read the
inputs saved for them. They now keep the replaced file's permissions, or
get a new file's usual ones."""
from __future__ import annotations

import os
import stat

from onnxstudio.core.whole_file import whole_file


def _mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_file_gets_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        path = tmp_path / "values.npz"
        with whole_file(path) as f:
            f.write(b"x")
        assert _mode(path) == 0o644
    finally:
        os.umask(old)


def test_a_replaced_file_keeps_its_mode(tmp_path):
    path = tmp_path / "script.json"
    path.write_text("{}")
    os.chmod(path, 0o640)
    with whole_file(path, "w") as f:
        f.write("[]")
    assert path.read_text() == "[]" and _mode(path) == 0o640
