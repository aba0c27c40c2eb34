"""What the canvas redraws after an insert on a big model, and what it
leaves alone: the overview is redrawn once the canvas shows the edit, and
comes out as a full redraw would."""
from __future__ import annotations


from edit_helpers import open_editable
from synthetic_models import synthetic_model_file
from viewer_helpers import wait_idle



def _insert_relu(window, node):
    from onnxstudio.core.edits import insert_on_edge
    from onnxstudio.ui.canvas_edits import scoped_name
    assert window.qdoc.apply(insert_on_edge(window.model, node.outputs[0].name, "Relu",
                                            name=scoped_name(node, "Relu")))


def _pixels(minimap):
    image = minimap._pixmap.toImage()
    return image.size(), bytes(image.constBits())


def test_the_overview_follows_an_insert_after_the_canvas(qtbot, window, tmp_path):
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 600))
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
    qtbot.waitUntil(lambda: not minimap.rebuild_pending, timeout=60_000)
    after_edit = _pixels(minimap)
    minimap.rebuild()
    assert _pixels(minimap) == after_edit


def test_labels_placed_after_an_insert_keep_clear_of_boxes_titles_and_labels(qtbot, window, tmp_path):
    """After an insert only the re-routed edges' labels are placed, around
    the others (the grid holds just the cells their spots touch): none may
    land on a box, a group's title or another label anywhere on the level."""
    from onnxstudio.ui.canvas import scene as scene_module
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 600))
    window.graph.expand_all()
    wait_idle(qtbot, window)
    scene = window.graph.scene
    calls = []
    placing = scene_module.GraphScene._place_edge_labels

    def spy(self, fresh=None):
        calls.append(None if fresh is None else len(fresh))
        return placing(self, fresh)
    scene_module.GraphScene._place_edge_labels = spy
    try:
        graph = window.model.graph
        for node in [n for n in graph.nodes if n.op_type == "MatMul"][-4:-1]:
            _insert_relu(window, node)
            wait_idle(qtbot, window)
    finally:
        scene_module.GraphScene._place_edge_labels = placing
    assert calls and all(c for c in calls), calls     # the incremental placement ran, with edges to place
    labels = {key: item.label_rect for key, item in scene.edge_items.items()
              if item.label and item.label_rect is not None}
    assert len(labels) > 50
    obstacles = [item.scene_rect() for item in scene.node_items.values()]
    obstacles += [frame.title_rect() for frame in scene.group_frames.values()]
    for key, rect in labels.items():
        hit = next((o for o in obstacles if rect.intersects(o)), None)
        assert hit is None, (key, rect, hit)
    keys = sorted(labels)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            assert not labels[a].intersects(labels[b]), (a, b)


def test_a_level_grown_by_an_insert_scrolls_over_it_and_finds_the_new_boxes(qtbot, window, tmp_path):
    """An insert that grows the level sets the scene rect without Qt
    re-indexing every item: the view still scrolls over the whole new rect,
    and the new boxes are found where they are drawn (hover, clicks)."""
    open_editable(qtbot, window, synthetic_model_file(tmp_path, 300))
    window.graph.expand_all()
    wait_idle(qtbot, window)
    scene, view = window.graph.scene, window.graph.view
    before = scene.sceneRect()
    graph = window.model.graph
    for node in [n for n in graph.nodes if n.op_type == "MatMul"][-3:]:
        _insert_relu(window, node)
        wait_idle(qtbot, window)
    after = scene.sceneRect()
    assert after.height() > before.height()
    assert view.sceneRect() == after
    bar = view.verticalScrollBar()
    bar.setValue(bar.maximum())
    shown = view.mapToScene(view.viewport().rect()).boundingRect()
    assert abs(shown.bottom() - after.bottom()) < 2, (shown, after)
    relus = [scene.item_for_node(n) for n in graph.nodes if n.op_type == "Relu"]
    assert len(relus) == 3 and all(relus)
    for item in relus:
        centre = item.scene_rect().center()
        assert item in scene.items(centre)
        view.centerOn(item)
        assert view.itemAt(view.mapFromScene(centre)) is item
