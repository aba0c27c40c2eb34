"""Screenshots of File > Compare With… (README, docs/screenshots):

    python tools/diff_screenshots.py [--out docs/screenshots]

- diff_side_by_side.png  bert_small against its copy after five edits
  (an attribute changed, a node bypass-deleted, a Relu inserted on an
  edge, a weight changed, an input re-shaped), the inserted Relu chosen
  in the list of differences (A shows the MatMul it was inserted after)
- diff_unrelated.png  bert_small against ppocr_v4_det, which share no
  node: the line saying so at the top, B's 342 added Constant nodes
  listed from their one row, one of them chosen

Runs the real main window offscreen; look at every picture.
"""
from __future__ import annotations

import os
import pathlib
import sys
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent / "tests"), str(HERE)]
from screenshots import prepare, wait  # noqa: E402


def _shoot(app, window, a, b, choose: str, out: pathlib.Path, tmp: pathlib.Path, expand: str = "") -> None:
    from onnxstudio.core import save
    from onnxstudio.ui.diff.compare_window import CompareAction
    save(a, tmp / "a.onnx")
    save(b, tmp / "b.onnx")
    window.open_path(tmp / "a.onnx", remember=False)
    wait(app, lambda: window.model is not None and window.graph.settled)
    action = CompareAction(window)
    action.start(str(tmp / "b.onnx"))
    wait(app, lambda: bool(action.open_windows))
    shown = action.open_windows[0]

    def settled() -> bool:
        return (shown.left.settled and shown.right.settled and shown.left.scene.view_model is not None
                and shown.right.scene.view_model is not None)
    wait(app, settled)
    rows = shown.differences.list
    if expand:          # a group's own row: list its members first
        shown.differences.toggle(next(rows.item(i) for i in range(rows.count()) if expand in rows.item(i).text()))
    row = next(i for i in range(rows.count()) if choose in rows.item(i).text())
    rows.setCurrentRow(row)
    rows.scrollToItem(rows.item(max(row - 3, 0)), rows.ScrollHint.PositionAtTop)
    for _ in range(3):       # the reveal on one side may open groups, then the other side follows
        wait(app, settled)
        for _ in range(20):
            app.processEvents()
    shown.grab().save(str(out))
    print("wrote", out)
    shown.close()


def main() -> None:
    out, _settings_folder = prepare()
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from diff.models import edited_bert
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    from shared_models import SHARED_MODELS
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        window = MainWindow(Settings(QSettings(str(tmp / "settings.ini"), QSettings.IniFormat)))
        window.resize(1200, 800)
        window.show()
        a, b, _ = edited_bert(SHARED_MODELS / "bert_small" / "model.onnx")
        _shoot(app, window, a, b, "inserted_relu", out / "diff_side_by_side.png", tmp)
        from onnxstudio.core import load
        a, b = load(SHARED_MODELS / "bert_small" / "model.onnx"), load(SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
        _shoot(app, window, a, b, "added: Constant[2] ", out / "diff_unrelated.png", tmp,
               expand="Constant nodes added in B")
        window.shutdown()


if __name__ == "__main__":
    main()
