"""The recovery question says what happened, to which model, and what each
of its buttons will do."""
from __future__ import annotations

import pathlib
import time


def test_recovery_question_explains_each_answer(window):
    from onnxstudio.core import recovery as rec
    rf = rec.RecoveryFile(pathlib.Path("/tmp/x.json"), {"path": "/models/<a&b>/model.onnx"},
                          [{"name": "s", "edits": []}] * 3, 1, time.time())
    text = window.recovery._question(rf)
    assert "model.onnx (3 steps)" in text and "/models/&lt;a&amp;b&gt;/model.onnx" in text
    for button, says in (("Recover", "applies the steps again"), ("Discard", "for good"),
                         ("Not now", "asks again at the next start")):
        assert f"<b>{button}</b>" in text and says in text
    assert "file on disk changes only when you save" in text
