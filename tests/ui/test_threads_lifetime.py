"""No QThread object is ever destroyed while its thread runs.

Qt aborts the whole process ("QThread: Destroyed while thread '' is still
running") when that happens, so each scenario runs in a child process: an
abort fails the test instead of killing pytest, and the child's stderr must
stay empty. The scenarios start background jobs and, without waiting, do what
replaces or destroys their owner: switch levels, open another model, close
and delete the window, cancel a run while the window closes.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

from shared_models import shared_models_root
import pytest

# Each test drives the app in a child process for several seconds.
pytestmark = pytest.mark.slow

PRELUDE = textwrap.dedent("""
    import faulthandler, os, sys
    faulthandler.enable()                                # a crash prints every thread's stack to stderr
    faulthandler.dump_traceback_later(240, exit=True)   # a hang fails with every thread's stack
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from onnxstudio.app import create_application
    app = create_application()
    from PySide6.QtCore import QCoreApplication, QSettings, QTimer
    from onnxstudio.ui.settings import Settings
    from onnxstudio.ui.main_window import MainWindow

    def new_window():
        win = MainWindow(Settings(QSettings(sys.argv[1], QSettings.IniFormat)))
        win.resize(1000, 700)
        win.show()
        return win

    def settle(win, ms=60000):
        from PySide6.QtCore import QElapsedTimer
        t = QElapsedTimer(); t.start()
        while win.busy and t.elapsed() < ms:
            QCoreApplication.processEvents()
        assert not win.busy, "still busy"

    def destroy(win):
        import shiboken6
        win.close()
        shiboken6.delete(win)           # the C++ window and every child, now
        QCoreApplication.processEvents()

    def then_branch(win):
        node = next(n for n in win.model.graph.nodes if n.op_type == "If")
        return node.attributes["then_branch"].value
""")


def _run_child(tmp_path, body: str, *models) -> None:
    script = tmp_path / "child.py"
    script.write_text(PRELUDE + textwrap.dedent(body) + "\nprint('CLEAN EXIT')\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = subprocess.run([sys.executable, str(script), str(tmp_path / "child.ini"), *map(str, models)],
                           env=env, capture_output=True, text=True, timeout=600)
    assert child.returncode == 0, f"child exited with {child.returncode}:\n{child.stderr[-3000:]}"
    assert child.stdout.strip().endswith("CLEAN EXIT"), child.stdout[-2000:]
    # The offscreen platform itself says this for every shown window.
    noise = "This plugin does not support propagateSizeHints()"
    stderr = "".join(line for line in child.stderr.splitlines(True) if line.strip() != noise)
    assert stderr == "", stderr[-3000:]


def test_switching_levels_and_models_while_layouts_run(tmp_path):
    root = shared_models_root()
    _run_child(tmp_path, """
        silero, bert = sys.argv[2], sys.argv[3]
        win = new_window()
        win.open_path(silero); settle(win)
        body = then_branch(win)
        for i in range(12):
            # Each call replaces the running layout with a new one at once.
            win.graph.enter_graph(body)
            win.graph.go_back()
            win.graph.enter_graph(body)
            win.graph.go_to_level(0)
            QCoreApplication.processEvents()
        win.open_path(bert)             # while a layout of silero still runs
        QCoreApplication.processEvents()
        win.open_path(silero)
        settle(win)
        win.graph.enter_graph(then_branch(win))
        win.graph.go_back()
        win.open_path(bert)
        destroy(win)                    # a layout is cancelled, a load runs
    """, root / "silero_vad" / "model.onnx", root / "bert_small" / "model.onnx")


def test_closing_and_deleting_windows_with_jobs_running(tmp_path):
    root = shared_models_root()
    _run_child(tmp_path, """
        silero, bert = sys.argv[2], sys.argv[3]
        for i in range(6):
            win = new_window()
            win.open_path(bert if i % 2 else silero)
            for _ in range(i * 3):
                QCoreApplication.processEvents()
            destroy(win)                # loading, laying out or analysing
        win = new_window()
        win.open_path(silero); settle(win)
        win.graph.enter_graph(then_branch(win))
        win.close()
        # Actions still fired at the closed window (a script's timer) start
        # jobs again; quitting must wait for them too.
        win.graph.go_back()
        win.open_path(bert)
        # As onnxstudio.app.main ends: the event loop quits, runners wait.
        QTimer.singleShot(50, lambda: app.exit(0))   # quit() asks windows to close first
        app.exec()
        del win
    """, root / "silero_vad" / "model.onnx", root / "bert_small" / "model.onnx")


def test_run_cancelled_while_the_window_closes(tmp_path):
    root = shared_models_root()
    _run_child(tmp_path, """
        model = sys.argv[2]
        for i in range(4):
            win = new_window()
            win.open_path(model); settle(win)
            controller = win.run_ui.controller
            assert controller.run_all()
            for _ in range(i):
                QCoreApplication.processEvents()
            controller.cancel()
            destroy(win)
        win = new_window()
        win.open_path(model); settle(win)
        assert win.run_ui.controller.run_all()
        destroy(win)                    # no cancel first: closing must stop it
    """, root / "bert_small" / "model.onnx")


def test_every_menu_action_inside_an_if_body_then_quit(tmp_path):
    # The QA script that once aborted: silero_vad, If_0 › then_branch, every
    # menu action with a timer closing whatever dialog it opens, Quit last.
    # File ▸ Save is among those actions: it saves over the file it opened,
    # so the window opens a copy, never the shared model itself.
    working_copy = tmp_path / "silero_vad.onnx"
    shutil.copyfile(shared_models_root() / "silero_vad" / "model.onnx", working_copy)
    _run_child(tmp_path, """
        from PySide6.QtWidgets import QApplication
        win = new_window()
        win.open_path(sys.argv[2]); settle(win)
        win.graph.enter_graph(then_branch(win)); settle(win)

        def close_dialogs():
            for w in (QApplication.activePopupWidget(), QApplication.activeModalWidget()):
                if w is not None:
                    w.close()
        closer = QTimer(); closer.timeout.connect(close_dialogs); closer.start(30)
        quit_action, triggered = None, 0
        for menu_action in win.menuBar().actions():
            menu = menu_action.menu()
            for action in (menu.actions() if menu is not None else []):
                if action.isSeparator() or action.menu() is not None or not action.isEnabled():
                    continue
                if action.text().replace("&", "") == "Quit":
                    quit_action = action
                    continue
                action.trigger()
                triggered += 1
                QCoreApplication.processEvents()
        assert quit_action is not None and triggered > 30, triggered
        quit_action.trigger()           # jobs the actions started may still run
        # As onnxstudio.app.main ends: queued results arrive (and may start
        # a layout), then the event loop quits and every runner waits.
        QTimer.singleShot(50, lambda: app.exit(0))   # quit() asks windows to close first
        app.exec()
        del win
    """, working_copy)
