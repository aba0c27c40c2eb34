"""Profiled runs in the app: Run ▸ Profile Run, heat on the canvas with a
legend, a collapsed group's total, the Profile dock's lists (a click goes
to the node), comparing with the previous profile, progress and Cancel."""
import pytest

from holding import held
from shared_models import SHARED_MODELS
from viewer_helpers import open_model, wait_idle
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMenu

from onnxstudio.ui.run.heat import GroupTotal, HeatMark, heat_colour, heat_fraction, time_text

# bert_small laid out and profiled: several seconds a test


def _bert_small(qtbot, window):
    open_model(qtbot, window, SHARED_MODELS / "bert_small" / "model.onnx")
    r = window.run_ui
    r.inputs.set_source("input_ids", "random", low=0, high=1000)
    r.inputs.set_source("attention_mask", "ones")
    r.inputs.set_source("token_type_ids", "zeros")
    return r


def _bert_small_layers_collapsed(qtbot, window):
    """bert_small with every group closed but the encoder (its layers shown
    as boxes, the README's picture); (run UI, the encoder's group path)."""
    r = _bert_small(qtbot, window)
    panel = window.graph
    encoder = _group(window, "encoder")
    panel.collapse_all()
    wait_idle(qtbot, window)
    panel.expand_group(encoder)
    wait_idle(qtbot, window)
    return r, encoder


def _profile(qtbot, window, r):
    r.profile.profile_action.trigger()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error


def _group(window, last: str):
    return next(p for p in window.graph.scene.view_model.groups if p[-1] == last)


@pytest.mark.slow
def test_profile_run_draws_heat_with_group_totals_and_lists(qtbot, window):
    r, encoder = _bert_small_layers_collapsed(qtbot, window)
    panel = window.graph
    run_menu = next(o for o in r.reference_action.associatedObjects() if isinstance(o, QMenu))
    assert r.profile.profile_action in run_menu.actions() and r.profile.ort_profile_action in run_menu.actions()
    _profile(qtbot, window, r)
    p = r.profile.profile
    assert p is not None and p.source == "onnxstudio" and r.profile.dock.isVisible()
    marks = [i for i in r.profile.heat.items if isinstance(i, HeatMark)]
    assert marks and r.profile.heat.legend.isVisible()
    # a collapsed layer's box shows the total of its nodes, and the hottest box is the reddest
    vm = panel.scene.view_model
    layer0 = encoder + ("layer.0",)
    box = next(b for b, v in vm.nodes.items() if v.kind == "group" and v.group == layer0)
    inside = sum(n.seconds for n in p.nodes if vm.path_of_node.get(id(n.node), ())[:len(layer0)] == layer0)
    item = panel.scene.node_items[box]
    mark = next(m for m in marks if m.rect == item.scene_rect())
    assert mark.group and mark.label.startswith("Σ ") and inside > 0
    assert f"{p.share(inside):.1%}" in mark.label
    assert r.profile.heat.legend.hottest >= inside
    # the open encoder frame has its total at its top: in its title row, or just above or beside it
    totals = [i for i in r.profile.heat.items if isinstance(i, GroupTotal)]
    in_encoder = sum(n.seconds for n in p.nodes if vm.path_of_node.get(id(n.node), ())[:len(encoder)] == encoder)
    frame = panel.scene.group_frames[encoder].scene_rect()
    total = next(t for t in totals if abs(t.rect.center().y() - frame.top()) < 20
                 and frame.left() - t.rect.width() - 5 <= t.rect.left() <= frame.right() + 5)
    assert total.label == f"Σ {time_text(in_encoder)} · {p.share(in_encoder):.1%}" and in_encoder > inside
    # the lists: slowest node first; a click goes to the node
    view = r.profile.view
    assert view.nodes.rowCount() > 10 and view.ops.item(0, 4).text() == p.by_op()[0].op_type
    top = p.top_nodes(1)[0]
    assert view.nodes.item(0, 3).text() == top.op_type and top.name in view.nodes.item(0, 4).text()
    jumped = []
    view.jump.connect(jumped.append)
    view.nodes.cellClicked.emit(0, 1)
    assert jumped == [top.node]
    wait_idle(qtbot, window)
    assert panel.scene.item_for_node(top.node) is not None          # its group was opened to show it
    # heat off and on
    view.heat_box.setChecked(False)
    assert not r.profile.heat.items and not r.profile.heat.legend.isVisible()
    view.heat_box.setChecked(True)
    assert r.profile.heat.items


def _heat_label_overlaps(scene, items) -> list:
    """Every (heat label, what it covers) on the scene: a node box (its
    own included), an edge's type label, a group's title tab or another
    heat label."""
    labels = [(i.tag if isinstance(i, HeatMark) else i.rect, i.label) for i in items]
    others = [(item.scene_rect(), f"box {key}") for key, item in scene.node_items.items()]
    others += [(e.label_rect, f"type label of {key}") for key, e in scene.edge_items.items()
               if e.label_rect is not None]
    for path, frame in scene.group_frames.items():
        title = getattr(frame, "title_item", None)
        others.append(((title or frame).title_rect(), f"title of {'/'.join(path)}"))
    found = []
    for n, (rect, text) in enumerate(labels):
        for other, what in others + [(r, f"heat label {t}") for m, (r, t) in enumerate(labels) if m != n]:
            if rect.intersects(other):
                found.append((text, what))
    return found


@pytest.mark.slow
def test_heat_labels_cover_no_box_edge_label_title_or_other_label(qtbot, window):
    """The time labels go where nothing else is written: bert_small with its
    layers collapsed in the open encoder (the README's picture), then with
    every group open (a box per node, ~250 labels)."""
    r, encoder = _bert_small_layers_collapsed(qtbot, window)
    panel = window.graph
    _profile(qtbot, window, r)
    heat = r.profile.heat
    assert any(isinstance(i, GroupTotal) for i in heat.items)
    assert len([i for i in heat.items if isinstance(i, HeatMark)]) >= 8
    assert _heat_label_overlaps(panel.scene, heat.items) == []
    panel.expand_all()
    wait_idle(qtbot, window)
    marks = [i for i in heat.items if isinstance(i, HeatMark)]
    assert len(marks) > 150
    assert _heat_label_overlaps(panel.scene, heat.items) == []


@pytest.mark.slow
def test_compare_with_the_previous_profile(qtbot, window):
    r = _bert_small(qtbot, window)
    _profile(qtbot, window, r)
    view = r.profile.view
    assert not view.compare_box.isEnabled()
    first = r.profile.profile
    _profile(qtbot, window, r)
    assert r.profile.previous is first and view.compare_box.isEnabled()
    assert view.nodes.isColumnHidden(2)
    view.compare_box.setChecked(True)
    assert not view.nodes.isColumnHidden(2) and view.nodes.item(0, 2).text()[0] in "+−±"
    assert "the previous profile" in view.summary.text()
    # an edit: the profile shown is said to be from before it, until the next profile
    from onnxstudio.core.edits import SetAttribute
    from onnxstudio.core.ir import AttrType
    softmax = next(n for n in r.controller.model.graph.nodes if n.op_type == "Softmax")
    assert r.controller.qdoc.apply(SetAttribute(softmax.name, "axis", AttrType.INT, -1))
    wait_idle(qtbot, window)
    assert "before your last edit" in view.summary.text()
    assert r.profile.heat.legend.title.startswith("before your last edit")
    _profile(qtbot, window, r)
    assert "before your last edit" not in view.summary.text() and not r.profile.heat.stale


@pytest.mark.slow
def test_a_profile_can_be_cancelled(qtbot, window):
    r = _bert_small(qtbot, window)
    assert r.profile.profile_run()
    assert r.dock_widget.cancel_button.isEnabled()
    r.dock_widget.cancel_button.click()
    assert r.controller.wait(300_000)
    assert "cancelled" in r.dock_widget.status.text()
    assert r.profile.profile is None
    _profile(qtbot, window, r)                     # the app goes on
    assert r.profile.profile is not None


@pytest.mark.slow
def test_profile_with_onnxruntime_draws_its_kernels_on_the_nodes(qtbot, window):
    r = _bert_small(qtbot, window)
    r.profile.ort_profile_action.trigger()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert not r.controller.last_error, r.controller.last_error
    p = r.profile.profile
    assert p.source == "onnxruntime" and p.share(p.unmapped_seconds) < 0.05
    assert [i for i in r.profile.heat.items if isinstance(i, HeatMark)]
    assert "onnxruntime" in r.profile.view.summary.text()


@pytest.mark.slow
def test_open_an_onnxruntime_profile(qtbot, window, tmp_path):
    import numpy as np
    from onnxstudio import core
    from onnxstudio.core.exec.ort_profile import profile_with_onnxruntime
    d = SHARED_MODELS / "bert_small"
    profile_with_onnxruntime(core.load(d / "model.onnx"), dict(np.load(d / "inputs.npz")), 1, folder=str(tmp_path))
    path = str(sorted(tmp_path.glob("ort_profile*.json"))[0])
    r = _bert_small(qtbot, window)
    assert r.profile.open_ort_profile(path)
    p = r.profile.profile
    assert p.source == "onnxruntime" and p.unmapped            # no optimised model here: some kernels untied
    assert "not tied to a node" in r.profile.view.summary.text()
    open_model(qtbot, window, SHARED_MODELS / "ppocr_v4_det" / "model.onnx")
    assert r.profile.profile is None and not r.profile.heat.items    # another model: its profiles are gone
    assert not r.profile.open_ort_profile(path)
    assert "does not look like one of" in r.dock_widget.status.text()


def test_heat_scale():
    assert heat_fraction(0, 1) == 0 and heat_fraction(1, 1) == 1 and heat_fraction(0.25, 1) == 0.5
    assert heat_fraction(1, 0) == 0
    pale, red = heat_colour(0), heat_colour(1)
    assert pale.saturationF() < red.saturationF() and red.hueF() < pale.hueF()


def _enter(qtbot, window, graph):
    window.graph.enter_graph(graph)
    qtbot.waitUntil(lambda: window.graph.level.graph is graph and bool(window.graph.scene.node_items),
                    timeout=60_000)
    wait_idle(qtbot, window)


def _silero_vad_profiled(qtbot, window):
    """silero_vad open and profiled on its own inputs; (run UI, the If's
    bodies, the body that ran)."""
    import numpy as np
    open_model(qtbot, window, SHARED_MODELS / "silero_vad" / "model.onnx")
    r = window.run_ui
    with np.load(SHARED_MODELS / "silero_vad" / "inputs.npz") as z:
        feeds = {k: z[k] for k in z.files}
    r.controller.feeds_source = lambda: feeds
    _profile(qtbot, window, r)
    p = r.profile.profile
    branch = next(n for n in r.controller.model.graph.nodes if n.op_type == "If")
    ran = {id(n.node.graph) for n in p.body_nodes}
    bodies = [g for _, g in branch.subgraphs()]
    return r, bodies, next(g for g in bodies if id(g) in ran)


@pytest.mark.slow
def test_stepping_into_a_body_shows_its_nodes_heat(qtbot, window):
    """silero_vad profiled: the If's branch that ran has its own heat, its
    nodes' times; the branch that did not run says so, as does an
    onnxruntime profile, which does not time inside bodies."""
    r, bodies, body = _silero_vad_profiled(qtbot, window)
    # The edge labels as inference writes them, whether it ended before the
    # profile or not (the test of the heat drawn before types arrive is below).
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    p = r.profile.profile
    ran = {id(n.node.graph) for n in p.body_nodes}
    _enter(qtbot, window, body)
    heat = r.profile.heat
    marks = [i for i in heat.items if isinstance(i, HeatMark)]
    timed = [n for n in p.body_nodes if n.node.graph is body and n.seconds > 0]
    assert timed and len(marks) >= min(len(timed), 5)
    assert heat.legend.isVisible() and heat.legend.hottest > 0 and "inside" in heat.legend.title
    assert _heat_label_overlaps(window.graph.scene, heat.items) == []
    # the hottest box there is the slowest node of the body (or the group holding it)
    slowest = max(timed, key=lambda n: n.seconds)
    assert heat.legend.hottest >= slowest.seconds
    idle = next((g for g in bodies if id(g) not in ran), None)
    if idle is not None:
        _enter(qtbot, window, idle)
        assert not heat.items and heat.legend.isVisible() and heat.legend.hottest == 0
        assert "did not run" in heat.legend.title
    # onnxruntime's profile: the body level says its times are not measured
    _enter(qtbot, window, r.controller.model.graph)
    r.profile.ort_profile_action.trigger()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert r.profile.profile.source == "onnxruntime"
    _enter(qtbot, window, body)
    assert not heat.items and "not measured" in heat.legend.title


@pytest.mark.slow
def test_heat_labels_make_room_for_types_inferred_after_them(qtbot, window, monkeypatch):
    """The heat drawn while inference still runs (its types not yet on the
    edges): when the types arrive the edge labels are rewritten in place, and
    a time label placed beside a short label covered the longer one
    (silero_vad's body under a busy machine). Inference is held here until
    the heat is on the canvas, so the types surely come after it."""
    from onnxstudio.core import analysis
    with held(monkeypatch, analysis, "Analysis"):
        r, _, body = _silero_vad_profiled(qtbot, window)
        _enter(qtbot, window, body)
        assert window.busy                                  # no types yet: inference is held
        scene, heat = window.graph.scene, r.profile.heat
        before = {key: e.full_label for key, e in scene.edge_items.items()}
        assert [i for i in heat.items if isinstance(i, HeatMark)]
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    assert any(e.full_label != before[key] for key, e in scene.edge_items.items())   # the labels did change
    assert [i for i in heat.items if isinstance(i, HeatMark)]
    assert _heat_label_overlaps(scene, heat.items) == []


def _compared_demo(qtbot, window, tmp_path):
    import shutil
    from onnxstudio.resources import sample_path
    pytest.importorskip("onnxruntime")
    open_model(qtbot, window, shutil.copy(sample_path("demo.onnx"), tmp_path / "demo.onnx"))
    r = window.run_ui
    r.run_all()
    assert r.controller.wait(300_000)
    r.compare_onnxruntime()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    return r


def _bands(r) -> list:
    from onnxstudio.ui.run.overlay import NodeMark
    return [m for m in r.overlay.items if isinstance(m, NodeMark) and m.band is not None]


def test_heat_and_comparison_colours_take_turns_on_the_boxes(qtbot, window, tmp_path):
    """After Compare then Profile Run the boxes kept their green 'agrees'
    outlines under the heat frames: now the canvas colours one way at a
    time, and the Compare dock says when its colours are hidden."""
    r = _compared_demo(qtbot, window, tmp_path)
    compare, view = r.compare, r.profile.view
    assert _bands(r) and compare.canvas_note.isHidden()
    _profile(qtbot, window, r)
    assert r.profile.heat.items and r.profile.heat.legend.isVisible()
    assert not _bands(r)                                   # the heat alone
    assert not compare.canvas_note.isHidden() and not compare.show_button.isHidden()
    assert "heat" in compare.canvas_note.text()
    # the legend sits in a strip kept above the canvas's viewport: it covers no box or label
    canvas, legend = window.graph.view, r.profile.heat.legend
    assert legend.geometry().bottom() < canvas.viewport().geometry().top()
    assert canvas.viewportMargins().top() >= legend.height()
    # the Compare dock's button brings its colours back, the heat goes
    qtbot.mouseClick(compare.show_button, Qt.LeftButton)
    assert _bands(r) and not r.profile.heat.items and not view.heat_box.isChecked()
    assert compare.canvas_note.isHidden() and not r.profile.heat.legend.isVisible()
    assert canvas.viewportMargins().top() == 0                # the strip is the canvas's again
    # the heat's checkbox takes the boxes back
    view.heat_box.setChecked(True)
    assert r.profile.heat.items and not _bands(r)
    # choosing a colouring in the Compare dock shows it, in place of the heat
    compare.colour_by.setCurrentIndex(compare.colour_by.findData("own"))
    assert _bands(r) and not r.profile.heat.items and r.overlay.colour_by == "own"
    # so does a new comparison
    view.heat_box.setChecked(True)
    r.compare_onnxruntime()
    assert r.controller.wait(300_000)
    wait_idle(qtbot, window)
    assert _bands(r) and not r.profile.heat.items
