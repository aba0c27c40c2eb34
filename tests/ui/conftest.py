"""pytest-qt fixtures for the viewer; Qt runs offscreen (no display needed)."""
import os
import pathlib

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

SHARED_MODELS = pathlib.Path(__file__).resolve().parents[3] / "shared" / "models"
if not SHARED_MODELS.is_dir():
    SHARED_MODELS = pathlib.Path("/work/shared/models")


def shared_models() -> list[pathlib.Path]:
    return sorted(p / "model.onnx" for p in SHARED_MODELS.iterdir() if (p / "model.onnx").is_file())


@pytest.fixture(scope="session", autouse=True)
def _isolated_settings(tmp_path_factory):
    # Never touch the developer's real settings or layout cache.
    base = tmp_path_factory.mktemp("ui-settings")
    os.environ["ONNXSTUDIO_SETTINGS"] = str(base / "settings.ini")
    os.environ.setdefault("ONNXSTUDIO_LAYOUT_CACHE", str(base / "layout-cache"))
    yield


@pytest.fixture
def window(qtbot, tmp_path):
    from PySide6.QtCore import QSettings
    from onnxstudio.settings import Settings
    from onnxstudio.ui.main_window import MainWindow
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    yield win
    win.shutdown()


def wait_idle(qtbot, win, timeout=120_000):
    """Until the model is loaded, laid out and any pending reveal is done."""
    graph = win.graph
    qtbot.waitUntil(lambda: win._load_job is None and graph._job is None
                    and graph._pending_target is None, timeout=timeout)


def open_model(qtbot, win, path, timeout=120_000):
    win.open_path(path)
    wait_idle(qtbot, win, timeout)
    assert getattr(win, "last_error", None) is None, win.last_error
    assert win.graph.scene.view_model is not None
