"""Unknown names in options (--nodes, --from, --to, --inputs, ...): one
wording and the closest existing names, so a typo is told apart from a name
that is not in the model at all."""
from __future__ import annotations

import difflib

from ..errors import UserError


def did_you_mean(name: str, candidates) -> str:
    """'; did you mean 'a' or 'b'?' for the names of `candidates` closest to
    `name`, or '' when none is close."""
    close = difflib.get_close_matches(name, sorted(set(candidates)), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


def unknown_name(option: str, name: str, what: str, where, candidates) -> UserError:
    """The error for `option` naming a `what` ('node', 'value') that `where`
    (the file) does not have (exit 2: bad input)."""
    return UserError(f"{option} {name!r}: no {what} of that name in {where}{did_you_mean(name, candidates)}",
                     exit_code=2)
