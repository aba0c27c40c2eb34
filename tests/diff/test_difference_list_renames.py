"""The Compare window's list says what `onnxstudio diff` says: a renamed
value or node is a row. Before, renames were in the CLI's summary and JSON
but no row of the list, so a model whose only unsaved edit was a rename
opened Show Changes Since Save on "0 differences", and resnet18 after five
edits read "4 differences" against the CLI's five."""
import numpy as np
from onnx import TensorProto, helper, numpy_helper

from onnxstudio.core import Document, load_bytes
from onnxstudio.core.diff import diff_models
from onnxstudio.core.diff.report import to_json
from onnxstudio.core.edits import (SetAttribute, SetInitializer, SetNodeField, bypass_node, insert_on_edge,
                                   rename_everywhere)
from onnxstudio.core.ir import AttrType
from onnxstudio.ui.diff.difference_list import DIFFERENCE, DifferenceList


def _chain():
    """x -> Relu "r1" -> Conv "conv" (W) -> Relu "r2" -> LeakyRelu "leaky" -> y."""
    w = np.arange(2 * 2 * 1 * 1, dtype=np.float32).reshape(2, 2, 1, 1)
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="r1"),
             helper.make_node("Conv", ["a", "W"], ["c"], name="conv", group=1),
             helper.make_node("Relu", ["c"], ["d"], name="r2"),
             helper.make_node("LeakyRelu", ["d"], ["y"], name="leaky", alpha=0.1)]
    f = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1, 2, 3, 3]) for n in ("x", "y")]
    graph = helper.make_graph(nodes, "g", [f[0]], [f[1]], [numpy_helper.from_array(w, "W")])
    return load_bytes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString())


def _rows(qtbot, diff) -> list:
    rows = DifferenceList(diff)
    qtbot.addWidget(rows)
    return [(rows.list.item(i).text(), rows.list.item(i).data(DIFFERENCE)) for i in range(rows.list.count())], rows


def _cli_count(diff) -> int:
    """What the CLI's summary counts, one per listed entry."""
    j = to_json(diff)
    io = sum(len(v) for side in j["io"].values() for v in side.values())
    return (len(j["rewrites"]) + sum(len(v) for v in j["nodes"].values()) + len(j["renamed"])
            + sum(len(v) for v in j["initializers"].values()) + io + len(j["model"]))


def test_a_renamed_value_is_a_row(qtbot):
    a = _chain()
    doc = Document(_chain())
    doc.apply(rename_everywhere(doc.model, "c", "conv_out"))
    d = diff_models(a, doc.model)
    rows, widget = _rows(qtbot, d)
    assert [text for text, _ in rows] == ["value renamed: c → conv_out"]
    va, vb = rows[0][1]
    assert (va.name, vb.name) == ("c", "conv_out") and va.graph is a.graph
    assert widget.total == 1 == _cli_count(d)


def test_a_renamed_node_is_a_row(qtbot):
    a = _chain()
    doc = Document(_chain())
    doc.apply(SetNodeField("r2", "name", "relu_two"))
    d = diff_models(a, doc.model)
    rows, widget = _rows(qtbot, d)
    assert [text for text, _ in rows] == ["renamed: r2 → relu_two (Relu)"]
    na, nb = rows[0][1]
    assert (na.name, nb.name) == ("r2", "relu_two")
    assert widget.total == 1 == _cli_count(d)


def test_five_edits_are_five_rows_as_in_the_cli(qtbot):
    a = _chain()
    doc = Document(_chain())
    m = doc.model
    doc.apply(rename_everywhere(m, "c", "conv_out"))
    doc.apply(SetAttribute("leaky", "alpha", AttrType.FLOAT, 0.2))
    doc.apply(insert_on_edge(m, "a", "Sigmoid", name="inserted"))
    doc.apply(SetInitializer("W", np.full((2, 2, 1, 1), 3.0, np.float32)))
    doc.apply(bypass_node(m, "r2"))
    d = diff_models(a, m)
    rows, widget = _rows(qtbot, d)
    texts = [text for text, _ in rows]
    assert widget.total == len(texts) == 5 == _cli_count(d)
    assert texts[0] == "leaky: attributes alpha"
    assert "added: inserted (Sigmoid)" in texts and "removed: r2 (Relu)" in texts
    assert texts[-1] == "value renamed: c → conv_out"
