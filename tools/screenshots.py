"""Screenshots of the app on each shared model (and the bundled demo).

    python tools/screenshots.py [--out docs/screenshots] [--models DIR] [--theme light|dark]

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


def shoot(window, app, path: pathlib.Path, out: pathlib.Path, size, search: str = "") -> pathlib.Path:
    window.resize(*size)
    window.open_path(path, remember=False)
    # Wait for shape inference too: edges get their labels from it.
    ok = wait(app, lambda: not window.busy and window.graph.scene.view_model is not None)
    if not ok:
        raise RuntimeError(f"{path}: not laid out in time")
    if search:
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
    for name, path in targets:
        out = pathlib.Path(args.out) / f"{name}{suffix}.png"
        shoot(window, app, path, out, size, args.search)
        print(f"{out}  ({window.status_label.text()})")
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
