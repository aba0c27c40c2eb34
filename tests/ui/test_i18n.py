"""The app in Simplified Chinese: every user-visible text goes through Qt's
translation, the zh_CN catalogue translates all of them, and the running
app shows no English where a translation exists.

Three views of "untranslated":
- sources: a text literal handed to a widget (labels, buttons, menus,
  actions, tooltips, dialog titles/messages, status bar, headers) that is
  not wrapped in tr()/translate() fails, naming file and line;
- catalogue: lupdate run on today's sources against the committed .ts
  finds no new or unfinished entry, and the committed .qm is compiled from it;
- the app: built in zh_CN on the demo model, no menu, action, dock title,
  label or button shows an English text of the catalogue.
Operator names, ONNX field names and value names are not translated: they
come from the model or are names of the spec (see NOT_LANGUAGE).
"""
from __future__ import annotations

import ast
import pathlib
import re
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import i18n as i18n_tool  # noqa: E402  (tools/i18n.py)

TS = i18n_tool.ts_path("zh_CN")
QM = i18n_tool.qm_path("zh_CN")

# Widget methods whose positional arguments at these indexes are shown to users.
TEXT_ARGS = {
    "setText": (0,), "setToolTip": (0,), "setStatusTip": (0,), "setWhatsThis": (0,),
    "setWindowTitle": (0,), "setPlaceholderText": (0,), "setTitle": (0,), "setLabelText": (0,),
    "setSpecialValueText": (0,), "showMessage": (0,), "addMenu": (0, 1), "addAction": (0, 1),
    "addTab": (1, 2), "insertTab": (2, 3), "setTabText": (1,), "setTabToolTip": (1,),
    "setHorizontalHeaderLabels": (0,), "setVerticalHeaderLabels": (0,), "setHeaderLabels": (0,),
    "addRow": (0,), "setItemText": (1,), "setPrefix": (0,), "setSuffix": (0,),
    "setInformativeText": (0,), "setDetailedText": (0,), "setNameFilter": (0,),
    "setNameFilters": (0,), "setButtonText": (1,), "addButton": (0,), "setCheckBoxText": (0,),
    "getOpenFileName": (1, 3), "getSaveFileName": (1, 3), "getOpenFileNames": (1, 3),
    "getExistingDirectory": (1,), "critical": (1, 2), "warning": (1, 2), "information": (1, 2),
    "question": (1, 2), "about": (1, 2), "getText": (1, 2), "getInt": (1, 2),
    "getDouble": (1, 2), "getItem": (1, 2), "addToolBar": (0,), "addItem": (0,), "addItems": (0,),
    # the app's own helpers that put a text on screen
    "_error": (0, 1), "_action": (1,), "_set_busy": (0,), "ask": (0, 1), "warn": (0, 1),
    "report_unexpected": (0,), "_refuse": (0,), "choose_op": (0,), "_build": (0,), "Macro": (1,),
    "section": (0,),
}
# Widget classes whose constructor's positional arguments at these indexes are texts.
TEXT_CTORS = {"QAction": (0, 1), "QLabel": (0,), "QPushButton": (0, 1), "QCheckBox": (0,),
              "QRadioButton": (0,), "QGroupBox": (0,), "QDockWidget": (0,), "QMenu": (0,),
              "QToolBar": (0,), "QCommandLinkButton": (0, 1), "QToolButton": (),
              "QListWidgetItem": (0,), "QTreeWidgetItem": (0,), "QTableWidgetItem": (0,)}
TEXT_KEYWORDS = {"text", "toolTip", "title", "windowTitle", "placeholderText", "statusTip"}
WRAPPERS = {"tr", "translate", "QT_TRANSLATE_NOOP", "QT_TR_NOOP"}
# Words that stay as they are in every language: the product, formats, the spec's names.
# (ai.onnx is a domain, RGB/BGR and NCHW/NHWC are layouts.)
NOT_LANGUAGE = re.compile(r"onnxstudio|ONNX|onnxruntime|SVG|PNG|NaN|Inf|\bdot\b|ai\.onnx(\.ml)?|RGB|BGR|NCHW|NHWC")


def _spec_names() -> set[str]:
    """Names a text may be made of without being language: ONNX field and
    enum value names (from our onnx.proto) and operator names."""
    proto = (ROOT / "core" / "proto" / "onnx.proto").read_text(encoding="utf-8")
    names = set(re.findall(r"(\w+)\s*=\s*\d+\s*[;\[]", proto))
    from onnxstudio.core import schemas
    names.update(s.name for s in schemas.all_schemas())
    return names


SPEC_NAMES = _spec_names()


def _wrapped(node) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        if name in WRAPPERS:
            return True
        if name in ("format", "arg") and isinstance(func, ast.Attribute):
            return _wrapped(func.value)
    return False


def _language(text: str) -> bool:
    """Whether a literal holds words someone would translate (an ONNX field,
    enum value or operator name alone is not: those stay untranslated)."""
    if text.strip() in SPEC_NAMES:
        return False
    return re.search(r"[A-Za-z]{2,}", NOT_LANGUAGE.sub("", text)) is not None


def _unwrapped_literals(node) -> list[str]:
    if node is None or _wrapped(node):
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if _language(node.value) else []
    if isinstance(node, ast.JoinedStr):
        literal = "".join(v.value for v in node.values if isinstance(v, ast.Constant))
        return [ast.unparse(node)] if _language(literal) else []
    if isinstance(node, ast.IfExp):
        return _unwrapped_literals(node.body) + _unwrapped_literals(node.orelse)
    if isinstance(node, ast.BinOp):
        return _unwrapped_literals(node.left) + _unwrapped_literals(node.right)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [text for e in node.elts for text in _unwrapped_literals(e)]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "format"):
        return _unwrapped_literals(node.func.value)
    return []


def _call_name(node) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _unextractable(tree) -> list[tuple[int, str]]:
    """Translation calls lupdate cannot see or files under another context
    than the one looked up at run time."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Call) and _call_name(inner) in WRAPPERS:
                    found.append((node.lineno, "tr() inside an f-string (lupdate skips it)"))
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = _call_name(node)
        first = node.args[0]
        literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
        if name == "tr" and literal:
            func = node.func
            if isinstance(func, ast.Name):
                found.append((node.lineno, "bare tr(): lupdate files it under an empty context"))
            elif not (isinstance(func.value, ast.Name) and func.value.id in ("self", "cls")):
                found.append((node.lineno, f"{ast.unparse(func)}(): lupdate files it under "
                                           f"'{ast.unparse(func.value)}', not the class"))
        elif literal and name != "tr" and name.strip("_").startswith("tr") and len(name) <= 4:
            found.append((node.lineno, f"{name}(): lupdate does not extract it"))
    return found


def unwrapped_texts(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = [f"{path.relative_to(root)}:{line}: {why}" for line, why in _unextractable(tree)]
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute):
            indexes = TEXT_ARGS.get(func.attr, TEXT_CTORS.get(func.attr))
        else:
            indexes = TEXT_CTORS.get(getattr(func, "id", ""))
        if indexes is None:
            continue
        args = [node.args[i] for i in indexes if i < len(node.args)]
        args += [k.value for k in node.keywords if k.arg in TEXT_KEYWORDS]
        for arg in args:
            for text in _unwrapped_literals(arg):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {text!r}")
    return found


def test_every_text_handed_to_a_widget_is_translatable():
    found = [line for path in i18n_tool.sources() for line in unwrapped_texts(path)]
    assert not found, ("texts shown without tr()/translate() (wrap them, then run "
                       "python tools/i18n.py and translate):\n" + "\n".join(found))


def test_the_scan_sees_what_it_should(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text(
        "label = QLabel('Plain text')\n"
        "label.setToolTip(f'{n} nodes')\n"
        "menu.addAction(self.tr('Wrapped'))\n"
        "bar.showMessage(self.tr('Saved {p}').format(p=p))\n"
        "box.setText('→ 3')\n"
        "w.setWindowTitle(f'{name} — onnxstudio')\n"
        "QMessageBox.warning(self, 'Title', message)\n"
        "form.addRow('doc_string', edit)\n"
        "combo.addItems(['Conv', 'MatMul'])\n"
        "label.setText(f\"<b>{self.tr('Bold')}</b>\")\n"
        "def f():\n    return tr('Bare')\n"
        "x = self.panel.tr('Other object')\n"
        "y = _tr('Helper')\n", encoding="utf-8")
    found = sorted(line.split(": ", 1)[1] for line in unwrapped_texts(sample, tmp_path))
    assert found == sorted(["'Plain text'", "\"f'{n} nodes'\"", "'Title'",
                            "tr() inside an f-string (lupdate skips it)",
                            "bare tr(): lupdate files it under an empty context",
                            "self.panel.tr(): lupdate files it under 'self.panel', not the class",
                            "_tr(): lupdate does not extract it"])


def test_catalogue_covers_the_sources_and_is_compiled(tmp_path):
    fresh = tmp_path / TS.name
    shutil.copy(TS, fresh)
    i18n_tool.lupdate(fresh)          # today's sources against the committed translations
    missing = i18n_tool.unfinished(fresh)
    assert not missing, ("texts without a zh_CN translation (run python tools/i18n.py, translate "
                         f"them in {TS.relative_to(ROOT)}, run it again):\n" + "\n".join(missing))
    assert not i18n_tool.unfinished(TS)
    assert not i18n_tool.stale_qm("zh_CN"), f"{QM.name} is older than {TS.name}: run tools/i18n.py"
    # A context must be what the code looks up at run time: a class name or an explicit one.
    contexts = {context for context, *_ in i18n_tool.entries(fresh)}
    assert all(c.isidentifier() for c in contexts), sorted(c for c in contexts if not c.isidentifier())


def test_every_question_button_has_a_translation():
    """Prompter.ask(title, text, buttons, default) answers with the English
    label (callers compare it) and shows it translated under "Prompter"."""
    known = {source for context, source, *_ in i18n_tool.entries(TS) if context == "Prompter"}
    missing = []
    for path in i18n_tool.sources():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _call_name(node) == "ask" and len(node.args) > 2 \
                    and isinstance(node.args[2], ast.Tuple):
                for label in node.args[2].elts:
                    if isinstance(label, ast.Constant) and label.value not in known:
                        missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {label.value!r}")
    assert not missing, ("button labels not registered with QT_TRANSLATE_NOOP(\"Prompter\", ...) "
                         "(ui/dialogs.py):\n" + "\n".join(missing))


def test_translations_keep_placeholders_and_accelerators():
    problems = []
    for context, source, _comment, texts, done in i18n_tool.entries(TS):
        if not done:
            continue            # reported by the catalogue test
        for text in texts:
            if sorted(re.findall(r"\{[^{}]*\}", source)) != sorted(re.findall(r"\{[^{}]*\}", text)):
                problems.append(f"{context}: {source!r} → {text!r}: placeholders differ")
            if ("%n" in source) != ("%n" in text):
                problems.append(f"{context}: {source!r} → {text!r}: %n differs")
            if len(re.findall(r"&(?=[^&\s])", source)) != len(re.findall(r"&(?=[^&\s])", text)):
                problems.append(f"{context}: {source!r} → {text!r}: accelerator (&) differs")
    assert not problems, "\n".join(problems)


def test_catalogue_is_found_for_chinese_locales_only():
    from PySide6.QtCore import QLocale
    from onnxstudio.ui import i18n
    assert i18n._load(QLocale("zh_CN")) is not None
    assert i18n._load(QLocale(QLocale.Chinese, QLocale.SimplifiedHanScript, QLocale.China)) is not None
    assert i18n._load(QLocale("zh_TW")) is None      # Traditional Chinese: English, not zh_CN
    assert i18n._load(QLocale("fr_FR")) is None
    assert "zh_CN" in i18n.available()


def test_lang_option_and_settings_choose_the_language(qapp):
    from onnxstudio import app
    from onnxstudio.ui import i18n
    assert app._parser().parse_args(["--lang", "zh_CN", "m.onnx"]).lang == "zh_CN"
    with pytest.raises(SystemExit):
        app._parser().parse_args(["--lang", "klingon"])
    try:
        assert i18n.install("zh_CN") == "zh_CN"
        from PySide6.QtCore import QCoreApplication
        assert QCoreApplication.translate("MainWindow", "&File") == "文件(&F)"
        assert i18n.install("en") == "en"
        assert QCoreApplication.translate("MainWindow", "&File") == "&File"
        assert i18n.install("fr") == "en"          # no catalogue: English
    finally:
        i18n.install("en")


CJK = re.compile(r"[\u3400-\u9fff]")


def _shown_texts(win):
    """(where, text) of what the window shows in its own words: menus and
    their actions, docks, toolbars, labels, buttons, placeholders, combo
    items, tree headers, tooltips, and the lines of rich-text panels."""
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QDockWidget, QGroupBox, QLabel,
                                   QLineEdit, QMenu, QTextBrowser, QToolBar, QTreeWidget)

    def walk_menu(menu, where):
        yield where, menu.title()
        for action in menu.actions():
            if action.isSeparator():
                continue
            if action.menu() is not None:
                yield from walk_menu(action.menu(), f"{where} ▸ {action.text()}")
            else:
                yield f"{where} ▸", action.text()
                if action.toolTip() and action.toolTip() != action.text().replace("&", ""):
                    yield f"{where} ▸ {action.text()} tooltip", action.toolTip()

    for action in win.menuBar().actions():
        if action.menu() is not None:
            yield from walk_menu(action.menu(), "menu")
    for dock in win.findChildren(QDockWidget):
        yield "dock", dock.windowTitle()
    for bar in win.findChildren(QToolBar):
        yield "toolbar", bar.windowTitle()
        for action in bar.actions():
            if not action.isSeparator():
                yield "toolbar action", action.text()
                yield "toolbar tooltip", action.toolTip()
    for widget in win.findChildren(QLabel) + win.findChildren(QAbstractButton):
        yield type(widget).__name__, re.sub(r"<[^>]+>", "", widget.text())
        yield f"{type(widget).__name__} tooltip", widget.toolTip()
    for edit in win.findChildren(QLineEdit):
        yield "placeholder", edit.placeholderText()
    for box in win.findChildren(QGroupBox):
        yield "group box", box.title()
    for combo in win.findChildren(QComboBox):
        for i in range(combo.count()):
            yield "combo item", combo.itemText(i)
    for tree in win.findChildren(QTreeWidget):
        header = tree.headerItem()
        for column in range(header.columnCount()):
            yield "tree header", header.text(column)
    for browser in win.findChildren(QTextBrowser):
        for line in browser.toPlainText().splitlines():
            for cell in line.split("\t"):
                yield "panel text", cell
    for menu in win.findChildren(QMenu):
        yield "menu", menu.title()


def _model_names(model) -> set[str]:
    """Names the model itself brings (values, nodes, graphs, symbolic dims)."""
    names = set()
    for graph in model.graph.walk():
        names.add(graph.name or "")
        for node in graph.nodes:
            names.update((node.name or "", node.op_type))
        for value in graph.values().values():
            names.add(value.name)
            shape = getattr(getattr(value, "type", None), "shape", None) or ()
            names.update(str(d) for d in shape)
    return names


def _english_left(win, english) -> tuple[list, list]:
    untranslated, no_chinese = [], []
    own = _model_names(win.model) if win.model is not None else set()
    for where, text in _shown_texts(win):
        plain = re.sub(r"\(&\w\)|&", "", text).strip()
        if not plain or plain in SPEC_NAMES or plain.upper() in SPEC_NAMES or plain in own:
            continue        # a name of the spec or of the model: shown as it is
        if plain in english:
            untranslated.append(f"{where}: {text!r}")
        if where.startswith(("menu", "dock")) and not CJK.search(plain) and _language(plain):
            if plain not in ("English", "onnxstudio"):
                no_chinese.append(f"{where}: {text!r}")
    return untranslated, no_chinese


def test_the_app_in_chinese_shows_no_english_of_the_catalogue(qtbot, tmp_path):
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui import i18n
    from onnxstudio.ui.main_window import MainWindow
    from viewer_helpers import wait_idle

    english = {source.replace("&", "").strip() for _c, source, _m, _t, _d in i18n_tool.entries(TS)
               if _language(source)}
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    assert i18n.install("zh_CN") == "zh_CN"
    try:
        win = MainWindow(settings)
        qtbot.addWidget(win)
        win.resize(1200, 800)
        win.show()
        win.open_demo()
        wait_idle(qtbot, win)
        found = []

        def look(state):
            qtbot.wait(50)
            untranslated, no_chinese = _english_left(win, english)
            found.extend(f"[{state}] {line}" for line in untranslated + no_chinese)

        look("model open")
        # A node with attributes: its summary and the node editor.
        item = next(i for i in win.graph.scene.node_items.values()
                    if getattr(getattr(i.ref, "node", None), "attributes", None))
        item.setSelected(True)
        look("node selected")
        from onnxstudio.core.edits import SetAttribute, graph_path, node_ref
        node = item.ref.node
        name, attr = next(iter(node.attributes.items()))
        assert win.qdoc.apply(SetAttribute(node_ref(node), name, int(attr.type), attr.value,
                                           graph=graph_path(node.graph)))
        look("after an edit")
        assert win.edit_actions.undo_action.text() == f"撤销 设置属性 {name}(&U)"
        value = next(v for v in win.model.graph.values().values() if v.is_initializer)
        win.properties.show_value(value)
        look("initializer shown")
        win.show_search()
        win.search.edit.setText("conv")
        win.edit_actions.history_dock.show()
        win.edit_actions.problems_dock.show()
        look("search, history and problems")
        assert not found, "shown in English although translated:\n" + "\n".join(found)
        assert win.menuBar().actions()[0].text() == "文件(&F)"
        assert win.properties_dock.objectName() == "Properties"   # the saved layout's key
        win.shutdown()
    finally:
        i18n.install("en")


def test_language_menu_saves_the_choice_for_the_next_start(window):
    from onnxstudio.ui import i18n
    actions = {a.data(): a for a in window.language_menu.actions()}
    assert list(actions) == [code for code, _ in i18n.LANGUAGES]
    assert actions["system"].isChecked()
    actions["zh_CN"].trigger()
    assert window.settings.language() == "zh_CN"
    message = window.statusBar().currentMessage()
    assert "重新启动" in message and "started again" in message   # readable in both languages
    assert actions["zh_CN"].isChecked() and not actions["system"].isChecked()
    assert i18n.current() == "en"       # this session keeps its language


@pytest.mark.parametrize("locale, expected", [("zh_CN.UTF-8", "zh_CN"), ("en_US.UTF-8", "en"),
                                              ("zh_TW.UTF-8", "en"), ("de_DE.UTF-8", "en")])
def test_the_language_follows_the_system_locale(locale, expected):
    """"system" (the default) picks zh_CN on a Simplified Chinese desktop,
    English elsewhere; Qt's own texts (dialog buttons) follow."""
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANGUAGE"}
    env.update(LANG=locale, LC_ALL=locale, QT_QPA_PLATFORM="offscreen")
    script = ("from onnxstudio.app import create_application\n"
              "from onnxstudio.ui import i18n\n"
              "from PySide6.QtCore import QCoreApplication\n"
              "app = create_application()\n"
              "print(i18n.install('system'))\n"
              "print(QCoreApplication.translate('MainWindow', '&File'))\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                          timeout=120, check=True)
    language, file_menu = done.stdout.split()
    assert language == expected
    assert file_menu == ("文件(&F)" if expected == "zh_CN" else "&File")


def test_onnxstudio_lang_zh_CN_starts_the_app_in_chinese(qapp, tmp_path, monkeypatch):
    """`onnxstudio --lang zh_CN` through the real entry point: the window is
    built in Chinese although the saved choice says English."""
    from PySide6.QtCore import QSettings, QTimer
    from PySide6.QtWidgets import QApplication
    from onnxstudio import app
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui import i18n
    from onnxstudio.ui.main_window import MainWindow
    settings_file = tmp_path / "settings.ini"
    monkeypatch.setenv("ONNXSTUDIO_SETTINGS", str(settings_file))
    Settings(QSettings(str(settings_file), QSettings.IniFormat)).set_language("en")
    seen = {}
    # Windows of earlier tests may not be deleted yet: look at the one app.main makes.
    earlier = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]

    def look_and_quit():
        window = next(w for w in QApplication.topLevelWidgets()
                      if isinstance(w, MainWindow) and not any(w is e for e in earlier))
        seen["menus"] = [a.text() for a in window.menuBar().actions()]
        seen["saved"] = window.settings.language()
        window.close()
        window.deleteLater()
        QApplication.quit()

    QTimer.singleShot(0, look_and_quit)
    try:
        assert app.main(["--lang", "zh_CN"]) == 0
    finally:
        i18n.install("en")
    assert seen["menus"][:3] == ["文件(&F)", "编辑(&E)", "视图(&V)"]
    assert seen["saved"] == "en"          # --lang is for this session only


FIELD_WORDS = {"verb": ["Set", "Remove"], "decl": ["input", "output", "value_info"]}


def _name_samples(node) -> list[str]:
    """The texts an f-string / constant / conditional / concatenation can
    give, each field filled with a sample word."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        texts = [""]
        for value in node.values:
            if isinstance(value, ast.Constant):
                choices = [value.value]
            else:
                # Fields that pick a word in code get the words they can be.
                field = ast.unparse(value.value)
                choices = (FIELD_WORDS.get(field.rsplit(".", 1)[-1])
                           or ["'v1'" if value.conversion == ord("r") else "v1"])
            texts = [t + c for t in texts for c in choices]
        return texts
    if isinstance(node, ast.IfExp):
        return _name_samples(node.body) + _name_samples(node.orelse)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return [a + b for a in _name_samples(node.left) for b in _name_samples(node.right)]
    return []


def core_step_names() -> list[str]:
    """Every step name core.edits can make: what describe() returns and the
    names its compound edits give their Macros (fields filled with samples)."""
    names = []
    for path in sorted((ROOT / "core" / "edits").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name == "describe":
                for ret in ast.walk(node):
                    if isinstance(ret, ast.Return) and ret.value is not None:
                        names += _name_samples(ret.value)
            elif isinstance(node, ast.Call) and _call_name(node) == "Macro" and len(node.args) > 1:
                names += _name_samples(node.args[1])
    return [n.replace("v1", "3") if re.search(r"(input|nodes by) v1\b", n) else n for n in names]


def test_core_step_names_are_shown_in_chinese(qapp):
    """The history dock and Undo/Redo show core's English step names through
    ui/step_names.py: every name core.edits makes has a pattern there."""
    from onnxstudio.ui import i18n
    from onnxstudio.ui.step_names import display_name
    names = core_step_names()
    assert len(names) > 30 and "Clean up" in names
    try:
        i18n.install("zh_CN")
        english = [n for n in names if not CJK.search(display_name(n))]
        assert not english, ("core step names without a pattern in ui/step_names.py:\n"
                             + "\n".join(english))
        assert display_name("Set attribute kernel_shape") == "设置属性 kernel_shape"
        assert display_name('Add Relu "r1"') == "添加 Relu“r1”"
        assert display_name("a name no pattern knows") == "a name no pattern knows"
    finally:
        i18n.install("en")
    assert display_name("Insert Relu after x") == "Insert Relu after x"


# -- The Problems dock: what each diagnostic code means, in Chinese ----------

ONNX_TERMS = re.compile(r"\b[a-z]+(?:_[a-z]+)+\b|\b[A-Z][A-Z0-9]+\b|\bint64\b|\bopset\b|\boverload\b")


def test_every_diagnostic_code_has_a_meaning_translated():
    """ui/code_meanings.py is what tools/i18n.py makes from today's
    core.diagnostics.CODES, and the catalogue translates each meaning,
    keeping the ONNX names (ir_version, value_info, opset, SSA…) as they are."""
    from onnxstudio.core.diagnostics import CODES
    from onnxstudio.ui import code_meanings
    assert not i18n_tool.stale_code_meanings(), "ui/code_meanings.py is stale: run python tools/i18n.py"
    assert code_meanings.MEANINGS == {code: meaning for code, (_sev, meaning) in CODES.items()}
    assert len(CODES) > 90
    translated = {source: (texts, done) for context, source, _c, texts, done in i18n_tool.entries(TS)
                  if context == code_meanings.CONTEXT}
    problems = []
    for code, meaning in code_meanings.MEANINGS.items():
        texts, done = translated.get(meaning, ([], False))
        if not done:
            problems.append(f"{code}: {meaning!r} has no finished zh_CN translation")
            continue
        text = texts[0]
        if not CJK.search(text):
            problems.append(f"{code}: {meaning!r} → {text!r} is not Chinese")
        kept = [term for term in ONNX_TERMS.findall(meaning) if term not in text]
        if kept:
            problems.append(f"{code}: {meaning!r} → {text!r} lost {kept}")
    assert not problems, "\n".join(problems)


def test_a_stale_code_table_is_reported(tmp_path, monkeypatch, capsys):
    """A code added to core without regenerating: --check says so; a run
    writes the table (and lupdate then finds its meaning as a new text)."""
    table = tmp_path / "code_meanings.py"
    monkeypatch.setattr(i18n_tool, "CODE_MEANINGS", table)
    assert i18n_tool.stale_code_meanings()
    assert i18n_tool.write_code_meanings()
    assert not i18n_tool.stale_code_meanings() and not i18n_tool.write_code_meanings()
    codes = dict(i18n_tool.diagnostic_codes())
    codes["future.code"] = (codes["check.internal"][0], 'a "quoted" \\ meaning')
    text = i18n_tool.code_meanings_source(codes)
    space: dict = {}
    exec(compile(text, str(table), "exec"), space)
    assert space["MEANINGS"]["future.code"] == 'a "quoted" \\ meaning'
    table.write_text(text, encoding="utf-8")
    assert i18n_tool.stale_code_meanings()
    assert i18n_tool.main(["--check"]) == 1
    assert "code_meanings.py: stale" in capsys.readouterr().out


def _broken_model(path):
    """Three problems: an input nothing defines, an operator that does not
    exist, value_info for a name nothing defines."""
    import onnx
    from onnx import TensorProto, helper
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])
    nodes = [helper.make_node("Relu", ["x_missing"], ["r"], name="relu1"),
             helper.make_node("Reluu", ["r"], ["y"], name="typo"),
             helper.make_node("Relu", ["x"], ["z"], name="relu2")]
    graph = helper.make_graph(nodes, "broken", [x], [y],
                              value_info=[helper.make_tensor_value_info("nothing", TensorProto.FLOAT, [1])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    return path


def _problem_rows(qtbot, win):
    panel = win.edit_actions.problems
    panel.severity.setCurrentIndex(2)          # everything
    qtbot.waitUntil(lambda: win.qdoc is not None and win.qdoc.ready, timeout=60_000)
    qtbot.waitUntil(lambda: panel.tree.topLevelItemCount() >= 3, timeout=60_000)
    tree = panel.tree
    return panel, {tree.topLevelItem(i).text(2): tree.topLevelItem(i) for i in range(tree.topLevelItemCount())}


def _diagnostic(item):
    from PySide6.QtCore import Qt
    return item.data(0, Qt.UserRole)


def _window_on(qtbot, tmp_path, model):
    from PySide6.QtCore import QSettings
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow
    from viewer_helpers import open_model
    win = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(win)
    win.resize(1200, 800)
    win.show()
    open_model(qtbot, win, model)
    return win


def test_problems_dock_shows_what_a_code_means_in_chinese(qtbot, tmp_path):
    from onnxstudio.core.diagnostics import Diagnostic, Severity
    from onnxstudio.ui import i18n
    model = _broken_model(tmp_path / "broken.onnx")
    assert i18n.install("zh_CN") == "zh_CN"
    try:
        win = _window_on(qtbot, tmp_path, model)
        panel, rows = _problem_rows(qtbot, win)
        assert {"graph.undefined-input", "node.unknown-op", "graph.value-info-unused"} <= set(rows)
        undefined = rows["graph.undefined-input"]
        message = _diagnostic(undefined).message
        assert "'x_missing'" in message
        # The Chinese meaning first, then core's English message as it is.
        assert undefined.text(3) == f"节点输入未定义：{message}"
        assert undefined.toolTip(3) == f"节点输入未定义\n{message}"
        assert undefined.toolTip(2) == "节点输入未定义"
        assert rows["node.unknown-op"].text(3).startswith("标准域中没有这个算子：")
        assert rows["graph.value-info-unused"].text(3).startswith("value_info 描述的名称未被定义：")
        for item in rows.values():
            assert CJK.search(item.text(3)) and item.text(3).endswith(_diagnostic(item).message)

        # The filter finds the Chinese meaning, and still the path, code and message.
        def shown(words):
            panel.filter.setText(words)
            return sorted(panel.tree.topLevelItem(i).text(2) for i in range(panel.tree.topLevelItemCount()))
        assert shown("定义") == ["graph.undefined-input", "graph.value-info-unused"]
        assert shown("输入未定义") == ["graph.undefined-input"]
        assert shown("算子") == ["node.unknown-op"]
        assert shown("Reluu") == ["node.unknown-op"]
        assert shown("graph.undefined") == ["graph.undefined-input"]
        assert shown('"relu1"') == ["graph.undefined-input"]
        assert shown("没有这样的文字") == []
        panel.filter.setText("")

        # A code the table does not know (added to core later): the message alone.
        panel.diagnostics = [Diagnostic(Severity.ERROR, "future.new-check", "graph", "something new went wrong"),
                             Diagnostic(Severity.WARNING, "future.silent", "graph", "")]
        panel._fill()
        first, second = panel.tree.topLevelItem(0), panel.tree.topLevelItem(1)
        assert first.text(3) == "something new went wrong" == first.toolTip(3)
        assert first.toolTip(2) == ""
        assert second.text(3) == "future.silent"            # never an empty cell
        assert shown("new went") == ["future.new-check"]
        win.shutdown()
    finally:
        i18n.install("en")


def test_problems_dock_in_english_shows_the_message_alone(qtbot, tmp_path):
    """English rows read as before; hovering the code or the message tells
    what the code means."""
    from onnxstudio.ui import i18n
    assert i18n.install("en") == "en"
    win = _window_on(qtbot, tmp_path, _broken_model(tmp_path / "broken.onnx"))
    try:
        panel, rows = _problem_rows(qtbot, win)
        for item in rows.values():
            d = _diagnostic(item)
            assert item.text(3) == d.message and not CJK.search(item.toolTip(3))
        undefined = rows["graph.undefined-input"]
        assert undefined.toolTip(2) == "a node input that nothing defines"
        assert undefined.toolTip(3) == f"a node input that nothing defines\n{undefined.text(3)}"
        # The meaning is not in the row, so the filter does not look at it.
        panel.filter.setText("nothing defines")
        assert panel.tree.topLevelItemCount() == 1        # value_info's message says "nothing defines"
        # Every code fits its column.
        metrics = panel.tree.fontMetrics()
        assert panel.tree.columnWidth(2) > metrics.horizontalAdvance("graph.declared-type-contradicts")
    finally:
        win.shutdown()
