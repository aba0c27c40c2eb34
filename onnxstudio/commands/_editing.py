"""What the editing commands (extract, cleanup, set-shape, rename, edit)
share: opening, applying edits with one-line errors, and saving so that
external data stays valid for both the new file and the one it came from."""
from __future__ import annotations

import contextlib
import pathlib
import sys

from ..core import Document, SaveOptions, save
from ..core.edits import EditError
from ..errors import UserError


def add_io_arguments(p) -> None:
    p.add_argument("file", help="the .onnx file to read")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="where to write the result (written atomically; external data goes beside it)")


def open_document(path: str) -> Document:
    return Document.open(path)


def apply(doc: Document, edit) -> None:
    try:
        doc.apply(edit)
    except EditError as e:
        raise UserError(str(e)) from None


@contextlib.contextmanager
def refusals_name(file):
    """Turn an EditError raised while building edits into a UserError naming `file`."""
    try:
        yield
    except EditError as e:
        raise UserError(f"{file}: {e}") from None


def pair(text: str, option: str) -> tuple[str, str]:
    """NAME=VALUE from an option's argument, or a UserError naming the option."""
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UserError(f"{option} {text!r}: expected NAME=VALUE")
    return name, value


def names(text: str, option: str) -> list[str]:
    out = [n.strip() for n in (text or "").split(",") if n.strip()]
    if not out:
        raise UserError(f"{option}: give at least one name (NAME,NAME,...)")
    return out


def _external_locations(model) -> set:
    found = set()
    for g in model.graphs():
        for v in list(g.initializers.values()):
            if getattr(v.const, "is_external", False):
                found.add(v.const.external.location)
    return found


def save_output(model, src, out) -> pathlib.Path:
    """Save `model` to `out`. Tensors stay where they were, with their
    external file written beside OUT; when OUT sits next to the input under
    another name, its weights go to `<OUT>.data` instead, so the input's own
    external file (which it still needs) is never rewritten. Written over the
    input itself, its data files are appended to, never rewritten: that is
    said on stderr, with how much they grew."""
    src, out = pathlib.Path(src), pathlib.Path(out)
    if out.is_dir():
        raise UserError(f"{out}: is a folder; give the file to write")
    opts = None
    if _external_locations(model) and out.absolute() != src.absolute() \
            and out.parent.resolve() == src.parent.resolve():
        opts = SaveOptions(external_data=out.name + ".data")
    saved = save(model, out, opts)
    appended = saved.appended
    if appended:
        from ..core.summary import human_bytes
        grown = ", ".join(f"{human_bytes(size)} to {name}" for name, size in appended.items())
        print(f"{out}: appended {grown} (the data files only grow: `onnxstudio convert {out.name} COPY.onnx` "
              "writes compact ones)", file=sys.stderr)
    return out


def problems_note(model) -> str:
    from ..core.check import check
    from ..core.diagnostics import ERROR
    errors = sum(1 for d in check(model) if d.severity == ERROR)
    return f"; the checker finds {errors} error(s) (`onnxstudio check` lists them)" if errors else ""


def errors_added(before, after) -> list:
    """The error diagnostics in `after` that `before` did not have, matched by
    (code, path): messages name shapes, which is what an edit changes."""
    from ..core.diagnostics import ERROR
    had = {(d.code, d.path) for d in before if d.severity == ERROR}
    return [d for d in after if d.severity == ERROR and (d.code, d.path) not in had]
