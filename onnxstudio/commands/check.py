"""`onnxstudio check FILE [--json] [--severity error|warning|info]`"""
from __future__ import annotations

import json
import pathlib
import sys

from ..core import LoadError, load
from ..core.check import Severity, check_file
from ..errors import UserError

NAME = "check"


def configure(p) -> None:
    p.add_argument("file", help="the .onnx file")
    p.add_argument("--json", action="store_true", help="print a JSON list of diagnostics")
    p.add_argument("--severity", choices=["error", "warning", "info"], default="warning",
                   help="lowest severity to print (default: warning; errors decide the exit code either way)")
    p.add_argument("--no-infer", action="store_true",
                   help="check element types only where the file declares them (skip type inference)")


def run(args) -> int:
    path = pathlib.Path(args.file)
    if path.is_dir():
        raise UserError(f"{path}: is a folder, not an .onnx file", exit_code=2)
    if not path.exists():
        raise UserError(f"{path}: no such file; give the path of an .onnx model", exit_code=2)
    if not path.is_file():
        # A FIFO or a device: read as a model it would be an empty one (or block).
        raise UserError(f"{path}: not a regular file (a FIFO, socket or device); give the path of an .onnx "
                        "model", exit_code=2)
    refused = None
    try:
        model = load(path)          # proves the file is a readable model
        if not args.no_infer:
            model.graph             # built here (inference needs it): what the app would refuse at open
    except LoadError as e:
        # A model the app cannot open is still checked as the file says, so
        # every problem is listed; one that is no model at all is bad input.
        # (An external reference the reader cannot follow no longer refuses
        # a file: the tensor is marked unreadable and the checker names it.)
        refused, model = str(e), None
        try:
            diagnostics = check_file(path)
        except Exception:  # noqa: BLE001 - protobuf cannot read it either
            raise UserError(refused, exit_code=2) from None
    if refused is None:
        diagnostics = check_file(path, ir_model=None if args.no_infer else model)
    lowest = Severity[args.severity.upper()]
    shown = [d for d in diagnostics if d.severity >= lowest]
    if args.json:
        print(json.dumps([d.to_json() for d in shown], indent=1, ensure_ascii=False))
        if refused is not None:
            print(f"onnxstudio cannot open it: {refused}", file=sys.stderr)
    else:
        for d in shown:
            print(d)
        counts = {s: sum(1 for d in diagnostics if d.severity == s) for s in Severity}
        hidden = len(diagnostics) - len(shown)
        # The summary goes to stderr so stdout stays one line per diagnostic.
        summary = ", ".join(f"{counts[s]} {s.name.lower()}{'' if counts[s] == 1 else 's'}"
                            for s in (Severity.ERROR, Severity.WARNING, Severity.INFO))
        # One line, the reason the app cannot open the file last.
        print(f"{path.name}: {summary}" + (f" ({hidden} below --severity not shown)" if hidden else "")
              + (f"; onnxstudio cannot open it: {refused}" if refused is not None else ""), file=sys.stderr)
    if refused is not None:
        return 1
    return 1 if any(d.severity == Severity.ERROR for d in diagnostics) else 0
