"""pytest-qt fixtures for the viewer; Qt runs offscreen (no display needed)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def _isolated_settings(tmp_path_factory):
    # Never touch the developer's real settings or layout cache.
    base = tmp_path_factory.mktemp("ui-settings")
    os.environ["ONNXSTUDIO_SETTINGS"] = str(base / "settings.ini")
    os.environ.setdefault("ONNXSTUDIO_LAYOUT_CACHE", str(base / "layout-cache"))
    os.environ.setdefault("ONNXSTUDIO_RECOVERY_DIR", str(base / "recovery"))
    yield


@pytest.fixture
def window(qtbot, tmp_path):
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    win = MainWindow(settings)
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    yield win
    win.shutdown()
