"""`onnxstudio cleanup FILE -o OUT`"""
from __future__ import annotations

from ..core.edits import cleanup
from ._editing import add_io_arguments, apply, open_document, problems_note, save_output
from .counts import counted

NAME = "cleanup"


def configure(p) -> None:
    add_io_arguments(p)


def run(args) -> int:
    doc = open_document(args.file)
    macro = cleanup(doc.model)
    counts: dict = {}
    for e in macro.edits:
        counts[e.kind] = counts.get(e.kind, 0) + 1
    if macro.edits:
        apply(doc, macro)
    save_output(doc.model, args.file, args.output)
    removed = ", ".join([counted(counts.get("remove_node", 0), "node"),
                         counted(counts.get("remove_initializer", 0), "initializer"),
                         counted(counts.get("remove_value_info", 0), "value_info entry", "value_info entries"),
                         counted(counts.get("set_opset_import", 0), "opset import")])
    print(f"wrote {args.output}: removed {removed}{problems_note(doc.model)}")
    return 0
