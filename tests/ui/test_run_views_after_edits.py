"""What the run views show after a comparison or an edit (a QA pass: "when
a figure, a check or a view might be wrong, say so on screen rather than
guess"): the Tensor Inspector's Compare tab follows a comparison made while
it shows a value and goes with it after an edit; the Compare dock says its
table was made before the last edit; the Run dock's status does not keep
saying where a stepping run that an edit ended would go next; the inputs
panel follows edits of the graph's inputs."""
from __future__ import annotations

import shutil

from viewer_helpers import open_model, wait_idle
from onnxstudio.core import edits as E
from onnxstudio.core.ir import AttrType
from onnxstudio.resources import sample_path


def _demo(qtbot, window, tmp_path):
    path = shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    return window.run_ui, window.model.graph


def _finish(qtbot, window):
    assert window.run_ui.controller.wait(300_000)
    wait_idle(qtbot, window)


def _node(graph, name):
    return next(n for n in graph.nodes if n.name == name)


def test_inspector_shows_a_comparison_made_while_it_shows_the_value_and_drops_it_after_an_edit(
        qtbot, window, tmp_path):
    r, graph = _demo(qtbot, window, tmp_path)
    c = r.controller
    r.run_all()
    _finish(qtbot, window)
    flat = _node(graph, "/head/Flatten").outputs[0]
    assert r.inspect(flat)
    assert r.inspector.other is None and not r.inspector.tabs.isTabEnabled(3)
    assert c.keep_reference()
    assert c.compare_with_reference()
    _finish(qtbot, window)
    # The same array (nothing changed since), now with the run it was compared with.
    assert r.inspector.other is not None and r.inspector.tabs.isTabEnabled(3)
    assert "agrees" in r.inspector.compare_text.text()
    # An edit after the value (the Gemm reads it) keeps the value but ends the comparison.
    window.qdoc.apply(E.SetAttribute(E.node_ref(_node(graph, "/head/fc/Gemm")), "alpha", AttrType.FLOAT, 2.0))
    wait_idle(qtbot, window)
    assert c.debug.value_of(flat) is not None and r.inspector.array is not None
    assert r.inspector.other is None and not r.inspector.tabs.isTabEnabled(3)
