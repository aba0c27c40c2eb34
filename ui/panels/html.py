"""Small helpers to write the properties panel's HTML safely."""
from __future__ import annotations

import html

from ...core import schemas
from PySide6.QtCore import QCoreApplication

from ...core.infer.dims import compact_dim
from ...core.infer.fresh import is_fresh
from ...core.ir.dtypes import type_name
from ...core.ir.types import TensorType
from ..canvas.scene import displayed_type


translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")


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
_WORD_BREAKS = "_./:-"
_MIN_TAIL = 5           # shorter tails ("…x") say too little on their own


def short_dims(names) -> dict:
    """{long dim name: its short form} for the long names of one type: the
    shortest tail that starts a word, holds a letter and tells it apart from
    the others (`…dim_0`, `…dim_1` for `LayerNormalizationlast_hidden_state_dim_0`
    and `_dim_1`); where no such tail is short enough, head…tail."""
    longs = [n for n in dict.fromkeys(names) if len(n) > DIM_CHARS]
    tails = {n: [n[i:] for i in range(len(n) - 1, 0, -1) if n[i - 1] in _WORD_BREAKS] for n in longs}
    return {n: _distinct_tail(n, tails[n], [m for m in longs if m != n]) for n in longs}


def _distinct_tail(name: str, tails: list, others: list) -> str:
    for tail in tails:
        if len(tail) > DIM_CHARS - 1:
            break
        if len(tail) >= _MIN_TAIL and any(c.isalpha() for c in tail) and not any(m.endswith(tail) for m in others):
            return "…" + tail
    return name[:DIM_CHARS // 2 - 1] + "…" + name[-(DIM_CHARS // 2 - 1):]


def short_type(value, inferred: dict, links: dict, text: str) -> str:
    """The value's type (canvas.scene.displayed_type) as HTML with long symbolic dims abbreviated (some
    exporters name dims like `LayerNormalizationlast_hidden_state_dim_0`)
    and a size inference made up a name for (`?41`) shown as `?`: each links
    to `dim:<key>`, its full name (or what `?` stands for) put in
    `links[key]` for the panel to show on hover. `text` (the type as plain
    text) when the type is not a tensor's with a shape."""
    t = displayed_type(value, inferred)
    shape = t.shape if isinstance(t, TensorType) else None
    if shape is None:
        return esc(text)
    shorts = short_dims(compact_dim(d) for d in shape if isinstance(d, str) and not is_fresh(d))
    parts = []
    for d in shape:
        full = compact_dim(d) if d is not None else "?"
        hover = None
        if is_fresh(d):
            hover = translate("DimNames", "{name}: a size nothing names; inference calls it {name} (the same "
                              "name on two values means the same size)").format(name=d)
        elif isinstance(d, str) and full in shorts:
            hover, full = full, shorts[full]
        if hover is not None:
            key = f"dim{len(links)}"
            links[key] = hover
            parts.append(f"<a href='dim:{key}' style='text-decoration: none'>{esc(full)}</a>")
        else:
            parts.append(esc(full))
    return esc(type_name(t.elem_type)) + "[" + ",".join(parts) + "]"


def operator_url(op_type: str, domain: str) -> str | None:
    """The operator's page on onnx.ai for the standard domains."""
    return schemas.doc_url(domain, op_type)


