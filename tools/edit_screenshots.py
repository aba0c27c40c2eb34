"""Screenshots of the property editors: the tensor editor on a Conv weight
of the demo model, the Undo History dock after a few named edits, and the
tensor editor on a sparse initializer (added to the demo for the picture).

    python tools/edit_screenshots.py [--out docs/screenshots]

Runs the real main window offscreen; every edit goes through the panels'
own entry points (the same calls the widgets make). Look at the PNGs.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from screenshots import REPO, wait  # noqa: E402


def settle(app, n: int = 20) -> None:
    for _ in range(n):
        app.processEvents()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ONNXSTUDIO_SETTINGS", os.path.join(tempfile.mkdtemp(), "settings.ini"))
    from onnxstudio.app import create_application
    app = create_application()
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.resources import sample_path
    import shutil
    work = pathlib.Path(tempfile.mkdtemp()) / "demo.onnx"
    shutil.copy(sample_path("demo.onnx"), work)
    window = MainWindow()
    window.apply_theme("light")
    window.resize(1500, 950)
    window.show()
    window.open_path(work, remember=False)
    wait(app, lambda: not window.busy and window.graph.scene.view_model is not None
         and window.qdoc is not None and window.qdoc.ready)
    from PySide6.QtCore import Qt
    window.edit_actions.problems_dock.hide()
    history = window.edit_actions.history_dock
    history.show()
    window.resizeDocks([window.properties_dock, history], [600, 330], Qt.Horizontal)
    graph = window.model.graph
    weight = max((v for v in graph.initializers.values() if v.const is not None and len(v.const.shape) == 4),
                 key=lambda v: v.const.size)
    props = window.properties
    # A few named steps for the history.
    props.show_model()
    props.editor._set_model_field("producer_name", "onnxstudio")
    props.editor.new_key.setText("reviewed")
    props.editor.new_value.setText("yes")
    props.editor.add_metadata()
    first = graph.inputs[0]
    props.show_value(first)
    props.editor.dims_edit.setText("N, " + ", ".join(str(d) for d in list(first.type.shape)[1:]))
    props.editor._set_type()
    node = next(n for n in graph.nodes if any(v is weight for v in n.inputs))
    out = node.outputs[0]
    props.show_value(out)
    props.editor.make_output()
    # The tensor editor on the weight: one cell changed, a float16 preview.
    window.graph.reveal(node, graph)
    wait(app, lambda: not window.busy)
    settle(app, 50)
    props.show_value(weight)
    editor = props.tensor_editor
    model = editor.table.model
    model.setData(model.index(0, 1), "0.25")
    # The edit lays the graph out again and re-selects the Conv; show the weight after.
    wait(app, lambda: not window.busy)
    settle(app, 50)
    props.show_value(weight)
    editor = props.tensor_editor
    editor.dtype_combo.setCurrentIndex(editor.dtype_combo.findText("float16"))
    editor.preview_dtype()
    settle(app, 50)
    outdir = pathlib.Path(args.out)
    outdir.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(outdir / "edit_tensor.png"))
    # Two more steps for the history, the last one undone (shown as redo-able).
    editor.apply_dtype()
    props.show_model()
    props.editor.graph_name.setText("demo_edited")
    props.editor.graph_name.editingFinished.emit()
    window.edit_actions.undo()
    window.resizeDocks([history], [430], Qt.Horizontal)      # whole step names
    settle(app, 50)
    from PySide6.QtCore import QRect
    history.grab(QRect(0, 0, history.width(), 250)).save(str(outdir / "edit_history.png"))
    sparse_shot(app, window, outdir / "edit_tensor_sparse.png")
    print(outdir / "edit_tensor.png", outdir / "edit_history.png", outdir / "edit_tensor_sparse.png")
    window.shutdown()
    return 0


def sparse_shot(app, window, path) -> None:
    """The tensor editor on a sparse initializer (a banded 12x16 matrix, 35 of
    192 elements stored), one empty cell given a value."""
    import numpy as np
    from PySide6.QtCore import Qt
    from onnxstudio.core.edits import AddInitializer
    band = np.zeros((12, 16), np.float32)
    for i in range(12):
        for j in range(max(0, i - 1), min(16, i + 2)):
            band[i, j] = round(1.0 / (1 + abs(i - j)) + 0.01 * i, 3)
    window.qdoc.apply(AddInitializer("band_mask", band, sparse=True))
    wait(app, lambda: not window.busy)
    props = window.properties
    value = window.model.graph.sparse_initializers["band_mask"]
    props.show_value(value)
    editor = props.tensor_editor
    editor.table.model.setData(editor.table.model.index(0, 4), "0.25")
    wait(app, lambda: not window.busy)
    settle(app, 50)
    props.show_value(value)
    window.resizeDocks([window.properties_dock], [640], Qt.Horizontal)
    settle(app, 50)
    window.grab().save(str(path))


if __name__ == "__main__":
    sys.exit(main())
