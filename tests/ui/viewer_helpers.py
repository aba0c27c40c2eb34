"""Helpers for the viewer tests (a uniquely named module: `conftest` exists
twice in this tree, so tests must not import from it by name)."""
from __future__ import annotations

import pathlib
import time

from shared_models import shared_model_dirs


def shared_models() -> list[pathlib.Path]:
    return [d / "model.onnx" for d in shared_model_dirs()]


def wait_idle(qtbot, win, timeout=120_000):
    """Until the model is loaded, laid out, any pending reveal is done and
    the run's value tags are all placed (a few per event-loop turn)."""
    graph = win.graph
    overlay = getattr(getattr(win, "run_ui", None), "overlay", None)
    qtbot.waitUntil(lambda: not win.loading and graph.settled
                    and not (overlay is not None and overlay.placing), timeout=timeout)


def open_model(qtbot, win, path, timeout=120_000):
    win.open_path(path)
    wait_idle(qtbot, win, timeout)
    assert getattr(win, "last_error", None) is None, win.last_error
    assert win.graph.scene.view_model is not None


def run_short_sequence(qtbot, win, timeout_ms=300_000):
    """Run the open model as Ctrl+R does, with every dim named like a sequence
    at 16 and the others at 1 (a quick run of a transformer), until its value
    tags are placed; the run must succeed."""
    r = win.run_ui
    for name, spin in r.inputs.dim_spins.items():
        spin.setValue(16 if "seq" in name else 1)
    r.run_all()
    assert r.controller.wait(timeout_ms)
    wait_idle(qtbot, win)
    assert not r.controller.last_error, r.controller.last_error
    return r


def window_with_settings(qtbot, ini, size=(1280, 820)):
    """A shown MainWindow whose settings (window layout included) live in
    the .ini file `ini`: a second call with the same file is the next start."""
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow
    win = MainWindow(Settings(QSettings(str(ini), QSettings.IniFormat)))
    qtbot.addWidget(win)
    win.resize(*size)
    win.show()
    qtbot.waitExposed(win)
    return win


def slowed(monkeypatch, module, name: str, seconds: float) -> None:
    """`module.name` takes `seconds` longer a call: a job slow enough for
    its progress to pass the status line's 0.1 s throttle. Not a way to
    press Cancel partway: a busy machine may finish first; hold the job
    with tests/ui/holding.py for that."""
    real = getattr(module, name)

    def slow(*args, **kwargs):
        time.sleep(seconds)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, slow)
