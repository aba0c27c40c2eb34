"""Notices when a test changed a file under the shared models folder.

Checked after every test (tests/conftest.py): a snapshot of (size, mtime,
inode) per file, taken when the process starts; a save "beside and rename"
changes the inode even when it keeps size and time.
"""
from __future__ import annotations

import os
import pathlib


def snapshot(root: pathlib.Path) -> dict:
    out = {}
    if not root.is_dir():
        return out
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            try:
                st = os.stat(path)
            except OSError:
                continue
            out[os.path.relpath(path, root)] = (st.st_size, st.st_mtime_ns, st.st_ino)
    return out


class SharedModelsGuard:
    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.before = snapshot(self.root)

    def changes(self) -> list[str]:
        """Files added, removed or changed since the snapshot, sorted."""
        now = snapshot(self.root)
        names = set(now) | set(self.before)
        return sorted(n for n in names if now.get(n) != self.before.get(n))

    def rebase(self) -> None:
        self.before = snapshot(self.root)
