"""`onnxstudio render FILE -o OUT.svg|.png [--depth N]`: draw a model headless.

Uses the same scene items as the app, so the picture matches what the viewer
shows. Needs no display: Qt runs on its offscreen platform.
"""
from __future__ import annotations

import argparse
import math
import os
import pathlib

NAME = "render"

# PNG pixels per point. Past this even a small graph makes an image of
# thousands of pixels a side, and a real one is cut down to the exporter's
# largest side anyway: a bigger value is a typo, not a wish.
MAX_SCALE = 16.0


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="ONNX model")
    parser.add_argument("-o", "--output", required=True, help="output .svg or .png")
    parser.add_argument("--depth", type=int, default=None,
                        help="open name-scope groups down to this depth "
                             "(0: all collapsed; default: the viewer's choice)")
    parser.add_argument("--theme", choices=("light", "dark"), default="light")
    parser.add_argument("--scale", type=float, default=2.0,
                        help=f"PNG pixels per point, above 0 and at most {MAX_SCALE:g} (default 2)")
    parser.add_argument("--no-infer", action="store_true",
                        help="label edges with declared types only (skip shape inference)")


def groups_to_depth(groups, depth: int) -> set:
    return {path for path in groups if len(path) <= depth}


def render(model, output, depth=None, theme_name="light", scale=2.0, infer=True):
    """Lay out `model`'s main graph and write it to `output`; returns the scene."""
    from onnxstudio.core import layout as lay
    from onnxstudio.core.layout.api import DEFAULT_TIME_LIMIT
    from onnxstudio.errors import UserError
    from onnxstudio.ui.canvas.scene import GraphScene, measure_label
    from onnxstudio.ui.export import export_scene
    from onnxstudio.ui.theme import THEMES
    from onnxstudio.ui.workers import MAX_BOXES, TooManyBoxes, lay_out_level, run_inference

    expanded = None
    if depth is not None:
        expanded = groups_to_depth(lay.build_view(model.graph, measure_label).groups, depth)
    try:
        # The canvas's own layout of a level (the same box limit), never cancelled here.
        view, result = lay_out_level(model.graph, measure_label, expanded, lay.CancelToken(), DEFAULT_TIME_LIMIT)
    except TooManyBoxes as too_many:
        raise UserError(f"{getattr(model, 'path', None) or 'the model'}: the picture would hold "
                        f"{too_many.boxes:,} boxes; render draws at most {MAX_BOXES:,} "
                        f"(a smaller --depth opens fewer groups)") from None
    scene = GraphScene(THEMES[theme_name])
    scene.populate(view, result, run_inference(model) if infer else None)
    export_scene(scene, output, scale=scale)
    return scene, result


def _check_scale(scale: float) -> None:
    """Refuse a --scale no picture can be drawn at: zero or less would make a
    1x1 PNG, nan and inf none at all."""
    from onnxstudio.errors import UserError
    if not (math.isfinite(scale) and 0 < scale <= MAX_SCALE):
        raise UserError(f"--scale {scale:g}: give the PNG pixels per point as a number above 0 and at most "
                        f"{MAX_SCALE:g} (default 2)", exit_code=2)


def _check_writable(output: pathlib.Path) -> None:
    """Refuse an output Qt could not open before painting starts: Qt's
    painter would otherwise print a warning for every item it cannot draw."""
    from onnxstudio.errors import UserError
    folder = output.parent if str(output.parent) else pathlib.Path(".")
    if output.is_dir():
        raise UserError(f"{output}: is a folder; give a file name ending in .svg or .png", exit_code=2)
    if not folder.exists():
        raise UserError(f"{output}: cannot write the image (no folder {folder})", exit_code=2)
    if not folder.is_dir():
        raise UserError(f"{output}: cannot write the image ({folder} is a file, not a folder)", exit_code=2)
    if not os.access(folder, os.W_OK | os.X_OK) or (output.exists() and not os.access(output, os.W_OK)):
        raise UserError(f"{output}: cannot write the image (not writable)", exit_code=2)


def run(args) -> int:
    from onnxstudio.errors import UserError
    output = pathlib.Path(args.output)
    if output.suffix.lower() not in (".svg", ".png"):
        raise UserError(f"{output}: the output must end in .svg or .png", exit_code=2)
    if args.depth is not None and args.depth < 0:
        raise UserError("--depth must be 0 or more", exit_code=2)
    _check_scale(args.scale)
    _check_writable(output)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from onnxstudio.app import create_application
    from onnxstudio import core
    app = create_application()   # noqa: F841 - fonts and painting need a QApplication
    model = core.load(args.file)
    try:
        scene, result = render(model, output, args.depth, args.theme, args.scale,
                               infer=not args.no_infer)
    except OSError as exc:
        raise UserError(f"{output}: cannot write the image ({exc})", exit_code=2) from exc
    for note in result.warnings:
        print(f"note: {note}")
    print(f"wrote {output} ({len(scene.node_items)} boxes, {len(scene.edge_items)} edges, "
          f"layout by {result.engine})")
    return 0
