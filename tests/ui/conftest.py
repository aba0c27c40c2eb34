"""pytest-qt fixtures for the viewer; Qt runs offscreen (no display needed).
Settings, layout cache and recovery files are in a temporary folder for every
test (tests/isolation.py)."""
import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402


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
