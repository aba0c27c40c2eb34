"""User settings kept between sessions (QSettings): recent files, theme,
window geometry. The organisation/app names decide where QSettings stores them;
ONNXSTUDIO_SETTINGS points them at a file instead (tests, benchmarks)."""
from __future__ import annotations

import os
import pathlib

from PySide6.QtCore import QSettings

MAX_RECENT = 10
THEMES = ("system", "light", "dark")


class Settings:
    def __init__(self, qsettings: QSettings | None = None):
        if qsettings is None:
            override = os.environ.get("ONNXSTUDIO_SETTINGS")
            qsettings = (QSettings(override, QSettings.IniFormat) if override
                         else QSettings("onnxstudio", "onnxstudio"))
        self.q = qsettings

    # -- recent files -----------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.q.value("recent_files", [])
        if isinstance(value, str):      # QSettings returns a bare string for one item
            value = [value]
        return [str(v) for v in (value or [])]

    def add_recent(self, path) -> list[str]:
        path = str(pathlib.Path(path).resolve())
        files = [p for p in self.recent_files() if p != path]
        files.insert(0, path)
        files = files[:MAX_RECENT]
        self.q.setValue("recent_files", files)
        return files

    def remove_recent(self, path) -> None:
        self.q.setValue("recent_files", [p for p in self.recent_files() if p != str(path)])

    def clear_recent(self) -> None:
        self.q.setValue("recent_files", [])

    # -- appearance ---------------------------------------------------------------------

    def theme(self) -> str:
        value = str(self.q.value("theme", "system"))
        return value if value in THEMES else "system"

    def set_theme(self, value: str) -> None:
        if value not in THEMES:
            raise ValueError(f"theme must be one of {THEMES}")
        self.q.setValue("theme", value)

    def geometry(self):
        return self.q.value("window/geometry")

    def set_geometry(self, data) -> None:
        self.q.setValue("window/geometry", data)
