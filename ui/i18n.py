"""The app's language: Qt translators installed at start-up, and the
View ▸ Language menu.

Every user-visible text goes through Qt's translation: `self.tr("...")` in
QObject subclasses, `QCoreApplication.translate("Context", "...")` elsewhere
(tools/i18n.py extracts both with pyside6-lupdate into
resources/translations/onnxstudio_<lang>.ts and compiles the .qm files).
English is the source language, so "en" needs no translator.

The choice ("system", "en", "zh_CN") comes from the settings, `--lang`
overrides it for one session. A change in the menu is saved and takes
effect at the next start: widgets built from translated texts (menus,
docks, panels of three teams) are not rebuilt live.
"""
from __future__ import annotations

import pathlib

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QT_TRANSLATE_NOOP, QTranslator
from PySide6.QtGui import QAction, QActionGroup

# (code, name shown in the menu). A language's own name is not translated:
# whoever cannot read the current language still finds theirs.
LANGUAGES = (
    ("system", QT_TRANSLATE_NOOP("Language", "System Language")),
    ("en", "English"),
    ("zh_CN", "简体中文"),
)
CATALOGUE = "onnxstudio"

_installed: list[QTranslator] = []     # kept alive: Qt does not own installed translators
_current = "en"


def translations_dir() -> pathlib.Path:
    from onnxstudio import resources
    return pathlib.Path(resources.__file__).resolve().parent / "translations"


def available() -> list[str]:
    """Language codes with a compiled catalogue (English needs none)."""
    return ["en"] + sorted(p.stem[len(CATALOGUE) + 1:]
                           for p in translations_dir().glob(CATALOGUE + "_*.qm"))


def _load(locale: QLocale) -> QTranslator | None:
    """Our catalogue for `locale`, found the way Qt matches locales
    (zh_Hans_CN finds onnxstudio_zh_CN.qm; zh_TW finds nothing)."""
    translator = QTranslator()
    if translator.load(locale, CATALOGUE, "_", str(translations_dir()), ".qm"):
        return translator
    return None


def install(choice: str, app=None) -> str:
    """Install the translators for `choice` ("system", "en", "zh_CN", ...)
    on the application; returns the language now in effect ("en" when the
    choice has no catalogue). Calling it again replaces the previous ones."""
    global _current
    app = app or QCoreApplication.instance()
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    _current = "en"
    if choice == "en":
        return _current
    locale = QLocale.system() if choice == "system" else QLocale(choice)
    ours = _load(locale)
    if ours is None:
        return _current
    _installed.append(ours)
    # Qt's own texts (standard dialog buttons, file dialogs), when Qt ships them.
    qt = QTranslator()
    if qt.load(locale, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.TranslationsPath), ".qm"):
        _installed.append(qt)
    for translator in _installed:
        app.installTranslator(translator)
    _current = pathlib.Path(ours.filePath()).stem[len(CATALOGUE) + 1:] or choice
    return _current


def current() -> str:
    """The language the running app speaks ("en" or a catalogue's code)."""
    return _current


def _restart_message(code: str) -> str:
    """The notice in the chosen language (and the current one when they
    differ), so whoever picked it can read it."""
    source = QT_TRANSLATE_NOOP("Language", "The language changes when onnxstudio is started again.")
    here = QCoreApplication.translate("Language", source)
    there = source
    if code != "en":
        translator = _load(QLocale.system() if code == "system" else QLocale(code))
        if translator is not None:
            there = translator.translate("Language", source) or source
    return here if there == here else f"{there} / {here}"


def add_language_menu(window, menu) -> None:
    """View ▸ Language: System / English / 简体中文; the choice is saved."""
    submenu = menu.addMenu(QCoreApplication.translate("Language", "&Language"))
    group = QActionGroup(window)
    saved = window.settings.language()
    for code, name in LANGUAGES:
        text = QCoreApplication.translate("Language", name) if code == "system" else name
        action = QAction(text, window)
        action.setCheckable(True)
        action.setChecked(code == saved)
        action.setData(code)
        action.triggered.connect(lambda _=False, c=code: _choose(window, c))
        group.addAction(action)
        submenu.addAction(action)
    window.language_menu = submenu


def _choose(window, code: str) -> None:
    if code == window.settings.language():
        return
    window.settings.set_language(code)
    message = _restart_message(code)
    window.statusBar().showMessage(message, 15000)
    from PySide6.QtWidgets import QApplication, QMessageBox
    if QApplication.platformName() != "offscreen":
        QMessageBox.information(window, QCoreApplication.translate("Language", "Language"), message)
