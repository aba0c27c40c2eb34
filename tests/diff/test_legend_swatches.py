"""The compare window's legend draws each status as the canvas frames it:
"changed" tinted with a solid border, "changed inside" (the same colour)
dashed and empty. Its swatches were 3 px CSS borders on 16x12 labels, where
"dashed" rendered like "solid" and neither was tinted, so the two orange
entries looked the same (QA)."""
from onnxstudio.core.diff import CHANGED
from onnxstudio.ui.diff.status_marks import INSIDE, Legend


def _image(qtbot, status):
    legend = Legend()
    qtbot.addWidget(legend)
    legend.show()
    swatch = legend.swatches[status]
    return swatch.grab().toImage(), swatch


def test_changed_is_tinted_and_changed_inside_is_dashed_and_empty(qtbot):
    changed, _ = _image(qtbot, CHANGED)
    inside, _ = _image(qtbot, INSIDE)
    assert changed.size() == inside.size()
    w, h = changed.width(), changed.height()
    # The middle: the tint of "changed" differs from the background under "changed inside".
    assert changed.pixel(w // 2, h // 2) != inside.pixel(w // 2, h // 2)
    # Along the top border: "changed" is one colour, "changed inside" has gaps.
    top = 1
    solid = {changed.pixel(x, top) for x in range(8, w - 8)}
    dashed = {inside.pixel(x, top) for x in range(8, w - 8)}
    assert len(solid) == 1
    assert len(dashed) > 1
