"""The time heat map of a profiled run (README, docs/screenshots):

    python tools/profile_screenshot.py [--out docs/screenshots]

- profile_heat.png   bert_small profiled with the built-in executor: heat on
  every box, the encoder's layer 0 open, the other layers collapsed with
  their totals, the Profile dock's slowest nodes and op types.

Runs the real main window offscreen; look at the picture.
"""
from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from run_screenshots import open_model, settle  # noqa: E402
from screenshots import REPO, prepare, wait  # noqa: E402


def main() -> None:
    out, _tmp = prepare()
    sys.path.insert(0, str(REPO / "tests"))
    from PySide6.QtWidgets import QApplication

    from shared_models import SHARED_MODELS
    from onnxstudio.ui.main_window import MainWindow

    from onnxstudio.core.exec.threads import set_blas_threads
    # One BLAS thread: on this shared 2-core machine two threads wait for each
    # other and a layer's time swings 5x from run to run (core/exec/threads.py).
    set_blas_threads(1)
    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1500, 1000)
    window.show()
    window.properties_dock.hide()
    open_model(app, window, SHARED_MODELS / "bert_small" / "model.onnx")
    r = window.run_ui
    r.inputs.set_source("input_ids", "random", low=0, high=1000)
    r.inputs.set_source("attention_mask", "ones")
    r.inputs.set_source("token_type_ids", "zeros")
    panel = window.graph
    for name in ("Problems", "History"):
        dock = window.findChild(type(r.run_dock), name)
        if dock is not None:
            dock.hide()
    encoder = next(p for p in panel.scene.view_model.groups if p[-1] == "encoder")
    panel.collapse_all()
    settle(app, window)
    panel.expand_group(encoder)
    settle(app, window)
    r.profile.profile_run()
    wait(app, lambda: r.profile.profile is not None)
    settle(app, window)
    r.run_dock.hide()
    r.profile.dock.show()
    settle(app, window)
    from PySide6.QtCore import Qt
    window.resizeDocks([r.profile.dock], [260], Qt.Vertical)
    settle(app, window)
    frame = panel.scene.group_frames[encoder]
    panel.view.centerOn(frame.scene_rect().center())
    settle(app, window)
    out.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(out / "profile_heat.png"))
    print(out / "profile_heat.png")


if __name__ == "__main__":
    main()
