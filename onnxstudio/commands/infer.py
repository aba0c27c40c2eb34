"""`onnxstudio infer FILE [-o OUT]`: write a copy with every value's type stored."""
from __future__ import annotations

import pathlib

from ..core import load, save
from ..core.diagnostics import WARNING
from ..core.infer import Inference
from ..core.infer.fresh import any_size, as_written
from ..core.ir.types import TensorType
from ..errors import UserError

NAME = "infer"


def configure(p) -> None:
    p.add_argument("file", help="the .onnx file to read")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="where to write the copy (default: FILE with .inferred.onnx)")
    p.add_argument("-q", "--quiet", action="store_true", help="do not list the diagnostics")


def _default_output(path: pathlib.Path) -> pathlib.Path:
    return path.with_name(path.stem + ".inferred.onnx")


def run(args) -> int:
    src = pathlib.Path(args.file)
    out = pathlib.Path(args.output) if args.output else _default_output(src)
    if out.resolve() == src.resolve():
        raise UserError(f"{out}: refusing to overwrite the input; choose another -o OUT")
    model = load(src)
    inf = Inference(model)
    types = inf.run()
    written, stored = inf.written_copy()
    diags = inf.diagnostics
    if not args.quiet:
        for d in diags:
            print(d)
    full, partial, unranked = _shape_counts(types.values())
    named = _named_input_dims(model, inf)
    save(written, out)
    warnings = sum(1 for d in diags if d.severity == WARNING)
    print(f"wrote {out}: {stored} value types stored; of {len(types)} values in the main graph, "
          f"{full} have every dim known (a number or a name), {partial} an unknown dim, "
          f"{unranked} no known rank; {warnings} conflicts with stored types, {len(diags) - warnings} notes")
    if named:
        print("input dims without a size are named after their input and axis: " + ", ".join(named))
    return 0


def _shape_counts(types) -> tuple[int, int, int]:
    """(every dim known, some dim unknown, rank unknown or not a tensor),
    counted as the file gets the types: a size only this run could name
    (`?N`) is written as an unknown dim, so it counts as one."""
    full = partial = unranked = 0
    for t in types:
        t = as_written(t)
        shape = t.shape if type(t) is TensorType else None
        if shape is None:
            unranked += 1
        elif None in shape:
            partial += 1
        else:
            full += 1
    return full, partial, unranked


def _named_input_dims(model, inf) -> list[str]:
    """The names inference gave the main graph's inputs' unknown dims."""
    out = []
    for v in model.graph.inputs:
        declared, inferred = getattr(any_size(v.type), "shape", None), getattr(inf.type_of(v), "shape", None)
        if declared is not None and inferred is not None and len(declared) == len(inferred):
            out += [d for was, d in zip(declared, inferred) if was is None and isinstance(d, str)]
    return out
