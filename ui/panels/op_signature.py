"""An operator's signature as people read it: inputs and outputs with their
types, attributes with their types and defaults (from core/schemas), shown
by the operator palette and the op picker under the list."""
from __future__ import annotations

import html

from PySide6.QtCore import QCoreApplication

from ...core import schemas
from ...core.ir import AttrType
from .attr_editors import format_value

translate = QCoreApplication.translate    # lupdate reads translate("Context", "text")


def formal_text(formal) -> str:
    """"X: T", "B?: T" (optional), "inputs...: T" (variadic)."""
    mark = "?" if formal.is_optional else "..." if formal.is_variadic else ""
    return f"{formal.name}{mark}: {formal.type_str}"


def attr_text(spec) -> str:
    """"epsilon: float = 1e-05", "to: int (required)", "pads: ints"."""
    kind = AttrType(int(spec.type)).name.lower()
    if spec.required:
        return translate("OpSignature", "{name}: {type} (required)").format(name=spec.name, type=kind)
    if spec.default is None:
        return f"{spec.name}: {kind}"
    return f"{spec.name}: {kind} = {format_value(int(spec.type), spec.default)}"


def _types(allowed: tuple) -> str:
    names = [t[len("tensor("):-1] if t.startswith("tensor(") and t.endswith(")") else t for t in allowed]
    return ", ".join(names)


def signature_html(domain: str, op: str, imports: dict) -> str:
    """The signature of `op` at the model's imported opset, as rich text;
    a line saying why when the table has none (model-local functions,
    custom domains)."""
    schema = schemas.bind(domain, op, imports)
    if schema is None:
        return "<b>{}</b><br>{}".format(html.escape(op), html.escape(translate(
            "OpSignature", "No signature known (a model-local function or a custom domain).")))
    e = html.escape
    ins = ", ".join(e(formal_text(f)) for f in schema.inputs)
    outs = ", ".join(e(formal_text(f)) for f in schema.outputs)
    lines = [f"<b>{e(op)}</b>({ins}) → {outs}",
             "<span style='color: gray'>{}</span>".format(e(schema.key))]
    used = {f.type_str for f in schema.inputs + schema.outputs}
    for name, allowed in schema.type_constraints.items():
        if name in used:
            lines.append(f"{e(name)} ∈ {{{e(_types(allowed))}}}")
    if schema.attributes:
        lines.append("<u>{}</u>".format(e(translate("OpSignature", "attributes"))))
        lines += [e(attr_text(spec)) for _name, spec in sorted(schema.attributes.items())]
    return "<br>".join(lines)
