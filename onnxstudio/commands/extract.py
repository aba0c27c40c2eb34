"""`onnxstudio extract FILE -o OUT --inputs NAME,... --outputs NAME,...`"""
from __future__ import annotations

from ..core import load
from ..core.edits import extract_model
from ._editing import add_io_arguments, names, refusals_name, save_output
from .counts import counted

NAME = "extract"
HELP = ("Write the part of a model that computes the given outputs from the given inputs as a new model, "
        "with types and shapes on its new inputs and outputs.")


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--inputs", required=True, metavar="NAME,...", help="values the new model takes as inputs")
    p.add_argument("--outputs", required=True, metavar="NAME,...", help="values the new model gives as outputs")


def run(args) -> int:
    inputs, outputs = names(args.inputs, "--inputs"), names(args.outputs, "--outputs")
    model = load(args.file)
    with refusals_name(args.file):
        part = extract_model(model, inputs, outputs)
    out = save_output(part, args.file, args.output)
    print(f"wrote {out}: {len(part.graph.nodes)} of {counted(len(model.graph.nodes), 'node')}, "
          f"{counted(len(part.graph.initializers) + len(part.graph.sparse_initializers), 'initializer')}; "
          f"inputs {', '.join(inputs)}; outputs {', '.join(outputs)}")
    return 0
