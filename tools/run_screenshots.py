"""Screenshots of running and stepping in the app (README, docs/screenshots):

    python tools/run_screenshots.py [--out docs/screenshots]

- run_inputs.png      the Run dock's inputs panel (bert_12layer_narrow: symbolic dims, sources)
- run_stepped.png     the demo model stepped six nodes: values on edges, current node, a breakpoint
- run_inspector.png   the tensor inspector on ppocr_v4_det's output for a picture of text (histogram)
- run_inspector_image.png  the same value as an image
- run_compare.png     onnxruntime comparison colouring after an edited initializer

Runs the real main window offscreen; look at every picture.
"""
from __future__ import annotations

import pathlib
import shutil
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from screenshots import REPO, prepare, wait  # noqa: E402


def settle(app, window) -> None:
    wait(app, lambda: not window.busy and window.run_ui.controller.job is None)
    for _ in range(10):
        app.processEvents()
        time.sleep(0.01)


def open_model(app, window, path) -> None:
    window.open_path(path, remember=False)
    wait(app, lambda: window.qdoc is not None and not window.busy and window.graph.scene.view_model is not None)
    settle(app, window)


def text_picture(path: pathlib.Path) -> pathlib.Path:
    """A white page with two lines of dark text (Pillow draws it)."""
    from PIL import Image, ImageDraw, ImageFont
    img = Image.new("RGB", (320, 160), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=34)
    draw.text((16, 22), "onnxstudio", fill=(20, 20, 30), font=font)
    draw.text((16, 90), "step by step", fill=(20, 20, 30), font=font)
    img.save(path)
    return path


def main() -> None:
    out, tmp = prepare()
    sys.path.insert(0, str(REPO / "tests"))
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from shared_models import SHARED_MODELS
    from onnxstudio.core.edits import SetInitializer
    from onnxstudio.resources import sample_path
    from onnxstudio.ui.main_window import MainWindow

    app = QApplication.instance() or QApplication([])
    window = MainWindow()
    window.resize(1500, 950)
    window.show()
    r = window.run_ui
    for dock in (window.properties_dock,):
        dock.hide()
    for name in ("Problems", "History"):
        dock = window.findChild(type(r.run_dock), name)
        if dock is not None:
            dock.hide()

    # 1. inputs panel
    open_model(app, window, SHARED_MODELS / "bert_12layer_narrow" / "model.onnx")
    r.run_dock.show()
    r.inputs.set_dim("batch", 1)
    r.inputs.set_dim("seq", 128)
    r.inputs.set_source("input_ids", "random", low=0, high=30521)
    r.inputs.set_source("attention_mask", "ones")
    r.inputs.set_source("token_type_ids", "zeros")
    r.inputs.table.setCurrentCell(0, 0)
    r.run_all()
    settle(app, window)
    dock = r.run_dock.widget()
    dock.resize(dock.width(), 470)
    settle(app, window)
    dock.grab().save(str(out / "run_inputs.png"))

    # 2. stepped canvas
    path = shutil.copy(sample_path("demo.onnx"), tmp / "demo.onnx")
    open_model(app, window, path)
    nodes = list(r.controller.model.graph.nodes)
    r.controller.toggle_breakpoint(nodes[8])
    for _ in range(6):
        r.step()
        settle(app, window)
    view = window.graph.view
    view.fit_all()
    view.zoom_by(1.05)
    view.centerOn(window.graph.scene.item_for_node(nodes[3]).scene_rect().center())
    settle(app, window)
    window.grab().save(str(out / "run_stepped.png"))

    # 3. inspector: ppocr on a picture of text
    open_model(app, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    picture = text_picture(tmp / "text.png")
    r.inputs.set_source("x", "image", path=str(picture), channel_mean=[0.485, 0.456, 0.406],
                        channel_std=[0.229, 0.224, 0.225])
    r.run_all()
    settle(app, window)
    output = r.controller.model.graph.outputs[0]
    r.inspect(output)
    r.inspector_dock.show()
    r.inspector.tabs.setCurrentIndex(0)
    settle(app, window)
    r.inspector_dock.widget().resize(900, 420)
    r.inspector.grab().save(str(out / "run_inspector.png"))
    r.inspect(r.controller.model.graph.inputs[0])
    r.inspector.tabs.setCurrentIndex(2)
    settle(app, window)
    r.inspector.grab().save(str(out / "run_inspector_image.png"))
    r.inspect(output)
    r.inspector.tabs.setCurrentIndex(2)
    settle(app, window)
    r.inspector.grab().save(str(out / "run_inspector_output.png"))

    # 4. onnxruntime comparison after an edited initializer
    r.inspector_dock.hide()
    open_model(app, window, path)
    nodes = list(r.controller.model.graph.nodes)
    weight = nodes[3].inputs[1]
    # A small change, so the errors spread over the legend's scale.
    window.qdoc.apply(SetInitializer(weight.name, weight.const.numpy() * 1.004))
    settle(app, window)
    r.compare_onnxruntime()
    settle(app, window)
    scene = window.graph.scene
    window.graph.view.fitInView(scene.itemsBoundingRect().adjusted(-10, -10, 10, 10), Qt.KeepAspectRatio)
    settle(app, window)
    window.grab().save(str(out / "run_compare.png"))
    window.shutdown()
    print("wrote", ", ".join(p.name for p in sorted(out.glob("run_*.png"))))


if __name__ == "__main__":
    main()
