"""The bundle's program: the same `onnxstudio` command as the pip install.

ONNXSTUDIO_SMOKE_PNG=FILE turns `onnxstudio --demo` into a self-test for the
bundle smoke test: once the model is laid out and painted, the window is
saved to FILE and closed, so the app quits through its normal path.
"""
import os
import sys


def _arm_smoke_test(png: str) -> None:
    from onnxstudio import app

    create = app.create_application

    def create_and_watch(argv=None):
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
        qapp = create(argv)
        timer = QTimer(qapp)
        waited = {"ticks": 0}

        def check():
            from onnxstudio.ui.main_window import MainWindow
            waited["ticks"] += 1
            windows = [w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)]
            if not windows:
                return
            win = windows[0]
            ready = win.model is not None and not win.busy and win.graph.scene.view_model is not None
            if not ready and waited["ticks"] < 600:     # 60 s at most
                return
            timer.stop()
            scene = win.graph.scene
            print(f"smoke: {win.path.name if win.path else '-'}: {len(scene.node_items)} boxes, "
                  f"{len(scene.edge_items)} edges, ready={ready}", flush=True)
            win.grab().save(png)
            win.close()

        timer.timeout.connect(check)
        timer.start(100)
        return qapp

    app.create_application = create_and_watch


if __name__ == "__main__":
    if os.environ.get("ONNXSTUDIO_SMOKE_PNG"):
        _arm_smoke_test(os.environ["ONNXSTUDIO_SMOKE_PNG"])
    from onnxstudio.__main__ import main
    sys.exit(main())
