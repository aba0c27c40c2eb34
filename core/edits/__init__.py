"""Every change a user can make to a model, as an undoable `Edit`.

    from onnxstudio.core.edits import SetAttribute
    inverse = SetAttribute("conv1", "group", AttrType.INT, 2).apply(model)
    inverse.apply(model)            # back as it was

Edits name nodes and graphs by name and path (refs.py); inverses may also
hold the objects they took out (the rule is in base.py). Use them through
`core.Document` to get undo/redo, live checking and change events.

Importing the package loads none of the edit modules: each name below is
loaded from its module on first use (PEP 562), so the app's start, which
needs only `base` (the Document), does not pay for every edit. Reading
`EDIT_KINDS` here, or reading a script (script.py), loads every kind first.
"""
from .. import lazy_exports

# module -> the names this package hands out from it
_EXPORTS = {
    "base": ("EDIT_KINDS", "Changes", "Edit", "EditError", "Macro", "register",),
    "node_edits": ("SetAttribute", "SetNodeField",),
    "compound": ("RankChangeRefused", "bypass_node", "cleanup", "demote_input", "insert_on_edge",
                 "promote_initializer", "remove_nodes", "rename_everywhere", "replace_with_node", "set_input_shape",
                 "toposort",),
    "extract": ("extract_model",),
    "node_order": ("MoveProducersBefore", "SortNodes",),
    "model_edits": ("SetGraphField", "SetMetadata", "SetModelField", "SetOpsetImport",),
    "script": ("ScriptError", "from_script", "portable", "replay", "replay_report", "to_script",),
    "refs": ("find_graph", "find_node", "graph_path", "node_ref",),
    "values": ("AddGraphInput", "AddGraphOutput", "AddInitializer", "AddValueInfo", "MoveGraphInput",
               "MoveGraphOutput", "RemoveGraphInput", "RemoveGraphOutput", "RemoveInitializer", "RemoveValueInfo",
               "RenameValue", "SetInitializer", "SetValueType", "sparse_from_dense", "typed_output",),
    "wiring": ("AddNode", "RemoveNode", "SetNodeInput", "SetNodeInputs", "SetNodeOrder", "SetNodeOutputs",),
}

# The modules whose edits register a kind (script.py imports the same ones).
KIND_MODULES = ("node_edits", "values", "wiring", "model_edits", "node_order")

__getattr__, __dir__ = lazy_exports.on_first_use(globals(), _EXPORTS, loaded_first={"EDIT_KINDS": KIND_MODULES})

__all__ = ["EDIT_KINDS", "Changes", "Edit", "EditError", "Macro", "register", "SetAttribute",
           "SetNodeField", "find_graph", "find_node", "graph_path", "node_ref",
           "AddNode", "RemoveNode", "SetNodeInput", "SetNodeInputs", "SetNodeOrder", "SetNodeOutputs",
           "AddGraphInput", "AddGraphOutput", "AddInitializer", "AddValueInfo", "MoveGraphInput",
           "MoveGraphOutput", "RemoveGraphInput", "RemoveGraphOutput", "RemoveInitializer", "RemoveValueInfo",
           "RenameValue", "SetInitializer", "SetValueType", "SetGraphField", "SetMetadata", "SetModelField",
           "SetOpsetImport", "MoveProducersBefore", "SortNodes",
           "RankChangeRefused", "bypass_node", "cleanup", "demote_input", "extract_model",
           "insert_on_edge",
           "promote_initializer", "remove_nodes", "rename_everywhere", "replace_with_node", "set_input_shape",
           "sparse_from_dense",
           "toposort", "typed_output",
           "ScriptError", "from_script", "portable", "replay", "replay_report", "to_script"]
