"""Extract the app's texts, update the translation sources, compile them.

    python tools/i18n.py            # lupdate → resources/translations/*.ts → lrelease → *.qm
    python tools/i18n.py --check    # exit 1 when a .ts has unfinished entries or a .qm is stale
    python tools/i18n.py --screenshot docs/screenshots/zh_CN.png   # the app in Chinese

Uses the lupdate and lrelease that PySide6 ships (next to the PySide6
package, or the pyside6-lupdate / pyside6-lrelease entry points).
lupdate reads `self.tr("...")` in QObject subclasses (context: the class
name), `QCoreApplication.translate("Context", "...")` and
`QT_TRANSLATE_NOOP("Context", "...")`. Locations are left out of the .ts
so that moving code does not rewrite it; texts that disappeared from the
sources are dropped (-no-obsolete).

After extraction, new texts are entries marked unfinished in
onnxstudio_<lang>.ts: translate them there (any editor, or Qt Linguist),
then run this again to compile.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

ROOT = pathlib.Path(__file__).resolve().parent.parent
TRANSLATIONS = ROOT / "resources" / "translations"
LANGUAGES = ("zh_CN",)
# Where user-visible texts live: the Qt side and the app bootstrap.
SOURCE_DIRS = ("ui",)
SOURCE_FILES = ("onnxstudio/app.py",)


def ts_path(lang: str) -> pathlib.Path:
    return TRANSLATIONS / f"onnxstudio_{lang}.ts"


def qm_path(lang: str) -> pathlib.Path:
    return TRANSLATIONS / f"onnxstudio_{lang}.qm"


def tool(name: str) -> str:
    """Path of PySide6's `lupdate` / `lrelease`."""
    import PySide6
    here = pathlib.Path(PySide6.__file__).resolve().parent
    for candidate in (here / name, here / f"{name}.exe", here / "Qt" / "libexec" / name):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which(f"pyside6-{name}")
    if found:
        return found
    raise SystemExit(f"i18n: PySide6's {name} not found next to {here} nor as pyside6-{name} on PATH")


def sources() -> list[pathlib.Path]:
    files = [ROOT / f for f in SOURCE_FILES]
    for folder in SOURCE_DIRS:
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts)
    return files


def lupdate(ts: pathlib.Path, files: list[pathlib.Path] | None = None) -> str:
    """Update `ts` from the sources (created when missing); lupdate's summary."""
    files = files or sources()
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False, encoding="utf-8") as lst:
        lst.write("\n".join(str(f) for f in files))
    try:
        done = subprocess.run([tool("lupdate"), "-no-obsolete", "-locations", "none",
                               "-source-language", "en", "-target-language", _lang_of(ts),
                               f"@{lst.name}", "-ts", str(ts)],
                              capture_output=True, text=True, check=False)
    finally:
        os.unlink(lst.name)
    if done.returncode != 0:
        raise SystemExit(f"i18n: lupdate failed on {ts.name}:\n{done.stderr or done.stdout}")
    return (done.stdout + done.stderr).strip()


def lrelease(ts: pathlib.Path, qm: pathlib.Path) -> str:
    done = subprocess.run([tool("lrelease"), "-nounfinished", str(ts), "-qm", str(qm)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"i18n: lrelease failed on {ts.name}:\n{done.stderr or done.stdout}")
    return (done.stdout + done.stderr).strip()


def _lang_of(ts: pathlib.Path) -> str:
    return ts.stem.split("_", 1)[1]


def entries(ts: pathlib.Path):
    """(context, source, comment, translation texts, finished) for every message."""
    root = ET.parse(ts).getroot()
    for context in root.iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            translation = message.find("translation")
            if translation is None:
                yield name, message.findtext("source") or "", "", [], False
                continue
            kind = translation.get("type")
            forms = [f.text or "" for f in translation.iter("numerusform")]
            texts = forms or [translation.text or ""]
            finished = kind not in ("unfinished", "obsolete", "vanished") and all(texts)
            yield name, message.findtext("source") or "", message.findtext("comment") or "", texts, finished


def unfinished(ts: pathlib.Path) -> list[str]:
    return [f"{ctx or '(no context)'}: {src!r}" for ctx, src, _c, _t, done in entries(ts) if not done]


def stale_qm(lang: str) -> bool:
    """Whether the committed .qm differs from what the committed .ts compiles to."""
    qm = qm_path(lang)
    if not qm.is_file():
        return True
    with tempfile.TemporaryDirectory() as tmp:
        fresh = pathlib.Path(tmp) / qm.name
        lrelease(ts_path(lang), fresh)
        return fresh.read_bytes() != qm.read_bytes()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true",
                        help="only report: unfinished translations or a stale .qm are exit 1")
    parser.add_argument("--screenshot", type=pathlib.Path, metavar="PNG",
                        help="save a picture of the app in Chinese on the demo model, and stop")
    args = parser.parse_args(argv)
    if args.screenshot:
        print(screenshot(args.screenshot))
        return 0
    status = 0
    for lang in LANGUAGES:
        ts = ts_path(lang)
        if args.check:
            missing = unfinished(ts) if ts.is_file() else [f"{ts} is missing"]
            for line in missing:
                print(f"{ts.name}: not translated: {line}")
            if stale_qm(lang):
                print(f"{qm_path(lang).name}: stale, run python tools/i18n.py")
                missing.append("stale")
            status |= bool(missing)
            continue
        TRANSLATIONS.mkdir(parents=True, exist_ok=True)
        print(lupdate(ts))
        print(lrelease(ts, qm_path(lang)))
        left = unfinished(ts)
        if left:
            print(f"{ts.name}: {len(left)} text(s) to translate (marked unfinished):")
            for line in left:
                print("  " + line)
            status = 1
    return status



def screenshot(out: pathlib.Path, lang: str = "zh_CN") -> pathlib.Path:
    """The app in `lang` on the demo model: a node selected (properties and
    its editor), a search under way, the Run and Problems docks; saved to `out`."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    settings_dir = tempfile.mkdtemp(prefix="i18n-shot-")
    os.environ["ONNXSTUDIO_SETTINGS"] = str(pathlib.Path(settings_dir) / "settings.ini")
    import time
    from onnxstudio.app import create_application
    from onnxstudio.settings import Settings
    from onnxstudio.ui import i18n
    app = create_application()
    if i18n.install(lang, app) != lang:
        raise SystemExit(f"i18n: no compiled catalogue for {lang}")
    from onnxstudio.ui.main_window import MainWindow
    window = MainWindow(Settings())
    window.apply_theme("light")
    window.resize(1400, 900)
    window.show()

    def settle(predicate=lambda: True, timeout=120.0):
        end = time.time() + timeout
        while time.time() < end and not predicate():
            app.processEvents()
            time.sleep(0.01)
        for _ in range(20):
            app.processEvents()

    window.open_demo()
    settle(lambda: not window.busy and window.graph.scene.view_model is not None)
    window.show_search()
    window.search.edit.setText("conv")
    items = [i for i in window.graph.scene.node_items.values()
             if getattr(getattr(i.ref, "node", None), "attributes", None)]
    if items:
        items[0].setSelected(True)
    problems = window.edit_actions.problems_dock
    problems.show()
    from PySide6.QtCore import Qt
    window.resizeDocks([problems], [170], Qt.Vertical)
    settle()
    picture = window.grab()
    # The View menu and its Language submenu, open: popups are windows of
    # their own, so they are grabbed apart and drawn where they would be.
    from PySide6.QtGui import QPainter
    bar = window.menuBar()
    view_action = next(a for a in bar.actions() if a.menu() is window.view_menu)
    corner = bar.mapTo(window, bar.actionGeometry(view_action).bottomLeft())
    window.view_menu.popup(window.mapToGlobal(corner))
    settle()
    language = window.language_menu.menuAction()
    window.view_menu.setActiveAction(language)
    item = window.view_menu.actionGeometry(language)
    sub_corner = corner + item.topRight()
    window.language_menu.popup(window.mapToGlobal(sub_corner))
    settle()
    painter = QPainter(picture)
    painter.drawPixmap(corner, window.view_menu.grab())
    painter.drawPixmap(sub_corner, window.language_menu.grab())
    painter.end()
    window.language_menu.hide()
    window.view_menu.hide()
    out.parent.mkdir(parents=True, exist_ok=True)
    picture.save(str(out))
    window.shutdown()
    return out


if __name__ == "__main__":
    sys.exit(main())
