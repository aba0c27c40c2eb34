"""`onnxstudio set-shape FILE -o OUT --input NAME=DIM,DIM,...`"""
from __future__ import annotations

from ..core.edits import set_input_shape
from ..errors import UserError
from ._editing import add_io_arguments, apply, open_document, pair, problems_note, refusals_name, save_output

NAME = "set-shape"
HELP = ("Give graph inputs new shapes (numbers, symbolic names, or ? for unknown), re-infer the shapes "
        "after them and rewrite the value_info and output declarations that changed.")


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--input", action="append", required=True, metavar="NAME=DIM,DIM,...",
                   help="e.g. input_ids=1,seq or image=1,3,224,224 (repeat for several inputs)")


def parse_dims(text: str, option: str) -> list:
    dims = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise UserError(f"{option}: an empty dim in {text!r}")
        if part == "?":
            dims.append(None)
        elif part.lstrip("-").isdigit():
            n = int(part)
            if n < 0:
                raise UserError(f"{option}: dim {part} is negative; use a name or ? for an unknown size")
            dims.append(n)
        elif part.isidentifier() or all(c.isalnum() or c in "_.:-" for c in part):
            dims.append(part)
        else:
            raise UserError(f"{option}: {part!r} is neither a number, a name nor ?")
    return dims


def run(args) -> int:
    wanted = []
    for text in args.input:
        name, dims = pair(text, "--input")
        wanted.append((name, parse_dims(dims, f"--input {name}")))
    doc = open_document(args.file)
    changed = 0
    for name, dims in wanted:
        with refusals_name(args.file):
            macro = set_input_shape(doc.model, name, dims)
        apply(doc, macro)
        changed += len(macro.edits) - 1
    save_output(doc.model, args.file, args.output)
    shapes = "; ".join(f"{n}=[{','.join('?' if d is None else str(d) for d in dims)}]" for n, dims in wanted)
    print(f"wrote {args.output}: {shapes}; {changed} declared types rewritten{problems_note(doc.model)}")
    return 0
