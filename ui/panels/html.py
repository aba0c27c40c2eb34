"""Small helpers to write the properties panel's HTML safely."""
from __future__ import annotations

import html

from ...core import schemas


def esc(text) -> str:
    return html.escape(str(text))


def table(rows) -> str:
    cells = "".join(f"<tr><td class='k'>{k}</td><td>{v}</td></tr>" for k, v in rows)
    return f"<table cellspacing='0' cellpadding='2'>{cells}</table>"


def section(title: str, body: str) -> str:
    return f"<h3>{esc(title)}</h3>{body}"


STYLE = """
<style>
h2 { margin: 2px 0 4px 0; }
h3 { margin: 10px 0 2px 0; font-size: 11pt; }
td.k { padding-right: 10px; color: %(muted)s; white-space: nowrap; vertical-align: top; }
.muted { color: %(muted)s; }
a { text-decoration: none; }
</style>
"""


def operator_url(op_type: str, domain: str) -> str | None:
    """The operator's page on onnx.ai for the standard domains."""
    return schemas.doc_url(domain, op_type)


