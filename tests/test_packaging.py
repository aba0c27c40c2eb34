"""The PyInstaller bundle and the desktop integration.

The bundle test builds the one-folder bundle (about 20-40 s), then runs it
as a user would: `info` on a shared model, and the app on the demo model,
offscreen, until it has drawn the graph and closed itself.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from shared_models import shared_model_dirs

# Builds the PyInstaller bundle (~30 s).
pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _xdg_env(tmp_path) -> dict:
    env = dict(os.environ)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    return env


def _cli(args, env, cwd=None, exe=None):
    cmd = [exe] if exe else [sys.executable, "-m", "onnxstudio"]
    return subprocess.run(cmd + list(args), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def _desktop_files(data: pathlib.Path) -> list[str]:
    return sorted(str(p.relative_to(data)) for p in data.rglob("*")
                  if p.is_file() and "onnx" in p.name)


# -- desktop integration --------------------------------------------------------------------

def test_install_and_uninstall_desktop(tmp_path):
    env = _xdg_env(tmp_path)
    data = tmp_path / "data"
    done = _cli(["--install-desktop"], env)
    assert done.returncode == 0, done.stderr
    assert str(data) in done.stdout
    entry = (data / "applications" / "onnxstudio.desktop").read_text()
    exec_line = next(line for line in entry.splitlines() if line.startswith("Exec="))
    assert exec_line.endswith(" %f")
    assert "MimeType=application/x-onnx;" in entry and "Icon=onnxstudio" in entry
    mime = (data / "mime" / "packages" / "onnxstudio.xml").read_text()
    assert 'type="application/x-onnx"' in mime and 'pattern="*.onnx"' in mime
    for size in (48, 256):
        assert (data / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "onnxstudio.png").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "apps" / "onnxstudio.svg").is_file()
    assert (data / "icons" / "hicolor" / "scalable" / "mimetypes" / "application-x-onnx.svg").is_file()
    if shutil.which("update-mime-database"):
        # the shared MIME database now knows the type
        assert "application/x-onnx:*.onnx" in (data / "mime" / "globs2").read_text()
        assert "updated" in done.stdout
    else:
        assert "update-mime-database: not installed, skipped" in done.stdout
    if shutil.which("xdg-mime"):
        assert "application/x-onnx=onnxstudio.desktop" in \
            (tmp_path / "config" / "mimeapps.list").read_text()

    # twice is fine (an update)
    assert _cli(["--install-desktop"], env).returncode == 0

    # someone else's association in mimeapps.list survives the uninstall
    mimeapps = tmp_path / "config" / "mimeapps.list"
    mimeapps.parent.mkdir(exist_ok=True)
    mimeapps.write_text("[Default Applications]\napplication/x-onnx=onnxstudio.desktop\n"
                        "text/plain=editor.desktop\n"
                        "[Added Associations]\napplication/x-onnx=netron.desktop;onnxstudio.desktop;\n")
    done = _cli(["--uninstall-desktop"], env)
    assert done.returncode == 0, done.stderr
    assert _desktop_files(data) == []
    assert mimeapps.read_text() == ("[Default Applications]\ntext/plain=editor.desktop\n"
                                    "[Added Associations]\napplication/x-onnx=netron.desktop;\n")
    if shutil.which("update-mime-database"):
        assert "*.onnx" not in (data / "mime" / "globs2").read_text()
    done = _cli(["--uninstall-desktop"], env)
    assert done.returncode == 0 and "nothing of onnxstudio was installed" in done.stdout


def test_install_desktop_into_a_read_only_place_names_the_file(tmp_path):
    env = _xdg_env(tmp_path)
    (tmp_path / "data").write_text("a file where the data folder should be")
    done = _cli(["--install-desktop"], env)
    assert done.returncode == 2
    assert done.stderr.startswith("onnxstudio --install-desktop: cannot write ")
    assert str(tmp_path / "data") in done.stderr and "Traceback" not in done.stderr
    assert _cli(["--install-desktop", "extra"], env).returncode == 2


def test_exec_line_quoting():
    from onnxstudio.desktop import desktop_entry, quote_exec_arg
    assert quote_exec_arg("/usr/bin/onnxstudio") == "/usr/bin/onnxstudio"
    # Desktop Entry spec: quote reserved characters, escape " ` $ \ inside, then
    # the value's own escape doubles every backslash; % becomes %%.
    assert quote_exec_arg("/opt/my apps/onnx$studio") == '"/opt/my apps/onnx\\\\$studio"'
    assert quote_exec_arg("/opt/100%/x") == "/opt/100%%/x"
    entry = desktop_entry(["/opt/my apps/python3", "-m", "onnxstudio"])
    assert 'Exec="/opt/my apps/python3" -m onnxstudio %f' in entry.splitlines()


def test_relative_xdg_data_home_is_ignored(tmp_path):
    from onnxstudio.desktop import data_home
    assert data_home({"XDG_DATA_HOME": "rel/dir", "HOME": str(tmp_path)}) == \
        tmp_path / ".local" / "share"
    assert data_home({"XDG_DATA_HOME": str(tmp_path / "d"), "HOME": "/x"}) == tmp_path / "d"


# -- the bundle ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    try:
        import PyInstaller  # noqa: F401
    except ImportError:
        pytest.fail("PyInstaller is missing: it is in the test extras (pip install -e '.[test]')")
    base = tmp_path_factory.mktemp("bundle")
    done = subprocess.run([sys.executable, str(ROOT / "packaging" / "build_bundle.py"),
                           "--dist", str(base / "dist"), "--work", str(base / "work")],
                          capture_output=True, text=True, timeout=900, cwd=base,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    print(done.stdout.strip().splitlines()[-1])
    exe = base / "dist" / "onnxstudio" / "onnxstudio"
    assert exe.is_file() and os.access(exe, os.X_OK)
    # The scratch folder is not part of the bundle; free the disk at once.
    shutil.rmtree(base / "work", ignore_errors=True)
    yield exe
    shutil.rmtree(base / "dist", ignore_errors=True)    # ~200 MB


def _bundle_env(tmp_path) -> dict:
    env = _xdg_env(tmp_path)
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV"):
        env.pop(name, None)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["ONNXSTUDIO_SETTINGS"] = str(tmp_path / "settings.ini")
    env["ONNXSTUDIO_LAYOUT_CACHE"] = str(tmp_path / "layout-cache")
    return env


def test_bundle_runs_info_on_a_shared_model(bundle, tmp_path):
    model = shared_model_dirs()[0] / "model.onnx"
    done = _cli(["info", str(model), "--json"], _bundle_env(tmp_path), cwd=tmp_path, exe=str(bundle))
    assert done.returncode == 0, done.stderr
    info = json.loads(done.stdout)
    # the same answer as the installed package gives
    plain = _cli(["info", str(model), "--json"], _bundle_env(tmp_path), cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert info == json.loads(plain.stdout)
    assert info["inputs"] and info["path"] == str(model)
    done = _cli(["--version"], _bundle_env(tmp_path), cwd=tmp_path, exe=str(bundle))
    assert done.returncode == 0 and done.stdout.startswith("onnxstudio 0.")
    done = _cli(["info", str(tmp_path / "missing.onnx")], _bundle_env(tmp_path), cwd=tmp_path,
                exe=str(bundle))
    assert done.returncode == 2 and "missing.onnx" in done.stderr and "Traceback" not in done.stderr


def test_bundle_runs_a_model_like_the_package(bundle, tmp_path):
    """Kernels are imported by name at run time: a bundle missing them would
    still answer `info`."""
    import numpy as np
    dirs = {d.name: d for d in shared_model_dirs()}
    model = str(dirs["bert_small"] / "model.onnx")
    env = _bundle_env(tmp_path)
    args = ["run", model, "--random", "--seed", "3", "--output-dir"]
    frozen = _cli(args + [str(tmp_path / "frozen")], env, cwd=tmp_path, exe=str(bundle))
    assert frozen.returncode == 0, frozen.stderr
    plain = _cli(args + [str(tmp_path / "plain")], env, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    arrays = sorted(p.name for p in (tmp_path / "plain").iterdir())
    assert arrays and arrays == sorted(p.name for p in (tmp_path / "frozen").iterdir())
    for array in arrays:
        np.testing.assert_array_equal(np.load(tmp_path / "frozen" / array),
                                      np.load(tmp_path / "plain" / array))


def test_bundle_opens_the_demo_and_quits(bundle, tmp_path):
    from PySide6.QtGui import QImage
    env = _bundle_env(tmp_path)
    png = tmp_path / "window.png"
    env["ONNXSTUDIO_SMOKE_PNG"] = str(png)
    done = _cli(["--demo"], env, cwd=tmp_path, exe=str(bundle))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "smoke: demo.onnx:" in done.stdout and "ready=True" in done.stdout, done.stdout
    assert "Traceback" not in done.stderr
    boxes = int(done.stdout.split("demo.onnx:")[1].split("boxes")[0])
    assert boxes >= 10
    image = QImage(str(png))
    assert image.width() > 400 and image.height() > 300
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7)
               for y in range(0, image.height(), 7)}
    assert len(colours) > 20, "the window looks empty"
    # it quit through the normal path: the window state was saved
    assert "window" in (tmp_path / "settings.ini").read_text()


def test_bundle_installs_its_own_desktop_entry(bundle, tmp_path):
    env = _bundle_env(tmp_path)
    done = _cli(["--install-desktop"], env, cwd=tmp_path, exe=str(bundle))
    assert done.returncode == 0, done.stderr
    entry = (tmp_path / "data" / "applications" / "onnxstudio.desktop").read_text()
    assert f"Exec={bundle.resolve()} %f" in entry.splitlines()
    assert (tmp_path / "data" / "icons" / "hicolor" / "128x128" / "apps" / "onnxstudio.png").is_file()
