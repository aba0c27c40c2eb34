"""One module per sub-command (see onnxstudio/cli.py): `set-shape` lives in
set_shape.py and defines NAME, configure(parser) and run(args) -> exit code.

COMMANDS is the one place that lists them with their help line. The CLI
reads it to list the commands (`onnxstudio --help`) and to tell a command
from a file, then imports only the command it runs: importing every command
module took 0.7-2.2 s of each call (the executor's kernels, the checker,
inference, Qt for render), most of it for commands not run.
tests/test_cli_command_table.py holds the table to the modules."""
from __future__ import annotations

COMMANDS = {
    "check": "Check a model against the ONNX IR rules and operator signatures; exit 1 if it has errors.",
    "cleanup": "Remove what the outputs do not need: unused nodes, initializers, stale value_info entries and "
               "unused opset imports.",
    "convert": "Load a model and save it again: a round trip, or move weights into or out of external data.",
    "diff": "Compare two models: nodes, values and weights paired by name or, when renamed, by structure; "
            "what was changed, added, removed, renamed or rewritten (exit 0 equal, 1 different, 2 bad input, "
            "4 nothing else differs but some weights' values could not be read to compare).",
    "edit": "Replay an edit script (a JSON list of edits, as core.Document.script() writes it) on a model. "
            "A step that no longer applies stops the replay and nothing is written.",
    "extract": "Write the part of a model that computes the given outputs from the given inputs as a new model, "
               "with types and shapes on its new inputs and outputs.",
    "infer": "Infer every value's type and shape and write a copy of the model with value_info filled in.",
    "info": "Print what a model contains: versions, inputs/outputs, ops, weights, functions, subgraphs.",
    "profile": "Time every node of a run (the built-in executor's, or onnxruntime's) and print the slowest nodes "
               "and op types with their share of the total.",
    "reduce": "Write the smallest subgraph that still disagrees with the reference (onnxruntime, a golden .npz or "
              "a second model), starting from the node with the largest own error, with its inputs as .npz "
              "beside it.",
    "rename": "Rename values everywhere they are used (subgraphs that read them too).",
    "render": "Draw a model's graph to an SVG or PNG file without opening a window",
    "run": "Run a model (or selected nodes) on inputs with the built-in numpy executor.",
    "set-shape": "Give graph inputs new shapes (sizes, symbolic names, or ? for unknown), re-infer the shapes "
                 "after them and rewrite the value_info and output declarations the change reaches. "
                 "A rank change needs --allow-rank-change; a result the checker finds new errors in is "
                 "not written unless --force.",
}


def module_name(command: str) -> str:
    """The module in this package that runs `command` (its name with _ for -)."""
    return f"{__name__}.{command.replace('-', '_')}"
