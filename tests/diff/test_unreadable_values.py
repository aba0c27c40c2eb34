"""A weight (or a Constant's tensor) whose data cannot be read (its data
file missing, a reference leaving the model's folder) on one side or both:
`onnxstudio diff`, the Compare window's list and side by side, and
--script still compare everything else. Its values are "not compared",
with the reason, never equal and never different by value; exit 4 when
nothing else differs, 1 when something does."""
import json

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.cli import main
from onnxstudio.core import Document, load
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.to_script import derive_script
from onnxstudio.core.edits import replay
from onnxstudio.ui.diff.difference_list import NOT_COMPARED_ROLE, DifferenceList
from onnxstudio.ui.diff.side_by_side import SideBySide

MISSING = "its external data file 'w.bin' is not found"
LEAVES = "external data location '../secret.bin' leaves the model's folder"


def _weight(how: str, name: str, shape, value: float):
    """`how`: inline, beside (w.bin written next to the model), missing (w.bin
    never written) or dotdot (../secret.bin, outside the folder)."""
    if how == "inline":
        return numpy_helper.from_array(np.full(shape, value, np.float32), name), None
    t = TensorProto(name=name, data_type=TensorProto.FLOAT, dims=list(shape), data_location=TensorProto.EXTERNAL)
    e = t.external_data.add()
    e.key, e.value = "location", "../secret.bin" if how == "dotdot" else "w.bin"
    return t, (np.full(shape, value, np.float32).tobytes() if how == "beside" else None)


def _model(folder, how: str, *, name: str = "w", shape=(4,), value: float = 1.0, extra_relu: bool = False,
           as_constant: bool = False):
    """x + w -> y (and a Relu after it with `extra_relu`), w an initializer
    or with `as_constant` a Constant node's value."""
    folder.mkdir(parents=True)
    (folder.parent / "secret.bin").write_bytes(np.full(shape, value, np.float32).tobytes())
    w, data = _weight(how, "" if as_constant else name, shape, value)
    if data is not None:
        (folder / "w.bin").write_bytes(data)
    nodes = [helper.make_node("Constant", [], [name], name="const", value=w)] if as_constant else []
    nodes.append(helper.make_node("Add", ["x", name], ["s" if extra_relu else "y"], name="add"))
    if extra_relu:
        nodes.append(helper.make_node("Relu", ["s"], ["y"], name="relu"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, list(shape))],
                          [] if as_constant else [w])
    path = folder / "model.onnx"
    path.write_bytes(helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString())
    return path


def _diff(capsys, *args):
    rc = main(["diff", *map(str, args)])
    out, err = capsys.readouterr()
    return rc, out, err


@pytest.mark.parametrize("how_a", ["missing", "dotdot"])
def test_one_side_unreadable_alone_exits_4_and_says_values_not_compared(tmp_path, capsys, how_a):
    a, b = _model(tmp_path / "a", how_a), _model(tmp_path / "b", "inline")
    rc, out, err = _diff(capsys, a, b)
    assert rc == 4, err
    assert "the models are the same" not in out and "changed weights" not in out
    line = next(x for x in out.splitlines() if x.startswith("  weight w: values not compared: A: "))
    assert (MISSING if how_a == "missing" else LEAVES) in line and "B:" not in line
    rc, out, _ = _diff(capsys, a, b, "--json")
    j = json.loads(out)
    assert rc == 4 and j["equal"] is False and j["initializers"]["changed"] == []
    [entry] = j["values_not_compared"]
    assert entry["weight"] == "w" and entry["reason"].startswith("A: ")
    assert (MISSING if how_a == "missing" else LEAVES) in entry["reason"]


def test_both_sides_unreadable_name_both_reasons(tmp_path, capsys):
    a, b = _model(tmp_path / "a", "missing"), _model(tmp_path / "b", "dotdot")
    rc, out, _ = _diff(capsys, a, b, "--json")
    [entry] = json.loads(out)["values_not_compared"]
    assert rc == 4
    ra, rb = entry["reason"].split(" | ")
    assert ra.startswith("A: ") and MISSING in ra and rb.startswith("B: ") and LEAVES in rb


def test_readable_on_both_sides_still_compares_values(tmp_path, capsys):
    """The same pair with the data file beside each: equal, then changed by value."""
    a, b = _model(tmp_path / "a", "beside"), _model(tmp_path / "b", "inline")
    rc, out, _ = _diff(capsys, a, b, "--json")
    assert rc == 0 and json.loads(out)["values_not_compared"] == []
    c = _model(tmp_path / "c", "inline", value=2.0)
    rc, out, _ = _diff(capsys, a, c, "--json")
    [w] = json.loads(out)["initializers"]["changed"]
    assert rc == 1 and w["max_abs"] == 1.0 and "values_not_compared" not in w


def test_a_difference_elsewhere_exits_1_and_the_structure_is_listed(tmp_path, capsys):
    a, b = _model(tmp_path / "a", "missing"), _model(tmp_path / "b", "dotdot", extra_relu=True)
    rc, out, _ = _diff(capsys, a, b)
    assert rc == 1
    assert "added nodes (in B) (1):\n  relu" in out
    assert "weight w: values not compared: A: " in out


def test_shape_known_to_differ_is_a_change_whose_values_are_not_compared(tmp_path, capsys):
    a, b = _model(tmp_path / "a", "missing"), _model(tmp_path / "b", "inline", shape=(2, 2))
    rc, out, _ = _diff(capsys, a, b, "--json")
    j = json.loads(out)
    [w] = j["initializers"]["changed"]
    assert rc == 1 and w["shape"] == [[4], [2, 2]] and w["max_abs"] is None
    assert MISSING in w["values_not_compared"] and j["values_not_compared"] == []


def test_renamed_weight_pairs_without_reading_it(tmp_path):
    """No name to pair by: the content hash is not taken (it cannot be), the
    one weight of its dtype and shape on each side pairs as before."""
    a = load(_model(tmp_path / "a", "missing", name="w"))
    b = load(_model(tmp_path / "b", "inline", name="v"))
    d = diff_models(a, b)
    [c] = d.weights_not_compared
    assert (c.a.name, c.b.name) == ("w", "v") and not d.weights_added and not d.weights_removed
    assert d.uncertain and not d.equal


@pytest.mark.parametrize("how_a,how_b", [("missing", "inline"), ("inline", "dotdot"), ("missing", "dotdot")])
def test_constant_tensor_attribute_is_not_compared(tmp_path, capsys, how_a, how_b):
    a = _model(tmp_path / "a", how_a, as_constant=True)
    b = _model(tmp_path / "b", how_b, as_constant=True)
    rc, out, _ = _diff(capsys, a, b, "--json")
    j = json.loads(out)
    assert rc == 4 and j["nodes"]["changed"] == []
    [entry] = j["values_not_compared"]
    assert (entry["node"], entry["attribute"]) == ("const", "value")
    # The reason does not name the place again (the entry does).
    assert not [v for k, v in entry.items() if k not in ("node", "attribute") and '/attribute "value"' in str(v)]


def test_script_sets_b_values_over_unreadable_a_and_replays_to_b(tmp_path):
    a = load(_model(tmp_path / "a", "missing"))
    b = load(_model(tmp_path / "b", "inline", value=3.0))
    derived = derive_script(diff_models(a, b))
    assert derived.not_expressed == []
    assert [s["kind"] for s in derived.script] == ["set_initializer"]
    doc = Document(a)
    replay(doc, derived.script)
    assert diff_models(doc.model, b).equal


@pytest.mark.parametrize("how_b", ["missing", "dotdot"])
def test_script_says_an_unreadable_b_weight_is_not_set(tmp_path, capsys, how_b):
    a, b = _model(tmp_path / "a", "inline"), _model(tmp_path / "b", how_b)
    rc, out, err = _diff(capsys, a, b, "--script", tmp_path / "s.json")
    assert rc == 4, err
    assert json.loads((tmp_path / "s.json").read_text()) == []
    [line] = [x for x in out.splitlines() if "not set" in x]
    assert line.strip().startswith("weight w: values not compared and not set: B's data cannot be read: ")
    assert (MISSING if how_b == "missing" else LEAVES) in line


def test_script_says_a_changed_shape_it_cannot_set(tmp_path):
    a = load(_model(tmp_path / "a", "inline"))
    b = load(_model(tmp_path / "b", "missing", shape=(2, 2)))
    derived = derive_script(diff_models(a, b))
    assert not any(s["kind"] == "set_initializer" for s in derived.script)
    [line] = [x for x in derived.not_expressed if x.startswith("weight w ")]
    assert "shape [4] -> [2, 2]" in line and "not set" in line and MISSING in line


def test_script_says_an_unreadable_constant_it_cannot_set(tmp_path):
    a = load(_model(tmp_path / "a", "inline", as_constant=True))
    b = load(_model(tmp_path / "b", "dotdot", as_constant=True, value=5.0))
    derived = derive_script(diff_models(a, b))
    assert derived.script == []
    assert [x for x in derived.not_expressed if "attribute value of const" in x and LEAVES in x]


def test_window_list_and_side_by_side_mark_values_not_compared(qtbot, tmp_path):
    a = load(_model(tmp_path / "a", "missing"))
    b = load(_model(tmp_path / "b", "inline"))
    d = diff_models(a, b)
    rows = DifferenceList(d)
    qtbot.addWidget(rows)
    texts = [rows.list.item(i).text() for i in range(rows.list.count())]
    [k] = [i for i, t in enumerate(texts) if t.startswith("weight w: values not compared: A: ")]
    row = rows.list.item(k)
    assert MISSING in row.text() and row.data(NOT_COMPARED_ROLE) is True and row.font().italic()
    assert rows.total == len(texts) == 1 and rows.count.text() == "1 difference"   # listed, not passed over
    pane = SideBySide(d)
    qtbot.addWidget(pane)
    wa, wb = a.graph.initializers["w"], b.graph.initializers["w"]
    pane.show_pair(wa, wb)
    html = pane.toHtml()
    assert "not compared" in html and "w.bin" in html and "background-color:#fde7c2" in html


def test_compare_with_says_why_it_does_not_call_them_the_same(qtbot, tmp_path):
    """File ▸ Compare With… a copy that differs only in a weight whose data
    file is missing: the status bar says that nothing differs in what could
    be compared and how many weights were not, never 'the same'."""
    from PySide6.QtCore import QSettings

    from onnxstudio.ui.diff.compare_window import CompareAction
    from onnxstudio.ui.main_window import MainWindow
    from onnxstudio.ui.settings import Settings
    a = _model(tmp_path / "a", "missing")
    b = _model(tmp_path / "b", "inline")
    main = MainWindow(Settings(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(main)
    main.show()
    try:
        main.open_path(a)
        qtbot.waitUntil(lambda: main.model is not None and main.graph.settled, timeout=60_000)
        action = CompareAction(main)
        action.start(str(b))
        qtbot.waitUntil(lambda: bool(action.open_windows), timeout=60_000)
        message = main.statusBar().currentMessage()
        assert "No difference found in what could be compared" in message and "1 weight(s)" in message
        assert "the same" not in message
    finally:
        main.shutdown()
