"""A changed node's or weight's A and B side by side, differing rows marked."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTextBrowser

from ...core.diff.signature import unreadable_reason
from ...core.ir import Node, Value, type_name
from ..panels.attr_editors import format_value
from ..panels.html import esc

_MARK = "background:#fde7c2;"


def _attr_text(node: Node, name: str) -> str:
    a = node.attributes.get(name)
    if a is None:
        return "—"
    v = a.value
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return f"tensor {type_name(v.dtype)}{list(v.shape)}"
    if hasattr(v, "nodes"):
        return f"graph ({len(v.nodes)} nodes)"
    # As Properties shows it: a float attribute is a float32, shown by its
    # shortest text (0.2, not the float64 expansion 0.20000000298023224).
    text = format_value(a.type, v)
    return text if len(text) < 120 else text[:117] + "…"


def _names(values) -> str:
    return ", ".join(v.name if v is not None else "∅" for v in values)


def _weight_text(v: Value) -> str:
    t = v.const
    return f"{type_name(t.dtype)}{list(t.shape)}"


class SideBySide(QTextBrowser):
    shown = Signal()       # new contents: the window fits the dock to content_height()

    def __init__(self, diff, parent=None):
        super().__init__(parent)
        self.diff = diff
        self.setOpenLinks(False)
        # A text view's own minimum (~70 px) would keep the one-line hint's
        # dock several lines tall; the window sizes it to its content.
        self.setMinimumHeight(self.fontMetrics().height() + 2 * self.frameWidth() + 4)
        self.show_hint()

    def show_hint(self) -> None:
        """Until a difference or a node is chosen: what this pane is for."""
        hint = esc(self.tr("Click a difference to see A and B side by side"))
        self.setHtml(f"<p style='color:#808080'>{hint}</p>")
        self.shown.emit()

    def content_height(self) -> int:
        """Pixels the contents need, frame included, to show without scrolling."""
        self.document().setTextWidth(self.viewport().width())
        return int(self.document().size().height()) + 2 * self.frameWidth() + 2

    def show_pair(self, a, b) -> None:
        """`a` of model A and `b` of model B (either may be None)."""
        if isinstance(a, Node) or isinstance(b, Node):
            rows = self._node_rows(a, b)
        elif isinstance(a, Value) or isinstance(b, Value):
            rows = self._value_rows(a, b)
        else:
            self.show_hint()
            return
        a_title, b_title = esc(self.tr("A")), esc(self.tr("B"))
        head = f"<tr><th></th><th align='left'>{a_title}</th><th align='left'>{b_title}</th></tr>"
        body = "".join(f"<tr style='{_MARK if (x != y if differs is None else differs) else ''}'>"
                       f"<td><b>{esc(k)}</b></td><td>{esc(x)}</td><td>{esc(y)}</td></tr>"
                       for k, x, y, differs in (row + (None,) * (4 - len(row)) for row in rows))
        self.setHtml(f"<table cellspacing='0' cellpadding='3' width='100%'>{head}{body}</table>")
        self.shown.emit()

    def _node_rows(self, a, b) -> list:
        def field(n, f):
            return f(n) if n is not None else "—"
        rows = [(self.tr("name"), field(a, lambda n: n.name), field(b, lambda n: n.name)),
                (self.tr("op"), field(a, lambda n: n.op_type), field(b, lambda n: n.op_type)),
                (self.tr("domain"), field(a, lambda n: n.domain or "ai.onnx"),
                 field(b, lambda n: n.domain or "ai.onnx"))]
        change = self.diff.change_of(a if a is not None else b)
        not_compared = dict(next((c.not_compared for c in self.diff.nodes_not_compared
                                  if c.a is a and c.b is b), ()))
        names = sorted(set(a.attributes if a is not None else ()) | set(b.attributes if b is not None else ()))
        for name in names:
            x = _attr_text(a, name) if a is not None else "—"
            y = _attr_text(b, name) if b is not None else "—"
            if a is None or b is None:
                differs = True
            elif name in not_compared:
                # Alike in what is known; marked so it is not read as the same.
                differs = True
                x, y = (self._not_compared_text(n.attributes[name].value, text) for n, text in ((a, x), (b, y)))
            else:
                # The diff's verdict, not the texts: an attribute one side
                # leaves out at its default is the same (core/diff/changes.py).
                differs = change is not None and name in change.attributes
                if not differs:
                    default = self.tr("(default)")
                    x = default if x == "—" else x
                    y = default if y == "—" else y
            rows.append((name, x, y, differs))
        # Renamed values are not a difference: the row is marked when the wiring changed.
        rewired = a is None or b is None or (change is not None and change.inputs)
        rows.append((self.tr("inputs"), field(a, lambda n: _names(n.inputs)), field(b, lambda n: _names(n.inputs)),
                     rewired))
        rows.append((self.tr("outputs"), field(a, lambda n: _names(n.outputs)), field(b, lambda n: _names(n.outputs)),
                     a is None or b is None))
        return rows

    def _value_rows(self, a, b) -> list:
        rows = [(self.tr("name"), a.name if a is not None else "—", b.name if b is not None else "—")]
        if (a is not None and a.const is not None) or (b is not None and b.const is not None):
            rows.append((self.tr("weight"), _weight_text(a) if a is not None and a.const is not None else "—",
                         _weight_text(b) if b is not None and b.const is not None else "—"))
            change = self.diff.weight_change_of(a if a is not None else b)
            if change is not None or self.diff.not_compared_of(a if a is not None else b) is not None:
                rows += self._values_rows(a, b)
            if change is not None and change.max_abs is not None:
                largest = self.tr("{abs} (relative {rel})").format(abs=f"{change.max_abs:.4g}",
                                                                   rel=f"{change.max_rel:.4g}")
                rows.append((self.tr("largest difference"), "", largest))
                rows.append((self.tr("elements changed"), "", f"{100 * change.share_changed:.3g} %"))
        else:
            rows.append((self.tr("type"), str(a.type) if a is not None else "—", str(b.type) if b is not None else "—"))
        return rows

    def _values_rows(self, a, b) -> list:
        """A row saying on which side the values could not be read, marked:
        such a pair is neither the same nor known to differ by value."""
        reasons = [unreadable_reason(v.const) if v is not None and v.const is not None else None for v in (a, b)]
        if not any(reasons):
            return []
        readable = self.tr("read")
        texts = [self.tr("not compared: {reason}").format(reason=r) if r else readable for r in reasons]
        return [(self.tr("values"), texts[0], texts[1], True)]

    def _not_compared_text(self, value, text: str) -> str:
        tensors = value if isinstance(value, (list, tuple)) else [value]
        reason = next((r for r in (unreadable_reason(t) for t in tensors if t is not None) if r), None)
        return text if reason is None else self.tr("{text}, values not compared: {reason}").format(
            text=text, reason=reason)
