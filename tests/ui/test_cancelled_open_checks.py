"""Cancel while an opened model is being laid out: no picture comes, but
Properties and Run take the model, so the checker runs too. Before, the
analysis waited for a first paint that never came and the Problems dock
said "checking…" for ever (QA on llama_2gb, Cancel at 0.15 s)."""
from __future__ import annotations


def test_a_cancelled_first_layout_still_checks_the_model(qtbot, window):
    cancelled = []

    def cancel(_model):
        cancelled.append(window.graph.layout_running)
        window.cancel_work()            # the Cancel button of the status bar

    window.model_loaded.connect(cancel)
    window.open_demo()
    qtbot.waitUntil(lambda: not window.busy, timeout=120_000)
    assert cancelled == [True]
    assert window.qdoc.ready                            # the analysis ran
    problems = window.edit_actions.problems
    assert problems.summary.text() != problems.tr("checking…")
    assert problems.diagnostics == window.document.diagnostics
