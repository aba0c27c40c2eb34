"""User settings kept between sessions (QSettings): window geometry and dock
layout, theme, language, recent files, last directory, whether the compare
window scrolls its canvases together, and a small store of per-model state
(expanded groups, viewport, input sets, symbolic dims).

The organisation/app names decide where QSettings stores them;
ONNXSTUDIO_SETTINGS points them at a file instead (tests, benchmarks).

Settings are never trusted: a value of the wrong type (an edited file, a
file from another program, random bytes) is ignored with a warning and the
default is used. A file that is not ours at all is copied aside to
`<file>.invalid` and replaced, so the app always starts.
"""
from __future__ import annotations

import json
import logging
import math
import os
import pathlib
import re
import shutil

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 10
MAX_MODELS = 50              # per-model entries kept, least recently used dropped
MAX_MODEL_STATE_BYTES = 1 << 20
THEMES = ("system", "light", "dark")
FORMAT_KEY = "format"
FORMAT = "onnxstudio-settings/1"
# Keys this program writes (or wrote before FORMAT existed): a file holding
# only these is ours even without the marker.
KNOWN_KEYS = {FORMAT_KEY, "recent_files", "theme", "language", "last_directory",
              "window/geometry", "window/state", "models", "compare/scroll_together"}
_LANGUAGE = re.compile(r"^(system|[a-z]{2,3}([_-][A-Za-z0-9]{2,8})*)$")

log = logging.getLogger("onnxstudio.ui.settings")


class Settings:
    def __init__(self, qsettings: QSettings | None = None):
        if qsettings is None:
            override = os.environ.get("ONNXSTUDIO_SETTINGS")
            qsettings = (QSettings(override, QSettings.IniFormat) if override
                         else QSettings("onnxstudio", "onnxstudio"))
        self.q = qsettings
        self.problems: list[str] = []       # shown once by the window, also logged
        self._check_file()

    # -- trust nothing read back -------------------------------------------------------------

    def _warn(self, message: str) -> None:
        where = self.q.fileName() or "settings"
        text = f"{where}: {message}"
        if text not in self.problems:
            self.problems.append(text)
            log.warning(text)

    def _check_file(self) -> None:
        """A file that does not parse, or whose keys are not ours and carry no
        marker, is set aside and started afresh (keeping it would mean writing
        our values into someone else's file)."""
        keys = set(self.q.allKeys())
        bad = None
        if self.q.status() == QSettings.FormatError:
            bad = "cannot be read (format error)"
        elif keys and self.q.value(FORMAT_KEY) != FORMAT and not keys <= KNOWN_KEYS:
            bad = "is not an onnxstudio settings file"
        if bad is None:
            if self.q.value(FORMAT_KEY) != FORMAT:
                # Mark the file ours now, so keys added later by any part of
                # the app never make it look foreign.
                self.q.setValue(FORMAT_KEY, FORMAT)
            return
        name = self.q.fileName()
        saved = ""
        try:
            if name and os.path.isfile(name):
                shutil.copyfile(name, name + ".invalid")
                saved = f"; kept a copy as {name}.invalid"
        except OSError:
            pass
        self._warn(f"{bad}, using defaults{saved}")
        self.q.clear()
        self.q.setValue(FORMAT_KEY, FORMAT)

    def _set(self, key: str, value) -> None:
        if self.q.value(FORMAT_KEY) != FORMAT:
            self.q.setValue(FORMAT_KEY, FORMAT)
        self.q.setValue(key, value)

    def _str(self, key: str, default: str = "") -> str:
        value = self.q.value(key, default)
        if value is None:
            return default
        if not isinstance(value, str):
            self._warn(f"'{key}' should be text, found {type(value).__name__}; ignored")
            return default
        return value

    def _bytes(self, key: str):
        value = self.q.value(key)
        if value is None:
            return None
        if isinstance(value, (bytes, bytearray)):
            return QByteArray(bytes(value))
        if not isinstance(value, QByteArray):
            self._warn(f"'{key}' should be binary data, found {type(value).__name__}; ignored")
            return None
        return value

    # -- recent files -------------------------------------------------------------------------

    def recent_files(self) -> list[str]:
        value = self.q.value("recent_files", [])
        if isinstance(value, str):      # QSettings returns a bare string for one item
            value = [value] if value else []
        if value is None:
            return []
        if not isinstance(value, list):
            self._warn(f"'recent_files' should be a list, found {type(value).__name__}; ignored")
            return []
        files = [v for v in value if isinstance(v, str) and v]
        if len(files) != len(value):
            self._warn("'recent_files' holds entries that are not file names; they were dropped")
        return files[:MAX_RECENT]

    def add_recent(self, path) -> list[str]:
        path = str(pathlib.Path(path).resolve())
        files = [p for p in self.recent_files() if p != path]
        files.insert(0, path)
        files = files[:MAX_RECENT]
        self._set("recent_files", files)
        return files

    def remove_recent(self, path) -> None:
        gone = {str(path), str(pathlib.Path(path).resolve())}
        self._set("recent_files", [p for p in self.recent_files() if p not in gone])

    def clear_recent(self) -> None:
        self._set("recent_files", [])

    def last_directory(self) -> str:
        """Where the last model was opened from ("" if unknown or gone)."""
        value = self._str("last_directory")
        return value if value and os.path.isdir(value) else ""

    def set_last_directory(self, path) -> None:
        self._set("last_directory", str(pathlib.Path(path).resolve()))

    # -- appearance ---------------------------------------------------------------------------

    def theme(self) -> str:
        value = self._str("theme", "system")
        if value not in THEMES:
            self._warn(f"'theme' is {value!r}, not one of {', '.join(THEMES)}; ignored")
            return "system"
        return value

    def set_theme(self, value: str) -> None:
        if value not in THEMES:
            raise ValueError(f"theme must be one of {THEMES}")
        self._set("theme", value)

    def language(self) -> str:
        """A language code such as "en" or "zh_CN", or "system" (the default)."""
        value = self._str("language", "system")
        if not _LANGUAGE.match(value):
            self._warn(f"'language' is {value!r}, not a language code; ignored")
            return "system"
        return value

    def set_language(self, value: str) -> None:
        if not isinstance(value, str) or not _LANGUAGE.match(value):
            raise ValueError(f"language must be 'system' or a code like 'en' or 'zh_CN', not {value!r}")
        self._set("language", value)

    # -- compare window -------------------------------------------------------------------------

    def scroll_together(self) -> bool:
        """Whether the compare window's two canvases scroll and zoom together (the default)."""
        value = self.q.value("compare/scroll_together", True)
        # An ini file gives back the text it wrote.
        value = {"true": True, "false": False}.get(value, value) if isinstance(value, str) else value
        if not isinstance(value, bool):
            self._warn(f"'compare/scroll_together' should be true or false, found {value!r}; ignored")
            return True
        return value

    def set_scroll_together(self, on: bool) -> None:
        self._set("compare/scroll_together", bool(on))

    # -- window ---------------------------------------------------------------------------------

    def geometry(self):
        return self._bytes("window/geometry")

    def set_geometry(self, data) -> None:
        self._set("window/geometry", QByteArray(data))

    def window_state(self):
        """QMainWindow.saveState(): every dock with an objectName, toolbars."""
        return self._bytes("window/state")

    def set_window_state(self, data) -> None:
        self._set("window/state", QByteArray(data))

    # -- per-model state ----------------------------------------------------------------------

    @staticmethod
    def model_key(path) -> str:
        return str(pathlib.Path(path).resolve())

    def _models(self) -> dict:
        """{resolved path: {name: JSON value}}, least recently used first."""
        raw = self._str("models", "")
        if not raw:
            return {}
        try:
            value = json.loads(raw)
        except ValueError:
            self._warn("'models' is not valid JSON; per-model state was reset")
            return {}
        if not isinstance(value, dict):
            self._warn("'models' should map model paths to their state; per-model state was reset")
            return {}
        models = {k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, dict)}
        if len(models) != len(value):
            self._warn("'models' holds entries that are not per-model state; they were dropped")
        return models

    def model_state(self, path) -> dict:
        """What was remembered about the model at `path` (a copy; {} if nothing).
        Keys are chosen by the callers: 'expanded' and 'viewport' (viewer),
        input sets and dim values (run docks)."""
        return dict(self._models().get(self.model_key(path), {}))

    def update_model_state(self, path, **values) -> dict:
        """Merge `values` (JSON-serialisable) into the model's state; a value
        of None removes that key. Returns the new state."""
        models = self._models()
        key = self.model_key(path)
        state = models.pop(key, {})
        for name, value in values.items():
            if value is None:
                state.pop(name, None)
            else:
                state[name] = value
        try:
            json.dumps(state)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"model state for {key} must be JSON-serialisable: {exc}") from None
        if state:
            models[key] = state                 # most recent last
        while len(models) > MAX_MODELS:
            models.pop(next(iter(models)))
        text = json.dumps(models, separators=(",", ":"))
        while len(text) > MAX_MODEL_STATE_BYTES and len(models) > 1:
            models.pop(next(iter(models)))
            text = json.dumps(models, separators=(",", ":"))
        self._set("models", text)
        return dict(state)

    def forget_model(self, path) -> None:
        models = self._models()
        if models.pop(self.model_key(path), None) is not None:
            self._set("models", json.dumps(models, separators=(",", ":")))

    def sync(self) -> None:
        self.q.sync()


# -- the viewer's part of a model's state ---------------------------------------------------

def viewer_values(expanded, view_state) -> dict:
    """JSON form of the main graph's open groups and viewport for
    update_model_state (None leaves a key out)."""
    return {"expanded": None if expanded is None else sorted(list(p) for p in expanded),
            "viewport": None if view_state is None else [float(v) for v in view_state]}


def viewer_state(state: dict):
    """(expanded set of group paths or None, (scale, x, y) or None) from a
    model's stored state; anything malformed counts as not stored."""
    expanded = state.get("expanded")
    if not (isinstance(expanded, list) and all(
            isinstance(p, list) and all(isinstance(part, str) for part in p) for p in expanded)):
        expanded = None
    else:
        expanded = {tuple(p) for p in expanded}
    view = state.get("viewport")
    if not (isinstance(view, list) and len(view) == 3
            and all(isinstance(v, (int, float)) and not isinstance(v, bool)
                    and math.isfinite(v) for v in view) and view[0] > 0):
        view = None
    else:
        view = tuple(float(v) for v in view)
    return expanded, view
