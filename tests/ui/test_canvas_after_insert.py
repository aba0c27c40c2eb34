"""What the canvas redraws after an insert on a big model, and what it
leaves alone: the overview is redrawn once the canvas shows the edit, and
comes out as a full redraw would."""
from __future__ import annotations

import sys
import pathlib

from edit_helpers import open_editable
from viewer_helpers import wait_idle


def _synthetic(tmp_path, nodes):
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "benchmarks"))
    import onnx
    from synthetic_model import build
    path = tmp_path / "big.onnx"
    onnx.save(build(nodes), str(path))
    return path


def _insert_relu(window, node):
    from onnxstudio.core.edits import insert_on_edge
    from onnxstudio.ui.canvas_edits import scoped_name
    assert window.qdoc.apply(insert_on_edge(window.model, node.outputs[0].name, "Relu",
                                            name=scoped_name(node, "Relu")))


def _pixels(minimap):
    image = minimap._pixmap.toImage()
    return image.size(), bytes(image.constBits())


def test_the_overview_follows_an_insert_after_the_canvas(qtbot, window, tmp_path):
    open_editable(qtbot, window, _synthetic(tmp_path, 600))
    window.resize(1200, 800)
    minimap = window.graph.minimap
    graph = window.model.graph
    target = [n for n in graph.nodes if n.op_type == "MatMul"][-3]
    pending_when_shown = []
    window.graph.laid_out.connect(lambda: pending_when_shown.append(minimap.rebuild_pending))
    _insert_relu(window, target)
    wait_idle(qtbot, window)
    # When the canvas showed the new node the overview was still to redraw.
    assert pending_when_shown == [True]
    qtbot.waitUntil(lambda: not minimap.rebuild_pending)
    after_edit = _pixels(minimap)
    minimap.rebuild()
    assert _pixels(minimap) == after_edit
