"""`onnxstudio set-shape FILE -o OUT --input NAME=DIM,DIM,...`"""
from __future__ import annotations

from ..core.dims_text import DimsTextError, parse_dims
from ..core.edits import find_graph, set_input_shape
from ..errors import UserError
from ._editing import (add_io_arguments, apply, errors_added, open_document, pair, problems_note, refusals_name,
                       save_output)
from .counts import counted

NAME = "set-shape"


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--input", action="append", required=True, metavar="NAME=DIM,DIM,...",
                   help="e.g. input_ids=1,seq or image=1,3,224,224 (repeat for several inputs); a dim is a "
                        "size (0 to 2**63-1), a name (letters, digits, _ . :, not starting with a digit) or ?")
    p.add_argument("--allow-rank-change", action="store_true",
                   help="let an input take a different number of dims than it has (refused otherwise: "
                        "the nodes that read it were made for its rank)")
    p.add_argument("--force", action="store_true",
                   help="write the result even when the checker finds errors in it that the input did not have")


def parse_input_dims(text: str, option: str) -> list:
    """DIMS of `--input NAME=DIMS` in the shared dims grammar (core/dims_text.py);
    a UserError naming the option and the bad dim."""
    try:
        return parse_dims(text)
    except DimsTextError as e:
        raise UserError(f"{option}: {e}") from None


_NAMES_SHOWN = 5


def names_replaced(model, edits) -> list[str]:
    """'399[0] LayerNormalization399_dim_0 -> 2' for each named dim of a
    declaration that `edits` (set_input_shape's, after the input's own)
    write otherwise; read before they are applied."""
    out = []
    for e in edits:
        old = getattr(find_graph(model, e.graph).get_value(e.value), "type", None)
        old_shape = getattr(old, "shape", None)
        if old_shape is None or e.shape is None or len(old_shape) != len(e.shape):
            continue
        out += [f"{e.value}[{axis}] {was} -> {'?' if now is None else now}"
                for axis, (was, now) in enumerate(zip(old_shape, e.shape)) if isinstance(was, str) and now != was]
    return out


def run(args) -> int:
    wanted = []
    for text in args.input:
        name, dims = pair(text, "--input")
        wanted.append((name, parse_input_dims(dims, f"--input {name}")))
    doc = open_document(args.file)
    errors_before = doc.diagnostics
    changed = 0
    replaced: list = []
    for name, dims in wanted:
        with refusals_name(args.file):
            macro = set_input_shape(doc.model, name, dims, allow_rank_change=args.allow_rank_change)
        replaced += names_replaced(doc.model, macro.edits[1:])
        apply(doc, macro)
        changed += len(macro.edits) - 1
    new_errors = errors_added(errors_before, doc.diagnostics)
    if new_errors and not args.force:
        first = new_errors[0]
        raise UserError(f"{args.file}: the new shapes make the model invalid: the checker finds "
                        f"{counted(len(new_errors), 'error')} the input did not have, first {first.path}: "
                        f"{first.code}: {first.message}. Nothing written; give other shapes, or --force to "
                        f"write it anyway", exit_code=1)
    save_output(doc.model, args.file, args.output)
    shapes = "; ".join(f"{n}=[{','.join('?' if d is None else str(d) for d in dims)}]" for n, dims in wanted)
    forced = (f"; written although the checker finds {counted(len(new_errors), 'new error')} (--force)"
              if new_errors else "")
    print(f"wrote {args.output}: {shapes}; {changed} declared types rewritten{forced or problems_note(doc.model)}")
    if replaced:
        # A name the exporter gave a dim is gone from the file once replaced:
        # setting the input back names that dim after the input instead.
        shown = ", ".join(replaced[:_NAMES_SHOWN]) + (f" and {len(replaced) - _NAMES_SHOWN} more"
                                                       if len(replaced) > _NAMES_SHOWN else "")
        print(f"dim names replaced in the declarations: {shown}")
    # A symbolic size the model's fixed numbers allow only one value of: valid
    # for every checker, yet other sizes fail at run (an export traced at one size).
    had = {(d.code, d.path) for d in errors_before}
    fixed = [d for d in doc.diagnostics if d.code == "shape.dim-fixed" and (d.code, d.path) not in had]
    if fixed:
        print(f"warning: {counted(len(fixed), 'node')} of the model allow only one size of a symbolic dim, "
              f"first {fixed[0].path}: {fixed[0].message} (`onnxstudio check` lists them)")
    return 0
