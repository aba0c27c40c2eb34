"""The screenshot of own-error colouring (issue 23):

    python tools/own_error_screenshot.py [--out docs/screenshots]

- compare_own_error.png  the demo model with one Gemm's weight scaled by 3
  (unsaved, so onnxruntime runs the file as saved): the Compare dock
  colouring by own error, so only the edited node is lit, and its table
  sorted by own error with the culprit on top.

Runs the real main window offscreen; look at the picture.
"""
from __future__ import annotations

import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from screenshots import prepare  # noqa: E402
from run_screenshots import open_model, settle  # noqa: E402


def main() -> None:
    out, tmp = prepare()
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from onnxstudio.core.edits import SetInitializer
    from onnxstudio.resources import sample_path
    from onnxstudio.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1500, 950)
    window.show()
    r = window.run_ui
    window.properties_dock.hide()
    for name in ("Problems", "History"):
        dock = window.findChild(type(r.run_dock), name)
        if dock is not None:
            dock.hide()
    path = shutil.copy(sample_path("demo.onnx"), tmp / "demo.onnx")
    open_model(app, window, path)
    gemm = next(n for n in r.controller.model.graph.nodes if n.op_type == "Gemm")
    weight = gemm.inputs[1]
    window.qdoc.apply(SetInitializer(weight.name, weight.const.numpy() * 3))
    settle(app, window)
    r.compare_onnxruntime()
    settle(app, window)
    view = r.compare
    view.colour_by.setCurrentIndex(view.colour_by.findData("own"))
    settle(app, window)
    scene = window.graph.scene
    window.graph.view.fitInView(scene.itemsBoundingRect().adjusted(-10, -10, 10, 10), Qt.KeepAspectRatio)
    settle(app, window)
    window.grab().save(str(out / "compare_own_error.png"))
    window.shutdown()
    print("wrote", out / "compare_own_error.png")


if __name__ == "__main__":
    main()
