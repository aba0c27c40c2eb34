"""`onnxstudio extract FILE -o OUT --inputs NAME,... --outputs NAME,...`"""
from __future__ import annotations

from ..core import load
from ..core.edits import extract_model
from ._editing import add_io_arguments, names, refusals_name, save_output
from ._names import unknown_name
from .counts import counted

NAME = "extract"


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--inputs", required=True, metavar="NAME,...", help="values the new model takes as inputs")
    p.add_argument("--outputs", required=True, metavar="NAME,...", help="values the new model gives as outputs")


def _check_names(model, file, given: dict) -> None:
    """Refuse a name the main graph defines no value for, with the closest
    names it has (core would refuse it too, without the hint)."""
    g = model.graph
    defined = [name for name, v in g.values().items()
               if v.producer is not None or v.const is not None or v.is_graph_input]
    known = set(defined)
    for option, names_given in given.items():
        for name in names_given:
            if name not in known:
                raise unknown_name(option, name, "value", f"the main graph of {file}", defined)


def run(args) -> int:
    inputs, outputs = names(args.inputs, "--inputs"), names(args.outputs, "--outputs")
    model = load(args.file)
    _check_names(model, args.file, {"--inputs": inputs, "--outputs": outputs})
    with refusals_name(args.file):
        part = extract_model(model, inputs, outputs)
    out = save_output(part, args.file, args.output)
    print(f"wrote {out}: {len(part.graph.nodes)} of {counted(len(model.graph.nodes), 'node')}, "
          f"{counted(len(part.graph.initializers) + len(part.graph.sparse_initializers), 'initializer')}; "
          f"inputs {', '.join(inputs)}; outputs {', '.join(outputs)}")
    return 0
