"""Search finds values by their type and shape as the edges show them
("[1,64,56,56]", "float16[", "[batch,seq"): declared types at once,
inferred ones once the analysis is in, in bodies too; Enter goes to the
value as for a name. A query without "[" searches names only and does not
wait for the types' index (it costs as much again on 10k nodes)."""
from __future__ import annotations

from PySide6.QtCore import Qt

from loop_model import write_loop_model
from viewer_helpers import open_model, wait_idle


def test_index_holds_declared_types_in_bodies(tmp_path):
    from onnxstudio import core
    from onnxstudio.ui.search import build_type_index, search
    model = core.load(write_loop_model(tmp_path / "loop.onnx"))
    hits = search(build_type_index(model), "float[2]")
    names = {h.obj.name for h in hits}
    assert {"start", "out", "acc_in", "acc_out"} <= names            # main graph and Loop body
    assert all(h.kind in ("value", "initializer") for h in hits)
    body = next(h for h in hits if h.obj.name == "acc_in")
    assert "Loop" in body.where and "float[2]" in body.label
    assert search(build_type_index(model), "bool[]")[0].obj.name in {"cond", "cond_in", "cond_out"}


def test_inferred_shapes_are_found_after_the_analysis(qtbot, window, tmp_path):
    path = write_loop_model(tmp_path / "loop.onnx")
    open_model(qtbot, window, path)
    qtbot.waitUntil(lambda: window.qdoc.ready, timeout=60_000)
    result = window.model.graph.get_value("result")        # the Loop's output: declared nowhere
    assert result.own_type is None and window.qdoc.document.type_of(result) is not None
    window.show_search()
    window.search.edit.setText(str(window.qdoc.document.type_of(result)))
    hits = [window.search.results.item(i).data(Qt.UserRole) for i in range(window.search.results.count())]
    assert any(h.obj is result for h in hits)
    row = next(i for i, h in enumerate(hits) if h.obj is result)
    window.search.results.setCurrentRow(row)
    window.search.activate_current()
    wait_idle(qtbot, window)
    assert any(item.ref.value is result for item in window.graph.scene.selectedItems())


def test_a_name_query_leaves_the_types_alone(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui import search as search_module
    open_model(qtbot, window, write_loop_model(tmp_path / "loop.onnx"))
    built = []
    real = search_module.build_type_index
    monkeypatch.setattr(search_module, "build_type_index", lambda *a: built.append(1) or real(*a))
    window.show_search()
    window.search.edit.setText("float")
    assert built == []
    window.search.edit.setText("float[")
    assert built == [1] and window.search.results.count() > 0
