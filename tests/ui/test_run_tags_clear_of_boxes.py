"""Value tags keep off node boxes (issue 22): a tag with no free place beside
its edge moves a little further out to the side, and where no place near
its edge is free it is hidden (its edge's tooltip says so) rather than
drawn over a box. bert_12layer_narrow had 12 tags over boxes (up to 8 px
deep), bert_small 35. pytest-qt, offscreen."""
import pytest

from shared_models import SHARED_MODELS
from viewer_helpers import open_model, run_short_sequence
from onnxstudio.ui.run.overlay import ValueTag


@pytest.mark.parametrize("model", ["bert_12layer_narrow", "bert_small"])
def test_value_tags_keep_off_node_boxes(qtbot, window, model):
    open_model(qtbot, window, SHARED_MODELS / model / "model.onnx")
    r = run_short_sequence(qtbot, window)
    tags = [i for i in r.overlay.items if isinstance(i, ValueTag) and i.isVisible()]
    assert len(tags) > 100
    boxes = [item.scene_rect() for item in window.graph.scene.node_items.values()]
    depths = {}
    for tag in tags:
        rect = tag.mapRectToScene(tag.rect)
        for box in boxes:
            both = rect.intersected(box)
            if not both.isEmpty():
                depths[tag.name] = max(depths.get(tag.name, 0.0), min(both.width(), both.height()))
    assert not depths, f"tags over boxes (px): {depths}"
