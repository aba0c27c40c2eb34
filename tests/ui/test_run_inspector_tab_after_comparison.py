"""The Tensor Inspector on its Compare tab, when the value it shows next has
nothing to compare with (the comparison went with new inputs): it went to
the Image tab, the one Qt picks when the current tab is disabled, where the
rule is the histogram (seen under Xvfb on bert_small)."""
from __future__ import annotations

import numpy as np

from onnxstudio.ui.run.inspector import TensorInspector


def test_the_compare_tab_gone_the_histogram_is_shown(qtbot):
    inspector = TensorInspector()
    qtbot.addWidget(inspector)
    image_like = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    inspector.show_value("x", image_like, other=image_like + 1e-3, other_label="onnxruntime")
    assert inspector.tabs.isTabEnabled(2) and inspector.tabs.isTabEnabled(3)
    inspector.tabs.setCurrentIndex(3)                     # looking at the comparison
    inspector.show_value("x", image_like + 1)             # nothing to compare with now
    assert not inspector.tabs.isTabEnabled(3)
    assert inspector.tabs.currentIndex() == 0, inspector.tabs.tabText(inspector.tabs.currentIndex())

    inspector.tabs.setCurrentIndex(2)                     # the image stays while there is one
    inspector.show_value("x", image_like)
    assert inspector.tabs.currentIndex() == 2
