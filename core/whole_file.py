"""Writing a file all or nothing.

    with whole_file(path, "w") as f:      # f: a file beside `path`
        f.write(text)
    # here `path` holds all of it; after an error it is as it was

The data goes into a temporary file in the same folder, is flushed to the
disk, and only then renamed over `path` (a rename within one folder is
atomic), so a crash or a full disk never leaves half a file where the user
keeps their work. The file keeps `path`'s permissions, or gets the usual
0666 & ~umask when new (a temporary file is made 0600). The model saver
(serde/io.py) does the same with more steps of its own (external data, the
folder's sync).
"""
from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile


@contextlib.contextmanager
def whole_file(path, mode: str = "wb", encoding: str | None = None):
    """A file to write `path`'s new contents into (mode "w" or "wb"); the
    contents replace `path` when the block ends without an error. OSError
    when the folder cannot be written."""
    path = pathlib.Path(path)
    if encoding is None and "b" not in mode:
        encoding = "utf-8"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent.absolute())
    try:
        with os.fdopen(fd, mode, encoding=encoding) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, file_mode(path))
        os.replace(tmp, path)
        tmp = None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def file_mode(target: pathlib.Path) -> int:
    """The permissions a file written over `target` should have: the
    existing file's, else the usual 0666 & ~umask of a new file."""
    try:
        return target.stat().st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask
