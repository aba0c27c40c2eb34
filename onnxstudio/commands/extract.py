"""`onnxstudio extract FILE -o OUT --inputs NAME,... --outputs NAME,...`"""
from __future__ import annotations

from ..core import load
from ..core.edits import EditError, extract_model
from ..errors import UserError
from ._editing import add_io_arguments, names, save_output

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
    try:
        part = extract_model(model, inputs, outputs)
    except EditError as e:
        raise UserError(f"{args.file}: {e}") from None
    out = save_output(part, args.file, args.output)
    print(f"wrote {out}: {len(part.graph.nodes)} of {len(model.graph.nodes)} nodes, "
          f"{len(part.graph.initializers) + len(part.graph.sparse_initializers)} initializers; "
          f"inputs {', '.join(inputs)}; outputs {', '.join(outputs)}")
    return 0
