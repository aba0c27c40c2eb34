"""`onnxstudio infer FILE [-o OUT]`: write a copy with every value's type stored."""
from __future__ import annotations

import pathlib

from ..core import load, save
from ..core.diagnostics import WARNING
from ..core.infer import Inference
from ..errors import UserError

NAME = "infer"
HELP = "Infer every value's type and shape and write a copy of the model with value_info filled in."


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
    stored = inf.write()
    diags = inf.diagnostics
    if not args.quiet:
        for d in diags:
            print(d)
    known = sum(1 for t in types.values() if getattr(t, "shape", None) is not None
                and all(isinstance(x, (int, str)) for x in t.shape))
    save(model, out)
    warnings = sum(1 for d in diags if d.severity == WARNING)
    print(f"wrote {out}: {stored} value types stored; {known}/{len(types)} values of the main graph "
          f"have a full shape; {warnings} conflicts with stored types, {len(diags) - warnings} notes")
    return 0
