"""The tensor editor (initializers and tensor attributes): cells typed in the
table, .npy import/export with shape and dtype checks, a dtype change after
a preview of the precision lost, reshape with a size check; undo, redo,
save, reload and compare. Plus the viewer fixes of issue 14: the values
table is not squeezed, an initializer's type is not "(inferred)", long
symbolic dims are abbreviated with the full name on hover."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QUrl, Qt
from PySide6.QtWidgets import QToolTip

from edit_helpers import open_conv_model, open_editable


def _show(window, name):
    window.properties.show_value(window.model.graph.get_value(name))
    return window.properties.tensor_editor


def _set_cell(editor, row, col, text):
    model = editor.table.model
    return model.setData(model.index(row, col), text, Qt.EditRole)


def test_precision_change_preview_figures():
    from onnxstudio.ui.panels.tensor_editor import precision_change
    a = np.array([1.0, 1.0001, 70000.0, -2.5], np.float32)
    change = precision_change(a, np.dtype(np.float16))
    assert change["overflow"] == 1                 # 70000 does not fit float16
    assert change["changed"] >= 2
    assert 0 < change["max_abs"] < 1e-3
    exact = precision_change(np.arange(5, dtype=np.int64), np.dtype(np.float32))
    assert exact == {"max_abs": 0.0, "max_rel": 0.0, "changed": 0, "overflow": 0}


def test_initializer_cells_npy_dtype_reshape_undo_redo_save_reload(qtbot, window, tmp_path):
    import onnx
    from onnx import numpy_helper
    path = open_conv_model(qtbot, window, tmp_path)
    editor = _show(window, "W")
    assert editor is not None and editor.table.array.shape == (4, 3, 3, 3)
    original = np.asarray(window.model.graph.initializers["W"].const.numpy()).copy()
    # a cell typed in the table becomes one SetInitializer step (the table
    # shows axes 2 x 3 with 0 and 1 fixed: put the cell of W[0,1,0,0] there)
    editor.table.set_axes(0, 1)
    assert _set_cell(editor, 0, 1, "2.5")
    w = window.model.graph.get_value("W")
    assert w.const.numpy()[0, 1, 0, 0] == np.float32(2.5)
    assert window.document.steps[-1].name == "Set W[0,1,0,0]"
    # text that is not a float32 is refused at the field
    editor = window.properties.tensor_editor
    assert not _set_cell(editor, 0, 0, "abc")
    assert "not a float32" in editor.message.text()
    # export, change, import; a wrong shape and a wrong dtype are refused by name
    out = tmp_path / "w.npy"
    assert editor.export_npy(str(out))
    data = np.load(out)
    assert data[0, 1, 0, 0] == np.float32(2.5)
    data[:] = 0.5
    np.save(out, data)
    bad_shape, bad_dtype = tmp_path / "shape.npy", tmp_path / "dtype.npy"
    np.save(bad_shape, np.zeros((4, 27), np.float32))
    np.save(bad_dtype, np.zeros((4, 3, 3, 3), np.float64))
    assert not editor.import_npy(str(bad_shape))
    assert "shape [4, 27]" in editor.message.text() and "[4, 3, 3, 3]" in editor.message.text()
    assert not editor.import_npy(str(bad_dtype))
    assert "float64" in editor.message.text()
    assert editor.import_npy(str(out))
    assert np.all(w.const.numpy() == 0.5)
    # dtype: the preview shows the precision lost before the cast applies
    editor = window.properties.tensor_editor
    _set_cell(editor, 0, 0, "0.1")
    editor = window.properties.tensor_editor
    editor.dtype_combo.setCurrentIndex(editor.dtype_combo.findText("float16"))
    change = editor.preview_dtype()
    assert 0 < change["max_abs"] < 1e-4 and "max abs change" in editor.preview_label.text()
    assert editor.apply_dtype()
    assert int(w.const.dtype) == 10 and window.document.steps[-1].name == "Convert W to float16"
    # reshape: the element count is checked
    editor = window.properties.tensor_editor
    editor.shape_edit.setText("5, 5")
    assert not editor.reshape() and "25 elements" in editor.message.text()
    editor.shape_edit.setText("4, 27")
    assert editor.reshape()
    assert tuple(w.const.shape) == (4, 27)
    # undo / redo walk the same steps back and forth
    window.edit_actions.undo()
    assert tuple(w.const.shape) == (4, 3, 3, 3)
    window.edit_actions.undo()
    assert int(w.const.dtype) == 1
    window.edit_actions.redo()
    window.edit_actions.redo()
    assert tuple(w.const.shape) == (4, 27) and int(w.const.dtype) == 10
    assert window.edit_actions.files.save()
    saved = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    expected = np.full((4, 27), 0.5, np.float16)
    expected[0, 0] = np.float16(np.float32(0.1))
    assert saved["W"].dtype == np.float16 and np.array_equal(saved["W"], expected)
    # everything undone: the file's original weights
    while window.document.can_undo:
        window.edit_actions.undo()
    assert np.array_equal(w.const.numpy(), original)


def _write_constant_model(path, long_dim="LayerNormalizationlast_hidden_state_dim_0"):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    k = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "kv")
    nodes = [helper.make_node("Constant", [], ["k"], name="const1", value=k),
             helper.make_node("Add", ["x", "k"], ["y"], name="add1")]
    graph = helper.make_graph(nodes, "consts",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [long_dim, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [long_dim, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def test_tensor_attribute_from_the_node_editor(qtbot, window, tmp_path):
    import onnx
    from onnx import numpy_helper
    path = open_editable(qtbot, window, _write_constant_model(tmp_path / "c.onnx"))
    node = window.model.graph.nodes[0]
    window.properties.show_node(node)
    window.properties.editor.attr_editors["value"].button.click()
    editor = window.properties.tensor_editor
    assert editor is not None and editor.source.attr_name == "value"
    assert _set_cell(editor, 1, 2, "-7")
    assert node.attributes["value"].value.numpy()[1, 2] == -7
    # the editor stays open on the node after the edit (same slice)
    assert window.properties.tensor_editor is not None
    editor = window.properties.tensor_editor
    editor.shape_edit.setText("3, 2")
    assert editor.reshape()
    window.edit_actions.undo()
    assert tuple(node.attributes["value"].value.shape) == (2, 3)
    window.edit_actions.redo()
    assert window.edit_actions.files.save()
    value = onnx.load(path).graph.node[0].attribute[0].t
    expected = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected[1, 2] = -7
    assert np.array_equal(numpy_helper.to_array(value), expected.reshape(3, 2))


def test_viewer_table_height_declared_type_and_long_dims(qtbot, window, tmp_path):
    open_conv_model(qtbot, window, tmp_path)
    panel = window.properties
    editor = _show(window, "W")
    qtbot.waitUntil(lambda: editor.table.view.viewport().height() > 0)
    # at least ten rows of values in the default window, not four
    assert editor.table.view.viewport().height() >= 10 * editor.table.view.verticalHeader().defaultSectionSize()
    # an initializer's type is its data's: never "(inferred)"
    assert "(inferred)" not in panel.browser.toPlainText()
    # long symbolic dims: abbreviated in the panel, full name on hover
    open_editable(qtbot, window, _write_constant_model(tmp_path / "c.onnx"))
    long_dim = "LayerNormalizationlast_hidden_state_dim_0"
    panel.show_value(window.model.graph.get_value("x"))
    text = panel.browser.toPlainText()
    assert long_dim not in text and "…" in text
    key = next(k for k, v in panel._links.items() if v == long_dim)
    panel._hovered(QUrl(f"dim:{key}"))
    assert QToolTip.text() == long_dim
    panel.show_node(window.model.graph.nodes[1])       # node summaries abbreviate too
    assert long_dim not in panel.browser.toPlainText()


def test_a_cell_edit_carries_only_that_tensor(qtbot, window, tmp_path):
    """Large tensors are edited without copying the model: the step holds the
    new data of one tensor; every other initializer is the same object."""
    open_conv_model(qtbot, window, tmp_path)
    g = window.model.graph
    bias_before = g.initializers["B"].const
    w_before = g.initializers["W"].const
    editor = _show(window, "W")
    assert _set_cell(editor, 0, 0, "1")
    assert g.initializers["B"].const is bias_before
    step = window.document.steps[-1]
    assert [type(e).__name__ for e in step.forward] == ["SetInitializer"]
    assert step.forward[0].array.shape == (4, 3, 3, 3)
    window.edit_actions.undo()
    assert g.initializers["W"].const is w_before          # the old tensor object itself


def test_a_large_tensor_is_read_only_when_asked(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui.panels import tensor_editor
    monkeypatch.setattr(tensor_editor, "LOAD_NOW_BYTES", 100)     # W (432 bytes) counts as large
    open_conv_model(qtbot, window, tmp_path)
    editor = _show(window, "W")
    assert editor.array is None and not editor.table.isEnabled()
    assert "not read yet" in editor.stats.text()
    editor.load_button.click()
    assert editor.table.isEnabled() and editor.table.array.shape == (4, 3, 3, 3)
    assert _set_cell(editor, 0, 0, "3")
    assert window.model.graph.get_value("W").const.numpy()[0, 0, 0, 0] == 3


def test_a_constant_value_keeps_its_editor_and_slice_across_edits(qtbot, window, tmp_path):
    open_editable(qtbot, window, _write_constant_model(tmp_path / "c.onnx"))
    editor = _show(window, "k")
    assert editor.source.node.op_type == "Constant"
    assert _set_cell(editor, 0, 2, "9")
    assert window.properties.tensor_editor is editor          # not rebuilt: same axes and slice
    assert editor.table.array[0, 2] == 9
    window.edit_actions.undo()
    assert window.properties.tensor_editor.table.array[0, 2] == 2


# -- sparse tensors: a sparse initializer, a Constant's sparse_value --------------------------------

def _open_sparse(qtbot, window, tmp_path):
    from edit_models import write_sparse_model
    return open_editable(qtbot, window, write_sparse_model(tmp_path / "sparse.onnx"))


def _sparse_dense(const):
    from onnxstudio.core.ir import SparseTensor
    assert isinstance(const, SparseTensor), const
    return np.asarray(const.to_dense())


def _check_saved(path):
    """The saved file passes onnx.checker; its sparse initializer S and const1's
    sparse_value as dense arrays, read by onnx and by onnxstudio.core.load."""
    import onnx
    from onnx import AttributeProto
    from edit_models import saved_sparse
    from onnxstudio.core import load
    model = onnx.load(path)
    onnx.checker.check_model(model)
    assert [t.name for t in model.graph.initializer] == []
    (s,) = model.graph.sparse_initializer
    attr = next(a for a in model.graph.node[0].attribute if a.name == "sparse_value")
    assert attr.type == AttributeProto.SPARSE_TENSOR
    ours = load(path)
    s_ours = _sparse_dense(ours.graph.sparse_initializers["S"].const)
    k_ours = _sparse_dense(ours.graph.nodes[0].attributes["sparse_value"].value)
    s_onnx, k_onnx = saved_sparse(s), saved_sparse(attr.sparse_tensor)
    assert s.values.name == "S"
    for a, b in ((s_onnx, s_ours), (k_onnx, k_ours)):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    return s_onnx, k_onnx


def test_sparse_initializer_cells_npy_dtype_reshape_undo_redo_save_reload(qtbot, window, tmp_path):
    from edit_models import SPARSE_DENSE
    path = _open_sparse(qtbot, window, tmp_path)
    g = window.model.graph
    s = g.get_value("S")
    editor = _show(window, "S")
    # opened on the dense values, with a line saying how it is stored
    assert editor is not None and editor.source.sparse
    assert np.array_equal(editor.table.array, SPARSE_DENSE)
    assert editor.storage.isVisibleTo(editor) and "2 of 12 elements" in editor.storage.text()
    assert "float[3, 4]" in editor.title.text()
    history = [s.const]                       # the tensor after each step
    steps = len(window.document.steps)

    def stepped(name):
        assert len(window.document.steps) == steps + len(history)     # one step per change
        assert window.document.steps[-1].name == name
        history.append(s.const)
        return window.properties.tensor_editor
    # a nonzero typed into an empty cell joins the stored elements
    assert _set_cell(editor, 1, 0, "4")
    editor = stepped("Set S[1,0]")
    dense = SPARSE_DENSE.copy()
    dense[1, 0] = 4
    assert np.array_equal(_sparse_dense(s.const), dense) and s.const.values.size == 3
    assert "3 of 12 elements" in editor.storage.text()
    # a 0 drops the element from the stored indices
    assert _set_cell(editor, 0, 1, "0")
    editor = stepped("Set S[0,1]")
    dense[0, 1] = 0
    assert np.array_equal(_sparse_dense(s.const), dense)
    assert list(s.const.indices.numpy()) == [4, 11] and list(s.const.values.numpy()) == [4, -2]
    # bad input: one line naming the tensor, nothing changed
    assert not _set_cell(editor, 0, 0, "abc")
    assert editor.message.text().startswith("S:") and "not a float32" in editor.message.text()
    # export gives the dense array; import keeps it sparse (shape and dtype checked by name)
    out = tmp_path / "s.npy"
    assert editor.export_npy(str(out))
    assert np.array_equal(np.load(out), dense)
    bad_shape, bad_dtype = tmp_path / "shape.npy", tmp_path / "dtype.npy"
    np.save(bad_shape, np.zeros(12, np.float32))
    np.save(bad_dtype, np.zeros((3, 4), np.float64))
    assert not editor.import_npy(str(bad_shape))
    assert editor.message.text().startswith("S:") and "shape [12]" in editor.message.text()
    assert not editor.import_npy(str(bad_dtype)) and "float64" in editor.message.text()
    imported = np.zeros((3, 4), np.float32)
    imported[0, 0], imported[2, 2], imported[1, 3] = 0.1, 3, -1
    np.save(out, imported)
    assert editor.import_npy(str(out))
    editor = stepped("Import s.npy into S")
    assert np.array_equal(_sparse_dense(s.const), imported) and s.const.values.size == 3
    # dtype: previewed on the dense values, then the stored values are converted
    editor.dtype_combo.setCurrentIndex(editor.dtype_combo.findText("float16"))
    assert 0 < editor.preview_dtype()["max_abs"] < 1e-4
    assert editor.apply_dtype()
    editor = stepped("Convert S to float16")
    assert int(s.const.values.dtype) == 10 and _sparse_dense(s.const).dtype == np.float16
    assert not editor.apply_dtype() and "already float16" in editor.message.text()
    # reshape: the element count is checked; the tensor stays sparse
    editor.shape_edit.setText("5, 5")
    assert not editor.reshape() and "S:" in editor.message.text() and "25 elements" in editor.message.text()
    editor.shape_edit.setText("4, 3")
    assert editor.reshape()
    editor = stepped("Reshape S to [4, 3]")
    assert s.const.dims == (4, 3) and np.array_equal(_sparse_dense(s.const),
                                                      imported.astype(np.float16).reshape(4, 3))
    assert editor.table.array.shape == (4, 3)
    # undo walks back to the exact tensor objects, redo forward again
    final = _sparse_dense(s.const)
    for before in reversed(history[:-1]):
        window.edit_actions.undo()
        assert s.const is before
    assert np.array_equal(window.properties.tensor_editor.table.array, SPARSE_DENSE)
    for _ in history[1:]:
        window.edit_actions.redo()
    assert np.array_equal(_sparse_dense(s.const), final) and s.const.dims == (4, 3)
    # saved as a sparse initializer with the new values
    assert window.edit_actions.files.save()
    saved, _ = _check_saved(path)
    assert saved.dtype == np.float16 and np.array_equal(saved, final)


def test_constant_sparse_value_edits_undo_redo_save_reload(qtbot, window, tmp_path):
    from edit_models import SPARSE_CONST_DENSE
    path = _open_sparse(qtbot, window, tmp_path)
    node = window.model.graph.nodes[0]
    # the node editor offers "Edit tensor…" for sparse_value
    window.properties.show_node(node)
    button = window.properties.editor.attr_editors["sparse_value"]
    assert button.label.text() == "INT64[6], sparse: 2 of 6 stored"
    button.button.click()
    editor = window.properties.tensor_editor
    assert editor is not None and editor.source.attr_name == "sparse_value" and editor.source.sparse
    assert np.array_equal(editor.table.array, SPARSE_CONST_DENSE)
    assert "2 of 6 elements" in editor.storage.text()
    # ... and so does selecting its output
    editor = _show(window, "k")
    assert editor.source.node is node and editor.source.attr_name == "sparse_value"
    original = node.attributes["sparse_value"]

    def k():
        return _sparse_dense(node.attributes["sparse_value"].value)
    steps = len(window.document.steps)
    assert editor.table.model.rowCount() == 6           # a 1-D tensor is one column
    assert _set_cell(editor, 2, 0, "9")         # nonzero into an empty cell
    assert _set_cell(window.properties.tensor_editor, 0, 0, "0")      # a stored element becomes 0
    assert np.array_equal(k(), [0, 0, 9, 0, 7, 0])
    assert list(node.attributes["sparse_value"].value.indices.numpy()) == [2, 4]
    assert node.attributes["sparse_value"].value.name == "kv"
    editor = window.properties.tensor_editor
    assert not _set_cell(editor, 1, 0, "1.5") and editor.message.text().startswith('Constant "const1".sparse_value:')
    out = tmp_path / "k.npy"
    np.save(out, np.array([1, 0, 2, 0, 0, 3], np.int64))
    assert editor.import_npy(str(out))
    editor = window.properties.tensor_editor
    editor.dtype_combo.setCurrentIndex(editor.dtype_combo.findText("int32"))
    assert editor.apply_dtype()
    editor = window.properties.tensor_editor
    editor.shape_edit.setText("2, 3")
    assert editor.reshape()
    value = node.attributes["sparse_value"].value
    assert value.dims == (2, 3) and int(value.values.dtype) == 6
    assert np.array_equal(k(), np.array([[1, 0, 2], [0, 0, 3]], np.int32))
    # every change its own step; undo goes back through each, to the file's attribute itself
    assert [st.name for st in window.document.steps[steps:]] == [
        'Set Constant "const1".sparse_value[2]', 'Set Constant "const1".sparse_value[0]',
        'Import k.npy into Constant "const1".sparse_value', 'Convert Constant "const1".sparse_value to int32',
        'Reshape Constant "const1".sparse_value to [2, 3]']
    window.edit_actions.undo()
    assert node.attributes["sparse_value"].value.dims == (6,) and k().dtype == np.int32
    window.edit_actions.undo()
    assert k().dtype == np.int64 and np.array_equal(k(), [1, 0, 2, 0, 0, 3])
    window.edit_actions.undo()
    window.edit_actions.undo()
    window.edit_actions.undo()
    assert node.attributes["sparse_value"] is original
    for _ in range(5):
        window.edit_actions.redo()
    assert node.attributes["sparse_value"].value.dims == (2, 3)
    assert window.edit_actions.files.save()
    _, saved = _check_saved(path)
    assert saved.dtype == np.int32 and np.array_equal(saved, [[1, 0, 2], [0, 0, 3]])


def test_a_sparse_tensor_set_to_all_zeros_stays_sparse_and_valid(qtbot, window, tmp_path):
    path = _open_sparse(qtbot, window, tmp_path)
    for name in ("S", "k"):
        editor = _show(window, name)
        zeros = tmp_path / f"{name}.npy"
        np.save(zeros, np.zeros(editor.source.shape, editor.table.array.dtype))
        assert editor.import_npy(str(zeros))
        assert "0 of" in window.properties.tensor_editor.storage.text()
    assert window.edit_actions.files.save()
    s, k = _check_saved(path)
    assert not s.any() and s.shape == (3, 4) and not k.any() and k.shape == (6,)


def test_a_large_sparse_tensor_waits_for_load_values(qtbot, window, tmp_path, monkeypatch):
    from onnxstudio.ui.panels import tensor_editor
    monkeypatch.setattr(tensor_editor, "LOAD_NOW_BYTES", 40)     # S's dense values: 48 bytes
    _open_sparse(qtbot, window, tmp_path)
    editor = _show(window, "S")
    assert editor.array is None and not editor.table.isEnabled() and editor.load_button.isVisibleTo(editor)
    assert "not read yet (48 B)" in editor.stats.text() and "2 of 12" in editor.storage.text()
    editor.load_button.click()
    assert editor.table.isEnabled() and editor.table.array.shape == (3, 4)
    assert _set_cell(editor, 2, 0, "6")
    assert _sparse_dense(window.model.graph.get_value("S").const)[2, 0] == 6


def test_the_read_only_view_and_summary_show_a_sparse_tensor(qtbot, window, tmp_path):
    from edit_models import SPARSE_DENSE
    _open_sparse(qtbot, window, tmp_path)
    panel = window.properties
    s = window.model.graph.get_value("S")
    panel.show_value(s)
    text = panel.browser.toPlainText()
    assert "sparse: 2 of 12 elements" in text and "max" in text
    panel.initializer_values.set_tensor(s.const, "S")        # the viewer's table (no editing)
    panel.initializer_values.show_values()
    assert np.array_equal(panel.initializer_values.array, SPARSE_DENSE)
    panel.show_node(window.model.graph.nodes[0])
    assert "sparse: 2 of 6 elements stored" in panel.browser.toPlainText()
