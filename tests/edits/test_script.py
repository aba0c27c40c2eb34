"""Edit scripts: every edit kind survives JSON, and a Document's history
replays on a fresh copy of the model to the same bytes."""
import json

import numpy as np
import pytest

from onnxstudio import core
from onnxstudio.core import Document
from onnxstudio.core.edits import (EDIT_KINDS, AddGraphInput, AddGraphOutput, AddInitializer, AddNode, AddValueInfo,
                                   MoveProducersBefore, SortNodes,
                                   MoveGraphInput, MoveGraphOutput, RemoveGraphInput, RemoveGraphOutput,
                                   RemoveInitializer, RemoveNode, RemoveValueInfo, RenameValue, ScriptError,
                                   SetAttribute, SetGraphField, SetInitializer, SetMetadata, SetModelField,
                                   SetNodeField, SetNodeInput, SetNodeInputs, SetNodeOrder, SetNodeOutputs,
                                   SetOpsetImport, SetValueType, bypass_node, from_script, insert_on_edge,
                                   set_input_shape, to_script)
from onnxstudio.core.ir import AttrType, DataType, TensorType

from .models import chain
from .test_node_edits import _graph, _sparse

IF_THEN = (("node", "if", "then_branch"),)


def _forward_edits(m):
    return [
        SetNodeField("a", "doc_string", "d"), SetAttribute("a", "f", AttrType.FLOAT, 0.5),
        SetAttribute("a", "t", AttrType.TENSOR, np.arange(300, dtype=np.float32)),
        SetAttribute("a", "small", AttrType.TENSOR, np.array([1, 2], np.int8)),
        SetAttribute("a", "s", AttrType.SPARSE_TENSOR, _sparse()),
        SetAttribute("a", "tp", AttrType.TYPE_PROTO, TensorType(DataType.FLOAT16, (2, "n"))),
        SetAttribute("if", "then_branch", AttrType.GRAPH, _graph()),
        SetNodeInput("c", 0, "a_out"), SetNodeInputs("b", ["a_out", "W"]), SetNodeOutputs("b", ["b_out", ""]),
        AddNode("Neg", ["x"], ["nx"], {"alpha": (AttrType.INTS, [1, 2])}, name="n"), RemoveNode("n"),
        SetNodeOrder([0, 3, 1, 2, 4]), MoveProducersBefore("if", ["b_out"]), SortNodes(),
        AddInitializer("K", np.ones((2, 2), np.float32)), AddInitializer("SP", np.array([0, 3.0]), sparse=True),
        SetInitializer("K", shape=[4]), SetInitializer("K", dtype=DataType.FLOAT16), RemoveInitializer("SP"),
        RenameValue("K", "K2"), SetValueType("x", None, [1, 4]), AddValueInfo("b_out", DataType.FLOAT, [1, 4]),
        RemoveValueInfo("b_out"), AddGraphInput("extra", DataType.INT64, ["k"]), MoveGraphInput("extra", 0),
        RemoveGraphInput("extra"), AddGraphOutput("b_out"), MoveGraphOutput("b_out", 0), RemoveGraphOutput("b_out"),
        SetModelField("producer_name", "p"), SetOpsetImport("com.x", 1), SetMetadata("k", "v"),
        SetGraphField("doc_string", "g", IF_THEN),
    ]


def test_every_kind_of_edit_survives_json_and_replays_to_the_same_bytes():
    direct, replayed = chain(), chain()
    edits = _forward_edits(direct)
    kinds = {e.kind for e in edits}
    for e in edits:
        e.apply(direct)
    text = json.dumps(to_script(edits))
    for e in from_script(text):
        e.apply(replayed)
    assert core.to_bytes(replayed) == core.to_bytes(direct)
    # Every registered primitive kind is exercised here (macro: below).
    assert kinds | {"macro"} >= set(EDIT_KINDS), set(EDIT_KINDS) - kinds


def test_scripts_are_readable():
    step = to_script([SetAttribute("conv1", "group", AttrType.INT, 2), SetValueType("x", None, ["batch", 3]),
                      AddInitializer("w", np.array([1.0, 2.0], np.float32))])
    assert step[0] == {"kind": "set_attribute", "node": "conv1", "name": "group", "type": 2, "value": 2,
                       "ref_attr_name": "", "graph": []}
    assert step[1]["shape"] == ["batch", 3]
    assert step[2]["array"] == {"$array": {"dtype": 1, "shape": [2], "data": [1.0, 2.0]}}


def test_document_history_to_script_and_replay_on_a_fresh_copy():
    doc = Document(chain())
    original = core.to_bytes(doc.model)
    doc.apply(insert_on_edge(doc.model, "a_out", "Neg"))
    doc.apply(bypass_node(doc.model, "c"))
    doc.apply(set_input_shape(doc.model, "x", [1, 4]))
    doc.apply(SetAttribute("a", "note", AttrType.STRING, "fixed"))
    edited = core.to_bytes(doc.model)
    script = json.dumps(doc.script())

    fresh = Document(chain())
    assert fresh.replay(script) == 4
    assert core.to_bytes(fresh.model) == edited
    assert fresh.undo_name == "Replay edit script" and fresh.dirty
    fresh.undo()
    assert core.to_bytes(fresh.model) == original
    fresh.redo()
    assert core.to_bytes(fresh.model) == edited
    doc.goto(0)
    assert core.to_bytes(doc.model) == original


def test_a_step_that_no_longer_applies_stops_the_replay_and_changes_nothing():
    script = to_script([SetAttribute("a", "note", AttrType.STRING, "x"), RemoveNode("gone"),
                        SetModelField("producer_name", "never")])
    doc = Document(chain())
    before = core.to_bytes(doc.model)
    with pytest.raises(ScriptError,
                       match=r'step 2 \(Remove node gone\) no longer applies: graph: no node named "gone"'):
        doc.replay(script)
    assert core.to_bytes(doc.model) == before and not doc.can_undo and not doc.dirty


def test_bad_scripts_name_the_step():
    with pytest.raises(ScriptError, match="step 1: unknown edit kind 'explode'"):
        from_script([{"kind": "explode"}])
    with pytest.raises(ScriptError, match='step 1: no "kind" naming the edit'):
        from_script([{"field": "doc_string", "value": ""}])
    with pytest.raises(ScriptError, match=r"step 2 \(set_model_field\): unknown field\(s\) colour"):
        from_script([{"kind": "set_model_field", "field": "doc_string", "value": ""},
                     {"kind": "set_model_field", "colour": 1}])
    with pytest.raises(ScriptError, match="invalid JSON"):
        from_script("{oops")
    with pytest.raises(ScriptError, match=r"step 1 \(rename_value\): .*missing 1 required positional argument"):
        from_script([{"kind": "rename_value", "old": "x"}])


def test_malformed_steps_are_named_and_roll_back():
    with pytest.raises(ScriptError, match=r"step 1 \(add_initializer\): field 'array' holds a malformed value"):
        from_script([{"kind": "add_initializer", "name": "k", "array": {"$array": {"shape": [1]}}}])
    doc = Document(chain())
    before = core.to_bytes(doc.model)
    # A graph path of the wrong form is refused as the script is read: nothing applied.
    script = [{"kind": "set_model_field", "field": "doc_string", "value": "x"},
              {"kind": "set_node_field", "node": "a", "field": "name", "value": "b2", "graph": [["node"]]}]
    with pytest.raises(ScriptError, match=r"step 2 \(set_node_field\): field 'graph' must be a graph path"):
        doc.replay(script)
    assert core.to_bytes(doc.model) == before and not doc.can_undo
    script[1] = {"kind": "set_node_inputs", "node": "a", "names": [["x"]]}
    with pytest.raises(ScriptError, match=r"step 2 \(set_node_inputs\): field 'names' must be a list of value "
                                          r"names"):
        doc.replay(script)
    assert core.to_bytes(doc.model) == before and not doc.can_undo
    # A step that fails as it applies: step 1, applied, is rolled back.
    script[1] = {"kind": "set_node_field", "node": "no such node", "field": "name", "value": "b2"}
    with pytest.raises(ScriptError, match=r"step 2 \(.*\) no longer applies"):
        doc.replay(script)
    assert core.to_bytes(doc.model) == before and not doc.can_undo

