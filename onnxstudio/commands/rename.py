"""`onnxstudio rename FILE -o OUT --value OLD=NEW`"""
from __future__ import annotations

from ..core.edits import rename_everywhere
from ._editing import add_io_arguments, apply, open_document, pair, refusals_name, save_output

NAME = "rename"
HELP = "Rename values everywhere they are used (subgraphs that read them too)."


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--value", action="append", required=True, metavar="OLD=NEW",
                   help="a value to rename (repeat for several)")


def run(args) -> int:
    pairs = [pair(text, "--value") for text in args.value]
    doc = open_document(args.file)
    for old, new in pairs:
        with refusals_name(args.file):
            macro = rename_everywhere(doc.model, old, new)
        apply(doc, macro)
    save_output(doc.model, args.file, args.output)
    print(f"wrote {args.output}: renamed " + ", ".join(f"{o} to {n}" for o, n in pairs))
    return 0
