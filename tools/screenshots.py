"""Screenshots of the app on each shared model (and the bundled demo).

    python tools/screenshots.py [--out docs/screenshots] [--models DIR] [--theme light|dark]
    python tools/screenshots.py --only bert_small --focus encoder --name bert_small_encoder --hide-docks
    python tools/screenshots.py --only bert_12layer_narrow --expand encoder/layer.3 \
        --focus encoder/layer.3 --name bert_12layer_layer3 --hide-docks

Runs the real main window on Qt's offscreen platform, waits for load and
layout, selects a node so the properties panel has content, and saves
`<out>/<model>.png`. Look at them: a screenshot nobody opened proves nothing.
"""
from __future__ import annotations

import argparse
import os
import pathlib
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent



def prepare(argv=None) -> tuple[pathlib.Path, pathlib.Path]:
    """The common start of a screenshot tool: read `--out` (default
    docs/screenshots), draw offscreen unless a display is chosen, and keep
    settings, recovery files and the layout cache in a fresh temporary
    folder so the user's own are never read or written. Returns (output folder, that temporary folder)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    tmp = pathlib.Path(tempfile.mkdtemp())
    os.environ["ONNXSTUDIO_SETTINGS"] = str(tmp / "settings.ini")
    os.environ["ONNXSTUDIO_RECOVERY_DIR"] = str(tmp / "recovery")      # edits made for a picture are not "unsaved work"
    os.environ["ONNXSTUDIO_LAYOUT_CACHE"] = str(tmp / "layout-cache")
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)     # a picture saved into a missing folder fails silently
    return out, tmp

def wait(app, predicate, timeout: float = 300.0) -> bool:
    end = time.time() + timeout
    while not predicate() and time.time() < end:
        app.processEvents()
        time.sleep(0.01)
    return predicate()


def pick_node(scene):
    """Something worth showing in the properties panel: a node with attributes."""
    best = None
    for item in scene.node_items.values():
        node = getattr(item.ref, "node", None)
        if node is not None and node.attributes:
            if best is None or item.scene_rect().top() < best.scene_rect().top():
                best = item
    return best


def idle(window) -> bool:
    graph = window.graph
    return (not window.busy and graph.scene.view_model is not None and graph.settled)


def focus_on_group(window, app, group: tuple, zoom: float) -> None:
    """Show the top of `group`'s frame at `zoom`, its left edge near the left."""
    frame = window.graph.scene.group_frames.get(group)
    if frame is None:
        raise RuntimeError(f"no open group {'/'.join(group)} to show")
    view = window.graph.view
    view.zoom_by(zoom / view.current_scale())
    visible = view.visible_scene_rect()
    rect = frame.scene_rect()
    view.centerOn(max(rect.center().x(), rect.left() - 30 + visible.width() / 2),
                  rect.top() - 160 + visible.height() / 2)
    for _ in range(5):
        app.processEvents()


def shoot(window, app, path: pathlib.Path, out: pathlib.Path, size, search: str = "",
          expand: tuple = (), focus: tuple = (), zoom: float = 0.8) -> pathlib.Path:
    window.resize(*size)
    window.open_path(path, remember=False)
    # Wait for shape inference too: edges get their labels from it.
    ok = wait(app, lambda: idle(window))
    if not ok:
        raise RuntimeError(f"{path}: not laid out in time")
    if expand:
        # The group and every group inside it.
        graph = window.graph
        inner = [p for p in graph.scene.view_model.groups if p[:len(expand)] == expand]
        graph.level.expanded = set(graph.level.expanded or ()) | {
            p[:d] for p in inner for d in range(1, len(p) + 1)}
        graph.start_layout()
        if not wait(app, lambda: idle(window) and expand in window.graph.scene.group_frames):
            raise RuntimeError(f"{path}: {'/'.join(expand)} not opened in time")
    if focus:
        focus_on_group(window, app, focus, zoom)
    elif search:
        # Show search at work: type the text, jump to the first hit.
        window.show_search()
        window.search.edit.setText(search)
        window.search.activate_current()
        wait(app, lambda: not window.busy)
    else:
        item = pick_node(window.graph.scene)
        if item is not None:
            item.setSelected(True)
            window.graph.view.ensureVisible(item, 200, 200)
    for _ in range(5):
        app.processEvents()
    out.parent.mkdir(parents=True, exist_ok=True)
    window.grab().save(str(out))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "docs" / "screenshots"))
    parser.add_argument("--models", default=str(REPO.parent / "shared" / "models"))
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--size", default="1400x900", help="window size WxH")
    parser.add_argument("--only", nargs="*", help="model folder names to shoot")
    parser.add_argument("--search", default="", help="search for this and go to the first hit")
    parser.add_argument("--expand", default="", help="open this group first, e.g. encoder/layer.0")
    parser.add_argument("--focus", default="", help="show the top of this open group's frame")
    parser.add_argument("--zoom", type=float, default=0.8, help="zoom used with --focus")
    parser.add_argument("--name", default="", help="file name stem instead of the model's")
    parser.add_argument("--hide-docks", action="store_true", help="canvas and properties only")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("ONNXSTUDIO_SETTINGS", os.path.join(tempfile.mkdtemp(), "settings.ini"))
    from onnxstudio.app import create_application
    app = create_application()
    from onnxstudio.ui.main_window import MainWindow
    window = MainWindow()
    window.apply_theme(args.theme)
    window.show()
    size = tuple(int(v) for v in args.size.split("x"))
    targets = []
    models = pathlib.Path(args.models)
    if models.is_dir():
        targets += [(p.name, p / "model.onnx") for p in sorted(models.iterdir())
                    if (p / "model.onnx").is_file()]
    try:
        from onnxstudio.resources import sample_path
        targets.append(("demo", pathlib.Path(sample_path("demo.onnx"))))
    except (ImportError, FileNotFoundError, AttributeError):
        pass
    if args.only:
        targets = [t for t in targets if t[0] in args.only]
    suffix = ("" if args.theme == "light" else f"_{args.theme}") + ("_search" if args.search else "")
    if args.hide_docks:
        from PySide6.QtWidgets import QDockWidget
        for dock in window.findChildren(QDockWidget):
            if dock is not window.properties_dock:
                dock.hide()
    expand = tuple(args.expand.split("/")) if args.expand else ()
    focus = tuple(args.focus.split("/")) if args.focus else ()
    for name, path in targets:
        out = pathlib.Path(args.out) / f"{args.name or name}{suffix}.png"
        shoot(window, app, path, out, size, args.search, expand, focus, args.zoom)
        print(f"{out}  ({window.status_label.text()})")
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
