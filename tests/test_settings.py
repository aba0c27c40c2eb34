"""Settings survive a restart, and bad settings files never stop the app."""
import os

import pytest
from PySide6.QtCore import QByteArray, QSettings, Qt

from onnxstudio.ui.settings import FORMAT, MAX_MODELS, Settings


def open_settings(path) -> Settings:
    return Settings(QSettings(str(path), QSettings.IniFormat))


def reopen(settings: Settings) -> Settings:
    settings.sync()
    return open_settings(settings.q.fileName())


def test_values_survive_a_restart(tmp_path):
    s = open_settings(tmp_path / "s.ini")
    model = tmp_path / "m.onnx"
    model.write_bytes(b"")
    s.set_theme("dark")
    s.set_language("zh_CN")
    s.add_recent(model)
    s.set_last_directory(tmp_path)
    s.set_geometry(b"\x01\x02geometry")
    s.set_window_state(QByteArray(b"\x00\xffstate"))
    s.update_model_state(model, expanded=[["encoder", "layer.0"]], viewport=[0.8, 10.5, -3.0])
    s.update_model_state(model, inputs={"x": "x.npy"}, dims={"batch": 2})

    s = reopen(s)
    assert s.problems == []
    assert s.theme() == "dark"
    assert s.language() == "zh_CN"
    assert s.recent_files() == [str(model.resolve())]
    assert s.last_directory() == str(tmp_path.resolve())
    assert bytes(s.geometry()) == b"\x01\x02geometry"
    assert bytes(s.window_state()) == b"\x00\xffstate"
    # the same model reached through another spelling of its path
    other = tmp_path / "." / "m.onnx"
    assert s.model_state(other) == {"expanded": [["encoder", "layer.0"]],
                                    "viewport": [0.8, 10.5, -3.0],
                                    "inputs": {"x": "x.npy"}, "dims": {"batch": 2}}


def test_defaults_on_an_empty_file(tmp_path):
    s = open_settings(tmp_path / "none.ini")
    assert (s.theme(), s.language(), s.recent_files(), s.last_directory()) == \
        ("system", "system", [], "")
    assert s.geometry() is None and s.window_state() is None
    assert s.model_state(tmp_path / "x.onnx") == {}
    assert s.problems == []


def test_model_state_update_merges_and_none_removes(tmp_path):
    s = open_settings(tmp_path / "s.ini")
    s.update_model_state("a.onnx", expanded=[], viewport=[1, 2, 3])
    assert s.update_model_state("a.onnx", viewport=None) == {"expanded": []}
    s.update_model_state("a.onnx", expanded=None)
    assert s.model_state("a.onnx") == {}
    with pytest.raises(TypeError, match="JSON"):
        s.update_model_state("a.onnx", bad=object())
    assert s.model_state("a.onnx") == {}


def test_model_store_keeps_the_most_recent_models(tmp_path):
    s = open_settings(tmp_path / "s.ini")
    for i in range(MAX_MODELS + 5):
        s.update_model_state(f"/m/{i}.onnx", viewport=[1, i, i])
    s.update_model_state("/m/0.onnx", viewport=[1, 0, 0])     # gone, written again
    s.update_model_state("/m/6.onnx", viewport=[2, 6, 6])     # touched: stays newest
    s.update_model_state("/m/new.onnx", viewport=[1, 9, 9])
    s = reopen(s)
    assert s.model_state("/m/1.onnx") == {}
    assert s.model_state("/m/6.onnx") == {"viewport": [2, 6, 6]}
    assert s.model_state("/m/new.onnx") and s.model_state("/m/0.onnx")


def test_invalid_values_are_refused_when_set(tmp_path):
    s = open_settings(tmp_path / "s.ini")
    with pytest.raises(ValueError):
        s.set_theme("purple")
    with pytest.raises(ValueError):
        s.set_language("../../etc")


def test_wrong_types_are_ignored_with_a_warning(tmp_path, caplog):
    path = tmp_path / "s.ini"
    path.write_text(
        "[General]\n"
        f"format={FORMAT}\n"
        "theme=@ByteArray(dark)\n"
        "language=@Variant(\\0\\0\\0\\x2\\0\\0\\0\\x5)\n"
        "recent_files=@ByteArray(x)\n"
        "last_directory=@ByteArray(/tmp)\n"
        "models=[1, 2]\n"
        "[window]\n"
        "geometry=not binary\n"
        "state=42\n")
    with caplog.at_level("WARNING", logger="onnxstudio.ui.settings"):
        s = open_settings(path)
        assert s.theme() == "system"
        assert s.language() == "system"
        assert s.recent_files() == []
        assert s.last_directory() == ""
        assert s.geometry() is None and s.window_state() is None
        assert s.model_state("/m.onnx") == {}
    for key in ("theme", "language", "recent_files", "last_directory", "models",
                "window/geometry", "window/state"):
        assert any(f"'{key}'" in p for p in s.problems), key
    assert all(str(path) in p for p in s.problems)
    assert caplog.records
    # and the app can write over them
    s.set_theme("light")
    s.update_model_state("/m.onnx", viewport=[1, 2, 3])
    s = reopen(s)
    assert s.theme() == "light" and s.model_state("/m.onnx") == {"viewport": [1, 2, 3]}


def test_bad_entries_inside_values_are_dropped(tmp_path):
    s = open_settings(tmp_path / "s.ini")
    s.q.setValue("recent_files", ["/a.onnx", 3, "", "/b.onnx"])
    s.q.setValue("models", '{"/a.onnx": {"viewport": [1, 2, 3]}, "/b.onnx": 7}')
    s.q.setValue("theme", "neon")
    assert s.recent_files() == ["/a.onnx", "/b.onnx"]
    assert s.model_state("/a.onnx") == {"viewport": [1, 2, 3]}
    assert s.model_state("/b.onnx") == {}
    assert s.theme() == "system"
    assert len(s.problems) == 3


@pytest.mark.parametrize("content", [
    os.urandom(4096),                                              # garbage
    b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4,                  # a binary file
    b"[Desktop Entry]\nName=other program\nExec=other\n[[[\n",    # broken INI
    b"[General]\ncolor=blue\nvolume=7\n[plugins]\nlist=a, b\n",    # another program's INI
], ids=["random", "binary", "broken-ini", "foreign-ini"])
def test_a_file_that_is_not_ours_is_set_aside(tmp_path, content):
    path = tmp_path / "s.ini"
    path.write_bytes(content)
    s = open_settings(path)
    assert s.theme() == "system" and s.recent_files() == [] and s.window_state() is None
    assert len(s.problems) == 1 and str(path) in s.problems[0]
    assert (tmp_path / "s.ini.invalid").read_bytes() == content
    s.set_theme("dark")
    s = reopen(s)
    assert s.problems == [] and s.theme() == "dark"


def test_an_old_file_without_the_marker_is_kept(tmp_path):
    path = tmp_path / "s.ini"
    path.write_text("[General]\ntheme=dark\nrecent_files=/a.onnx\n")
    s = open_settings(path)
    assert s.problems == [] and s.theme() == "dark" and s.recent_files() == ["/a.onnx"]
    assert not (tmp_path / "s.ini.invalid").exists()
    # marked as ours from now on: keys other parts of the app add later keep it ours
    s.q.setValue("inputs/extra", "x")
    s = reopen(s)
    assert s.problems == [] and s.theme() == "dark"


# -- a restart of the app restores what the user left --------------------------------------

def _wait_idle(qtbot, win):
    qtbot.waitUntil(lambda: not win.loading and win.graph.settled, timeout=120_000)


def _window(qtbot, settings_path):
    from onnxstudio.ui.main_window import MainWindow
    win = MainWindow(open_settings(settings_path))
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    return win


def test_restart_restores_layout_and_state(qtbot, tmp_path, monkeypatch):
    import shutil

    from onnxstudio.resources import sample_path
    monkeypatch.setenv("ONNXSTUDIO_LAYOUT_CACHE", str(tmp_path / "layout-cache"))
    settings_path = tmp_path / "settings.ini"
    model = tmp_path / "models" / "demo.onnx"
    model.parent.mkdir()
    shutil.copyfile(sample_path("demo.onnx"), model)

    win = _window(qtbot, settings_path)
    win.resize(720, 530)   # inside the offscreen screen (800x600)
    win.set_theme("dark")
    win.settings.set_language("zh_CN")
    win.open_path(model)
    _wait_idle(qtbot, win)
    groups = sorted(win.graph.scene.view_model.groups)
    assert groups, "the demo model has name-scope groups"
    win.graph.collapse_all()
    _wait_idle(qtbot, win)
    win.graph.expand_group(groups[0])
    _wait_idle(qtbot, win)
    expanded = set(win.graph.level.expanded)
    view = win.graph.view
    view.zoom_by(1.7 / view.current_scale())
    view.centerOn(40.0, 60.0)
    win.search_dock.show()
    win.resizeDocks([win.properties_dock], [333], Qt.Horizontal)
    win.addDockWidget(Qt.BottomDockWidgetArea, win.search_dock)
    qtbot.wait(50)
    search_area = win.dockWidgetArea(win.search_dock)
    properties_width = win.properties_dock.width()
    view.centerOn(150.0, 200.0)
    scale, cx, cy = win.graph.view_state()
    win.close()

    win = _window(qtbot, settings_path)
    assert win.settings.problems == []
    assert win.settings.theme() == "dark" and win.graph.scene.theme.dark
    assert win.settings.language() == "zh_CN"
    assert win.settings.recent_files()[0] == str(model.resolve())
    assert win.settings.last_directory() == str(model.parent.resolve())
    assert (win.size().width(), win.size().height()) == (720, 530)
    assert win.search_dock.isVisible() and win.dockWidgetArea(win.search_dock) == search_area
    assert abs(win.properties_dock.width() - properties_width) <= 2
    win.open_path(model)
    _wait_idle(qtbot, win)
    assert win.graph.level.expanded == expanded
    view = win.graph.view
    assert abs(view.current_scale() - scale) < 1e-6
    centre = view.visible_scene_rect().center()
    assert abs(centre.x() - cx) < 2 and abs(centre.y() - cy) < 2
    win.close()


def test_corrupt_settings_file_still_opens_the_window(qtbot, tmp_path):
    path = tmp_path / "settings.ini"
    path.write_bytes(os.urandom(2048))
    win = _window(qtbot, path)
    assert win.settings.problems and "Settings:" in win.statusBar().currentMessage()
    win.close()
    assert open_settings(path).problems == []
