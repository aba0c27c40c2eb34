"""`onnxstudio rename FILE -o OUT --value OLD=NEW`"""
from __future__ import annotations

from ..core.edits import rename_everywhere
from ..errors import UserError
from ._editing import add_io_arguments, apply, open_document, pair, refusals_name, save_output
from ._names import unknown_name

NAME = "rename"


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--value", action="append", required=True, metavar="OLD=NEW",
                   help="a value to rename (repeat for several)")


def _check_pairs(pairs, model, file) -> None:
    """Refuse what no rename can do: a value renamed twice, to itself, or
    one the model does not have (with the closest names it does have)."""
    known = {name for g in model.graph.walk() for name in g.values()}
    seen: dict = {}
    for old, new in pairs:
        if old in seen:
            raise UserError(f"--value {old}={new}: {old!r} is renamed to {seen[old]!r} by an earlier --value; "
                            "give each value once")
        if old == new:
            raise UserError(f"--value {old}={new}: the new name is the old one")
        if old not in known:
            raise unknown_name("--value", old, "value", file, known)
        seen[old] = new
        known.add(new)          # --value A=B --value B=C renames in turn


def run(args) -> int:
    pairs = [pair(text, "--value") for text in args.value]
    doc = open_document(args.file)
    _check_pairs(pairs, doc.model, args.file)
    for old, new in pairs:
        with refusals_name(args.file):
            macro = rename_everywhere(doc.model, old, new)
        apply(doc, macro)
    save_output(doc.model, args.file, args.output)
    print(f"wrote {args.output}: renamed " + ", ".join(f"{o} to {n}" for o, n in pairs))
    return 0
