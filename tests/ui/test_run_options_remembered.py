"""The run options come back with the model (issue 22): stop at the first
NaN/Inf, stepping on constants and shape arithmetic, the values kept inside
bodies and their budget are remembered per model between sessions, beside
the inputs (seed, sizes, sources); another model has its own. pytest-qt,
offscreen."""
import shutil

from PySide6.QtCore import QSettings

from viewer_helpers import open_model
from onnxstudio.resources import sample_path
from onnxstudio.ui.run.run_options import STATE_KEY, RunOptions


def options_shown(win):
    r = win.run_ui
    d = r.dock_widget
    return (r.nan_action.isChecked(), d.nan_box.isChecked(), r.constants_action.isChecked(),
            r.shapes_action.isChecked(), r.bodies_action.isChecked(), d.bodies_box.isChecked(),
            r.iterations_action.isChecked(), d.budget_box.value())


def test_run_options_are_remembered_per_model_between_sessions(qtbot, window, tmp_path):
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    first = shutil.copy(sample_path("demo.onnx"), tmp_path / "first.onnx")
    second = shutil.copy(sample_path("demo.onnx"), tmp_path / "second.onnx")
    open_model(qtbot, window, first)
    r = window.run_ui
    assert options_shown(window) == (False, False, False, False, True, True, False, 512)
    r.nan_action.trigger()
    r.constants_action.trigger()
    r.dock_widget.bodies_box.setChecked(False)
    r.dock_widget.iterations_box.setChecked(True)
    r.dock_widget.budget_box.setValue(96)
    chosen = (True, True, True, False, False, False, True, 96)
    assert options_shown(window) == chosen
    open_model(qtbot, window, second)                   # another model: its own (the defaults)
    assert options_shown(window) == (False, False, False, False, True, True, False, 512)
    assert r.controller.debug.break_on_nonfinite is False
    open_model(qtbot, window, first)
    assert options_shown(window) == chosen
    c = r.controller
    assert c.debug.break_on_nonfinite is True and c.step_on == (True, False)
    assert c.body_options == {"keep_body_values": False, "body_budget": 96 << 20, "every_iteration": True}
    # Another session with the same settings file.
    window.settings.sync()
    settings = Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat))
    again = MainWindow(settings)
    qtbot.addWidget(again)
    try:
        again.show()
        open_model(qtbot, again, first)
        assert options_shown(again) == chosen
        assert again.run_ui.controller.debug.break_on_nonfinite is True
    finally:
        again.shutdown()


def test_a_stop_at_nan_set_before_a_model_is_opened_holds_for_its_runs(qtbot, window):
    """The option lived on the document's debugger: the next model's ran on without it."""
    open_model(qtbot, window, sample_path("demo.onnx"))
    c = window.run_ui.controller
    c.set_break_on_nonfinite(True)
    c.set_document(window.qdoc)                         # the document's debugger is made afresh
    assert c.debug.break_on_nonfinite is True


def test_a_damaged_entry_gives_the_defaults_of_what_it_spoils():
    assert RunOptions.from_json("yes") == RunOptions()
    got = RunOptions.from_json({"stop_at_nonfinite": 1, "step_on_shapes": True, "body_budget_mib": True,
                                "every_iteration": "no", "keep_body_values": False})
    assert got == RunOptions(step_on_shapes=True, keep_body_values=False)
    assert RunOptions.from_json({"body_budget_mib": -5}).body_budget_mib == 512
    assert RunOptions.from_json(RunOptions(body_budget_mib=7).to_json()).body_budget_mib == 7
    assert STATE_KEY == "run_options"
