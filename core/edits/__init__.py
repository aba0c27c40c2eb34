"""Every change a user can make to a model, as an undoable `Edit`.

    from onnxstudio.core.edits import SetAttribute
    inverse = SetAttribute("conv1", "group", AttrType.INT, 2).apply(model)
    inverse.apply(model)            # back as it was

Edits name nodes and graphs by name and path (refs.py); inverses may also
hold the objects they took out (the rule is in base.py). Use them through
`core.Document` to get undo/redo, live checking and change events.
"""
from .base import EDIT_KINDS, Changes, Edit, EditError, Macro, register
from .node_edits import SetAttribute, SetNodeField
from .compound import (RankChangeRefused, bypass_node, cleanup, demote_input, insert_on_edge,
                       promote_initializer, rename_everywhere, replace_with_node, set_input_shape, toposort)
from .extract import extract_model
from .node_order import MoveProducersBefore, SortNodes
from .model_edits import SetGraphField, SetMetadata, SetModelField, SetOpsetImport
from .script import ScriptError, from_script, portable, replay, replay_report, to_script
from .refs import find_graph, find_node, graph_path, node_ref
from .values import (AddGraphInput, AddGraphOutput, AddInitializer, AddValueInfo, MoveGraphInput,
                     MoveGraphOutput, RemoveGraphInput, RemoveGraphOutput, RemoveInitializer, RemoveValueInfo,
                     RenameValue, SetInitializer, SetValueType, sparse_from_dense)
from .wiring import AddNode, RemoveNode, SetNodeInput, SetNodeInputs, SetNodeOrder, SetNodeOutputs

__all__ = ["EDIT_KINDS", "Changes", "Edit", "EditError", "Macro", "register", "SetAttribute",
           "SetNodeField", "find_graph", "find_node", "graph_path", "node_ref",
           "AddNode", "RemoveNode", "SetNodeInput", "SetNodeInputs", "SetNodeOrder", "SetNodeOutputs",
           "AddGraphInput", "AddGraphOutput", "AddInitializer", "AddValueInfo", "MoveGraphInput",
           "MoveGraphOutput", "RemoveGraphInput", "RemoveGraphOutput", "RemoveInitializer", "RemoveValueInfo",
           "RenameValue", "SetInitializer", "SetValueType", "SetGraphField", "SetMetadata", "SetModelField",
           "SetOpsetImport", "MoveProducersBefore", "SortNodes",
           "RankChangeRefused", "bypass_node", "cleanup", "demote_input", "extract_model",
           "insert_on_edge",
           "promote_initializer", "rename_everywhere", "replace_with_node", "set_input_shape", "sparse_from_dense",
           "toposort",
           "ScriptError", "from_script", "portable", "replay", "replay_report", "to_script"]
