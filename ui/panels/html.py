"""Small helpers to write the properties panel's HTML safely."""
from __future__ import annotations

import html

from ...core import schemas
from ...core.infer.dims import compact_dim
from ...core.ir.dtypes import type_name
from ...core.ir.types import TensorType


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


DIM_CHARS = 16         # a symbolic dim longer than this is abbreviated (full on hover)


def short_type(value, inferred: dict, links: dict, text: str) -> str:
    """The value's type as HTML with long symbolic dims abbreviated (some
    exporters name dims like `LayerNormalizationlast_hidden_state_dim_0`):
    each links to `dim:<key>`, its full name put in `links[key]` for the
    panel to show on hover. `text` (the type as plain text) when the type
    is not a tensor's with a shape."""
    t = value.own_type
    if t is None and inferred:
        t = inferred.get(value)
    shape = t.shape if isinstance(t, TensorType) else None
    if shape is None:
        return esc(text)
    parts = []
    for d in shape:
        full = compact_dim(d) if d is not None else "?"
        if isinstance(d, str) and len(full) > DIM_CHARS:
            key = f"dim{len(links)}"
            links[key] = full
            short = full[:DIM_CHARS // 2 - 1] + "…" + full[-(DIM_CHARS // 2 - 1):]
            parts.append(f"<a href='dim:{key}' style='text-decoration: none'>{esc(short)}</a>")
        else:
            parts.append(esc(full))
    return esc(type_name(t.elem_type)) + "[" + ",".join(parts) + "]"


def operator_url(op_type: str, domain: str) -> str | None:
    """The operator's page on onnx.ai for the standard domains."""
    return schemas.doc_url(domain, op_type)


