"""Edit ▸ Apply Edit Script…, triggered from its menu action: the
report names the node and the value; applying the same script again says
"already so" and adds no undo step."""
from __future__ import annotations

import json

from edits.test_script_report_wording import EPS, layernorm_file
from edit_helpers import apply_script_from_menu
from viewer_helpers import open_model


def test_the_report_names_the_node_and_value_and_a_second_apply_changes_nothing(qtbot, window, tmp_path):
    open_model(qtbot, window, layernorm_file(tmp_path / "m.onnx"))
    script = tmp_path / "eps.edits.json"
    script.write_text(json.dumps(EPS))
    report = apply_script_from_menu(window, script)
    assert "1 edit replayed as one undo step" in report.headline.text()
    assert report.steps.toPlainText() == 'step 1: Set attribute epsilon of LayerNormalization "/m/ln" to 1e-05'
    steps = len(window.document.steps)
    report = apply_script_from_menu(window, script)
    assert not report.failed and "nothing changed and no undo step was added" in report.headline.text()
    assert report.steps.toPlainText() == ('step 1: already so: Set attribute epsilon of LayerNormalization '
                                          '"/m/ln" to 1e-05; nothing to undo')
    assert len(window.document.steps) == steps
    report.grab().save(str(tmp_path / "report.png"))
