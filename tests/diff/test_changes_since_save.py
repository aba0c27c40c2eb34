"""File > Show Changes Since Save: the saved file on the left, the model as
edited on the right (matched on a clone, so the document is never read by
the worker); disabled and explained with nothing unsaved. The compare
window's Save as Edit Script… writes a script that replays the edits. A
list of 100,000 differences is built in pages."""
from types import SimpleNamespace

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QMessageBox

from onnxstudio.core import Document, save
from onnxstudio.core.diff import IoDiff, diff_models
from onnxstudio.core.edits import SetAttribute, replay
from onnxstudio.core.ir import AttrType
from onnxstudio.ui.diff.compare_window import show_changes_since_save
from onnxstudio.ui.diff.difference_list import PAGE, DifferenceList

from .models import with_bodies


def _action(main):
    return next(a for a in main.file_menu.actions() if a.text().replace("&", "") == "Show Changes Since Save")


def test_changes_since_save_compares_the_file_with_the_edited_model(qtbot, tmp_path, monkeypatch):
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    save(with_bodies(0.1), tmp_path / "m.onnx")
    main = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(main)
    main.show()
    try:
        main.open_path(tmp_path / "m.onnx")
        qtbot.waitUntil(lambda: main.model is not None and main.graph.settled, timeout=60_000)
        action = _action(main)
        main.file_menu.aboutToShow.emit()
        assert not action.isEnabled() and "unsaved" in action.statusTip()
        told = []
        monkeypatch.setattr(QMessageBox, "information", lambda parent, title, text: told.append(text))
        show_changes_since_save(main)
        assert told and "no unsaved changes" in told[0]

        main.qdoc.apply(SetAttribute("pre", "alpha_note", AttrType.FLOAT, 2.0))
        main.file_menu.aboutToShow.emit()
        assert action.isEnabled()
        action.trigger()
        compare = main.compare_action
        qtbot.waitUntil(lambda: bool(compare.open_windows), timeout=60_000)
        win = compare.open_windows[-1]
        d = win.diff
        assert d.matching.b is not main.document.model           # matched against a clone
        assert d.matching.a.path is not None and [c.attributes for c in d.changed] == [["alpha_note"]]
        assert "(saved)" in win.windowTitle() and "(edited)" in win.windowTitle()
        assert not d.added and not d.removed and not d.weights_changed

        # Save as Edit Script…: the script replays the unsaved edit on the saved file.
        win.write_script(str(tmp_path / "edits.json"))
        qtbot.waitUntil(lambda: win.script_message is not None, timeout=60_000)
        doc = Document.open(tmp_path / "m.onnx")
        replay(doc, (tmp_path / "edits.json").read_text())
        assert diff_models(doc.model, main.document.model).equal
        assert "1 edit(s) written" in win.script_message.text()
        win.script_message.close()
        win.close()
    finally:
        main.shutdown()


def test_save_as_edit_script_says_what_is_not_expressed(qtbot, tmp_path):
    from onnx import TensorProto, helper
    from onnxstudio.core import load_bytes
    from onnxstudio.ui.diff.compare_window import CompareWindow

    def dropout(outputs):
        graph = helper.make_graph([helper.make_node("Dropout", ["x"], outputs, name="drop")], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])])
        return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
                          .SerializeToString())
    win = CompareWindow(diff_models(dropout(["y", "mask"]), dropout(["y"])), "a", "b")
    qtbot.addWidget(win)
    win.write_script(str(tmp_path / "s.json"))
    qtbot.waitUntil(lambda: win.script_message is not None, timeout=60_000)
    assert not win.derived.complete
    assert "Not expressed as edits" in win.script_message.text() and "drop" in win.script_message.text()
    win.script_message.close()
    assert (tmp_path / "s.json").exists()
    # A folder that does not exist: a message naming the file, the button usable again.
    win.script_message = None
    win.write_script(str(tmp_path / "missing" / "s.json"))
    qtbot.waitUntil(lambda: win.script_message is not None, timeout=60_000)
    assert "s.json" in win.script_message.text() and "Traceback" not in win.script_message.text()
    assert win.save_script.isEnabled()
    win.script_message.close()


class _Node:
    """A stand-in diff's node that notes each read of its name: a row's text reads it."""
    op_type, domain, graph = "Relu", "", None

    def __init__(self, i: int, reads: list):
        self._name, self._reads = f"n{i}", reads

    @property
    def name(self) -> str:
        self._reads.append(self._name)
        return self._name


def test_a_hundred_thousand_differences_are_listed_a_page_at_a_time(qtbot):
    """Rows, and their texts, are made a page at a time: what the list
    builds is counted (the names its texts read), not timed, so the test
    says the same on any machine under any load."""
    reads = []
    diff = SimpleNamespace(rewrites=[], changed=[], added=[_Node(i, reads) for i in range(60_000)],
                           removed=[_Node(i, reads) for i in range(40_000)], weights_changed=[], weights_added=[],
                           weights_removed=[], inputs=IoDiff(), outputs=IoDiff(), renamed_nodes=[], renamed_values=[],
                           model_fields=[], weights_not_compared=[], nodes_not_compared=[])
    rows = DifferenceList(diff)
    qtbot.addWidget(rows)
    assert set(reads) == {f"n{i}" for i in range(PAGE)}, f"{len(reads)} names read for a page of {PAGE} rows"
    assert rows.list.count() == PAGE and "100000" in rows.count.text() and not rows.more.isHidden()
    rows.more.click()
    assert set(reads) == {f"n{i}" for i in range(2 * PAGE)}
    assert rows.list.count() == 2 * PAGE and rows.list.item(PAGE).text() == f"added: n{PAGE} (Relu)"
