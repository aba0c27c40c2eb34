"""`onnxstudio edit FILE -o OUT --script EDITS.json`"""
from __future__ import annotations

import pathlib

from ..core.edits import ScriptError, replay_report
from ..errors import UserError
from ._editing import add_io_arguments, open_document, problems_note, save_output

NAME = "edit"


def configure(p) -> None:
    add_io_arguments(p)
    p.add_argument("--script", required=True, metavar="EDITS.json", help="the edit script to replay")


def run(args) -> int:
    path = pathlib.Path(args.script)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{path}: cannot read ({getattr(e, 'strerror', None) or e})") from None
    doc = open_document(args.file)
    try:
        report = replay_report(doc, text, name=f"Replay {path.name}")
    except ScriptError as e:
        raise UserError(f"{path}: {e}; nothing was written") from None
    save_output(doc.model, args.file, args.output)
    for line in report:
        print(f"  {line}")
    already = len(report) - report.changed
    note = f" ({already} already so: nothing changed by them)" if already else ""
    print(f"wrote {args.output}: {len(report)} edits replayed{note}{problems_note(doc.model)}")
    return 0
