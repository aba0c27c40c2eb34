"""Edit scripts replay on a re-export: node orders are named by the nodes
they move, never by positions, and older scripts holding positions still
replay (converted by name, the report says so)."""
import json

import pytest
from onnx import TensorProto, helper

from onnxstudio import core
from onnxstudio.core import Document
from onnxstudio.core.edits import (EditError, Macro, MoveProducersBefore, ScriptError, SetNodeInput, SetNodeOrder,
                                   SortNodes, portable, replay_report, to_script)

from .models import check_roundtrip


def _model(reexport: bool = False) -> core.Model:
    """r, n, s read x; add = r + n; add2 = add + s. The re-export puts a
    Constant first and adds a node that reads it (another count, other
    positions), as exporters do."""
    nodes = [helper.make_node("Relu", ["x"], ["r_out"], name="r"),
             helper.make_node("Neg", ["x"], ["n_out"], name="n"),
             helper.make_node("Sigmoid", ["x"], ["s_out"], name="s"),
             helper.make_node("Add", ["r_out", "n_out"], ["y"], name="add"),
             helper.make_node("Add", ["y", "s_out"], ["z"], name="add2")]
    outputs = [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2])]
    if reexport:
        k = helper.make_node("Constant", [], ["k_out"], name="k",
                             value=helper.make_tensor("kv", TensorProto.FLOAT, [2], [1.0, 2.0]))
        nodes = [k] + nodes + [helper.make_node("Mul", ["z", "k_out"], ["w"], name="mul")]
        outputs.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [2]))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], outputs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    return core.load_bytes(m.SerializeToString())


def _order(model) -> list[str]:
    return [n.name for n in model.graph.nodes]


def _connect_n_to_s(model) -> Macro:
    """What dragging s_out onto n's input 0 records (ui/canvas_edits.connect)."""
    return Macro([MoveProducersBefore("n", ["s_out"]), SetNodeInput("n", 0, "s_out")], "Connect s_out to n")


def test_moving_producers_before_a_node_names_them_and_undoes_to_the_same_bytes():
    m = _model()

    def look(model, _changes):
        assert _order(model) == ["r", "s", "n", "add", "add2"]
    check_roundtrip(m, MoveProducersBefore("n", ["s_out"]), look=look)
    # Already first (check_roundtrip ends redone): nothing moves.
    assert isinstance(MoveProducersBefore("add2", ["s_out"]).apply(m), Macro)
    assert _order(m) == ["r", "s", "n", "add", "add2"]


def test_moving_what_the_node_itself_feeds_before_it_is_refused_naming_it():
    m = _model()
    with pytest.raises(EditError, match='"add" cannot read what it produces itself'):
        MoveProducersBefore("add", ["z"]).apply(m)
    with pytest.raises(EditError, match="no value named 'nope'"):
        MoveProducersBefore("n", ["nope"]).apply(m)


def test_a_recorded_drag_connect_replays_on_a_reexport_with_another_node_order():
    doc = Document(_model())
    doc.apply(_connect_n_to_s(doc.model))
    script = json.dumps(doc.script())
    assert "set_node_order" not in script and '"move_producers_before"' in script

    other = Document(_model(reexport=True))
    lines = replay_report(other, script)
    assert lines == ["step 1: Connect s_out to n"]
    assert _order(other.model) == ["k", "r", "s", "n", "add", "add2", "mul"]
    assert other.model.graph.get_value("s_out").uses[0][0].name in {"n", "add2"}
    assert any(u.name == "n" for u, _ in other.model.graph.get_value("s_out").uses)
    core.load_bytes(core.to_bytes(other.model))


def test_an_older_script_with_absolute_positions_is_converted_and_says_so():
    """Scripts saved before: the drag-connect stored every node's position."""
    old = to_script([Macro([SetNodeOrder([0, 2, 1, 3, 4]), SetNodeInput("n", 0, "s_out")], "Connect s_out to n")])
    assert old[0]["edits"][0]["kind"] == "set_node_order"

    same = Document(_model())
    direct = _model()
    _connect_n_to_s(direct).apply(direct)
    assert replay_report(same, json.dumps(old))[0].startswith("step 1: Connect s_out to n (its node order")
    assert core.to_bytes(same.model) == core.to_bytes(direct)

    reexport = Document(_model(reexport=True))
    lines = replay_report(reexport, json.dumps(old))
    assert "recorded as positions in another file" in lines[0]
    assert _order(reexport.model) == ["k", "r", "s", "n", "add", "add2", "mul"]
    reexport.undo()
    assert _order(reexport.model) == ["k", "r", "n", "s", "add", "add2", "mul"]


def test_a_lone_absolute_order_replays_as_a_topological_sort():
    edits, notes = portable([SetNodeOrder([1, 0]), Macro([SetNodeOrder([0])], "Sort nodes")])
    assert [type(e) for e in edits] == [SortNodes, Macro] and isinstance(edits[1].edits[0], SortNodes)
    assert set(notes) == {0, 1}
    doc = Document(_model(reexport=True))
    before = core.to_bytes(doc.model)
    assert replay_report(doc, to_script([SetNodeOrder([1, 0])]))[0].startswith("step 1: Sort nodes")
    assert core.to_bytes(doc.model) == before      # already sorted: nothing moved


def test_a_failing_step_still_names_itself_and_changes_nothing():
    doc = Document(_model(reexport=True))
    before = core.to_bytes(doc.model)
    script = to_script([_connect_n_to_s(None), SetNodeInput("gone", 0, "x")])
    with pytest.raises(ScriptError, match=r"step 2 \(.*\) no longer applies: .*gone"):
        replay_report(doc, script)
    assert core.to_bytes(doc.model) == before and not doc.can_undo
