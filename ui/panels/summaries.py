"""The read-only HTML summaries the Properties panel shows: the model, a
node, a value (an initializer's tensor section), a collapsed group.

Built apart from the panel, which routes the selection, keeps the forms
and registers the links: a `Summaries` is given the panel's `link(obj,
text) -> html` (a link the panel will follow) and `links` (also holding
the hover text of abbreviated dims). Texts keep the panel's translation
context, "PropertiesPanel".
"""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import QT_TRANSLATE_NOOP

from ...core.exec.tensor_stats import tensor_stats
from ...core.ir import AttrType, SparseTensor
from ...core.layout.labels import element_type_named, int_limit_named, limits_legend
from ...core.summary import human_bytes
from ..canvas.scene import value_type_text
from ..canvas.words import group_path_text, shown_label
from .html import esc, operator_url, section, short_type, table, translate

MAX_LIST = 200          # consumers listed before "… and N more"
MAX_ATTR_ITEMS = 64     # list attribute items shown before "… (N items)"
# Larger initializers get no statistics in the summary: they cost ~17 ms a MB
# (bert_small's 30 MB embedding about half a second, llama_2gb's 250 MB 4 s).
# Above the tensor editor's LOAD_NOW_BYTES, so its "Load values" reads them.
STATS_NOW_BYTES = 32 << 20
ATTR_TYPE_NAMES = {1: "float", 2: "int", 3: "string", 4: "tensor", 5: "graph", 6: "floats",
                   7: "ints", 8: "strings", 9: "tensors", 10: "graphs", 11: "sparse tensor",
                   12: "sparse tensors", 13: "type", 14: "types"}   # the spec's names: not translated
STAT_NAMES = {"min": QT_TRANSLATE_NOOP("PropertiesPanel", "min"),
              "max": QT_TRANSLATE_NOOP("PropertiesPanel", "max"),
              "mean": QT_TRANSLATE_NOOP("PropertiesPanel", "mean"),
              "std": QT_TRANSLATE_NOOP("PropertiesPanel", "std")}



def stat_rows(stats) -> list[tuple[str, str]]:
    """(name, text) rows for a tensor's statistics, core's one definition
    (as the tensor editor and the run inspector show them): min, max, mean
    and std over the finite elements, then how many are NaN or infinite;
    none for strings, an empty tensor or one not read."""
    if stats is None or not stats.numeric or not stats.count:
        return []
    rows = [(k, f"{getattr(stats, k):.6g}") for k in ("min", "max", "mean", "std")
            if getattr(stats, k) is not None]
    rows += [(what, str(n)) for what, n in (("NaN", stats.nan), ("+Inf", stats.posinf), ("-Inf", stats.neginf))
             if n]
    return rows


class Summaries:
    """HTML for one page of the panel; `model` for the functions a node may
    call, `inferred` the document's types."""

    def __init__(self, model, inferred: dict, links: dict, link):
        self.model = model
        self.inferred = inferred
        self.links = links
        self.link = link

    def model_html(self) -> str:
        """The model's summary: its header fields, documentation, metadata,
        inputs, outputs and functions."""
        m = self.model
        if m is None:
            return "<p class='muted'>" + esc(translate("PropertiesPanel", "No model open.")) + "</p>"
        graph = m.graph
        opsets = ", ".join(f"{d or 'ai.onnx'} {v}" for d, v in m.opset_imports.items())
        training = (translate("PropertiesPanel", "present") if m.training_info
                    else translate("PropertiesPanel", "none"))
        rows = [(translate("PropertiesPanel", "file"), esc(m.path) if m.path else "—"),
                (translate("PropertiesPanel", "IR version"), m.ir_version),
                (translate("PropertiesPanel", "opsets"), esc(opsets)),
                (translate("PropertiesPanel", "producer"),
                 esc(f"{m.producer_name} {m.producer_version}".strip() or "—")),
                (translate("PropertiesPanel", "domain"), esc(m.domain or "—")),
                (translate("PropertiesPanel", "model version"), m.model_version),
                (translate("PropertiesPanel", "graph"), esc(graph.name or "—")),
                (translate("PropertiesPanel", "nodes"), len(graph.nodes)),
                (translate("PropertiesPanel", "initializers"), len(graph.initializers)),
                (translate("PropertiesPanel", "training info"), training)]
        body = "<h2>" + esc(translate("PropertiesPanel", "Model")) + "</h2>" + table(rows)
        if m.doc_string:
            body += section(translate("PropertiesPanel", "Documentation"),
                            f"<pre style='white-space: pre-wrap'>{esc(m.doc_string)}</pre>")
        if m.metadata_props:
            body += section(translate("PropertiesPanel", "Metadata"),
                            table((esc(k), esc(v)) for k, v in m.metadata_props.items()))
        body += section(translate("PropertiesPanel", "Inputs"), self.value_list(graph.inputs))
        body += section(translate("PropertiesPanel", "Outputs"), self.value_list(graph.outputs))
        if m.functions:
            body += section(translate("PropertiesPanel", "Functions"), table(
                (esc(f"{d}::{n}" + (f":{o}" if o else "")),
                 self.link(f.graph, (translate("PropertiesPanel", "{n} node") if len(f.graph.nodes) == 1
                                      else translate("PropertiesPanel", "{n} nodes")).format(n=len(f.graph.nodes))))
                for (d, n, o), f in m.functions.items()))
        return body

    def node_html(self, node) -> str:
        """A node's summary: op (linked to its documentation), name, place,
        inputs, outputs, attributes and documentation."""
        url = operator_url(node.op_type, node.domain)
        title = f"<a href='{url}'>{esc(node.op_type)}</a>" if url else esc(node.op_type)
        rows = [(translate("PropertiesPanel", "name"), esc(node.name or translate("PropertiesPanel", "(unnamed)"))),
                (translate("PropertiesPanel", "domain"), esc(node.domain or "ai.onnx")),
                (translate("PropertiesPanel", "location"), esc(node.path))]
        if self.model is not None and (node.domain, node.op_type, node.overload) in self.model.functions:
            function = self.model.functions[(node.domain, node.op_type, node.overload)]
            rows.append((translate("PropertiesPanel", "function"),
                         self.link(function.graph, translate("PropertiesPanel", "open body"))))
        body = f"<h2>{title}</h2>{table(rows)}"
        body += section(translate("PropertiesPanel", "Inputs"), self.value_list(node.inputs))
        body += section(translate("PropertiesPanel", "Outputs"), self.value_list(node.outputs))
        if node.attributes:
            # Name over value, like inputs: long lists (tree ensembles carry
            # thousands of numbers) would squeeze a two-column table to slivers.
            body += section(translate("PropertiesPanel", "Attributes"), "<br>".join(
                f"<b>{esc(a.name)}</b><br>&nbsp;&nbsp;{self.attr_text(a)}"
                for a in node.attributes.values()))
        if node.doc_string:
            body += section(translate("PropertiesPanel", "Documentation"),
                            f"<pre style='white-space: pre-wrap'>{esc(node.doc_string)}</pre>")
        if node.metadata_props:
            body += section(translate("PropertiesPanel", "Metadata"), _metadata_html(node.metadata_props))
        return body

    def attr_text(self, attr) -> str:
        kind = ATTR_TYPE_NAMES.get(int(attr.type), str(attr.type))
        if attr.ref_attr_name:
            return f"→ {esc(attr.ref_attr_name)} <span class='muted'>{kind}</span>"
        value = attr.value
        if int(attr.type) == AttrType.GRAPH:
            n = len(value.nodes)
            text = self.link(value, (translate("PropertiesPanel", "graph {name} ({n} node)") if n == 1
                                      else translate("PropertiesPanel", "graph {name} ({n} nodes)")).format(
                name=value.name or "", n=n).replace("  ", " "))
        elif int(attr.type) == AttrType.GRAPHS:
            text = ", ".join(self.link(g, g.name or translate("PropertiesPanel", "graph {i}").format(i=i))
                             for i, g in enumerate(value))
        elif int(attr.type) == AttrType.TENSOR:
            text = esc(f"{getattr(value.dtype, 'name', value.dtype)}"
                       f"{list(value.shape)}") + _small_tensor(value)
        elif int(attr.type) == AttrType.SPARSE_TENSOR and value is not None:
            dtype = value.values.dtype
            text = esc(f"{getattr(dtype, 'name', dtype)}{list(value.dims)} " + translate(
                "PropertiesPanel", "(sparse: {stored} of {total} elements stored)").format(
                stored=value.values.size, total=int(np.prod(value.dims, dtype=np.int64))))
        elif (named := element_type_named(attr)) is not None:
            text = esc(f"{named} ({value})")     # as on the box: "to = bool"
        elif isinstance(value, (list, tuple)):
            shown = ", ".join(_short(v) for v in value[:MAX_ATTR_ITEMS])
            more = (translate("PropertiesPanel", ", … ({n} items)").format(n=len(value))
                    if len(value) > MAX_ATTR_ITEMS else "")
            text = esc(f"[{shown}{more}]") + _limits_note(value[:MAX_ATTR_ITEMS])
        elif (named := int_limit_named(value)) is not None:
            text = esc(f"{named} ({value})")     # as on the box: "ends = INT64_MAX"
        else:
            text = esc(_short(value))
        return f"{text} <span class='muted'>{kind}</span>"

    def value_html(self, value):
        """A value's summary and the tensor it holds (an initializer's, or a
        Constant node's it comes from; None for others)."""
        vtype = value_type_text(value, self.inferred)
        declared = value.type is not None or value.is_initializer   # typed by its data
        shown = vtype or translate("PropertiesPanel", "unknown")
        rows = [(translate("PropertiesPanel", "type"), short_type(value, self.inferred, self.links, shown)
                 + ("" if declared or not vtype
                    else " <span class='muted'>" + esc(translate("PropertiesPanel", "(inferred)")) + "</span>"))]
        producer = value.producer
        if producer is not None:
            rows.append((translate("PropertiesPanel", "producer"), self.link(producer, producer.display_name)))
        elif value.is_graph_input:
            rows.append((translate("PropertiesPanel", "producer"), translate("PropertiesPanel", "graph input")))
        uses = value.uses
        consumers = ", ".join(self.link(n, f"{n.display_name}[{i}]") for n, i in uses[:MAX_LIST])
        if len(uses) > MAX_LIST:
            consumers += translate("PropertiesPanel", " … and {n} more").format(n=len(uses) - MAX_LIST)
        rows.append((translate("PropertiesPanel", "consumers"), consumers or "—"))
        if value.is_graph_output:
            rows.append((translate("PropertiesPanel", "graph output"), translate("PropertiesPanel", "yes")))
        tensor = value.const if value.is_initializer else None
        title = (translate("PropertiesPanel", "Initializer") if tensor is not None
                 else translate("PropertiesPanel", "Value"))
        if tensor is None and producer is not None and producer.op_type == "Constant":
            # Exporters often store weights as Constant nodes: show them like initializers.
            for name, attr_type in (("value", AttrType.TENSOR), ("sparse_value", AttrType.SPARSE_TENSOR)):
                attr = producer.attributes.get(name)
                if attr is not None and int(attr.type) == attr_type and attr.value is not None:
                    tensor, title = attr.value, "Constant"     # the op's name
                    break
        body = f"<h2>{title} {esc(value.name)}</h2>{table(rows)}"
        if tensor is not None:
            body += self.initializer_section(tensor)
        if value.doc_string:
            body += section(translate("PropertiesPanel", "Documentation"),
                            f"<pre style='white-space: pre-wrap'>{esc(value.doc_string)}</pre>")
        return body, tensor

    def initializer_section(self, tensor) -> str:
        from .tensor_editor import LOAD_NOW_BYTES
        sparse = isinstance(tensor, SparseTensor)   # values, indices, dims
        values = tensor.values if sparse else tensor
        shape = list(tensor.dims if sparse else tensor.shape)
        rows = [(translate("PropertiesPanel", "dtype"), esc(getattr(values.dtype, "name", values.dtype))),
                (translate("PropertiesPanel", "shape"), esc(shape))]
        if sparse:
            size = int(np.prod(shape, dtype=np.int64))
            stored = translate("PropertiesPanel", "sparse: {stored} of {total} elements ({size})")
            rows.append((translate("PropertiesPanel", "stored"), esc(stored.format(
                stored=values.size, total=size, size=human_bytes(values.nbytes + tensor.indices.nbytes)))))
        else:
            rows.append((translate("PropertiesPanel", "size"), human_bytes(tensor.nbytes)))
        if values.is_external:
            rows.append((translate("PropertiesPanel", "stored in"), esc(values.external_location)))
        try:
            if sparse:      # densified only when small: the tensor editor reads large ones on request
                small = values.size == 0 or size * values.nbytes // values.size <= LOAD_NOW_BYTES
                stats = tensor_stats(tensor.to_dense()) if small else None
            elif tensor.unreadable is not None:
                tensor.numpy()      # refused at once, naming it: not "not read yet"
            elif tensor.nbytes > STATS_NOW_BYTES:
                # Selecting must stay quick: a 250 MB embedding took 4 s here.
                # The tensor editor below reads the values when asked.
                stats = None
                rows.append((translate("PropertiesPanel", "statistics"), esc(translate(
                    "PropertiesPanel", "not read yet ({size}): “Load values” in the editor below reads them").format(
                        size=human_bytes(tensor.nbytes)))))
            else:
                stats = tensor_stats(tensor.numpy())
        except Exception as exc:   # noqa: BLE001 - e.g. external file missing
            stats = None
            why = translate("PropertiesPanel", "cannot be read: {error}").format(error=exc)
            rows.append((translate("PropertiesPanel", "data"), esc(why)))
        rows.extend((translate("PropertiesPanel", STAT_NAMES.get(k, k)), v) for k, v in stat_rows(stats))
        return section(translate("PropertiesPanel", "Tensor"), table(rows))

    def group_html(self, vnode) -> str:
        """A collapsed group's summary: its path and what it holds."""
        path = group_path_text(vnode.group or ())
        title = translate("PropertiesPanel", "Group {path}").format(path=path)
        hint = translate("PropertiesPanel", "Double-click the box to expand it.")
        body = f"<h2>{esc(title)}</h2><p class='muted'>{esc(hint)}</p>"
        lines = shown_label(vnode.label).lines      # "12 nodes" in the UI's language, as on the box
        body += section(translate("PropertiesPanel", "Contents"), table((esc(line), "") for line in lines))
        return body

    def value_row(self, value) -> tuple[str, str]:
        if value is None:
            return ("", "<span class='muted'>" + translate("PropertiesPanel", "(omitted)") + "</span>")
        kind = translate("PropertiesPanel", " · initializer") if value.is_initializer else ""
        text = value_type_text(value, self.inferred)
        return (self.link(value, value.name), short_type(value, self.inferred, self.links, text) + kind)

    def value_list(self, values) -> str:
        """Name on one line, type below it: long names and long symbolic shapes
        both fit a narrow dock this way."""
        lines = []
        for value in values:
            name, detail = self.value_row(value)
            lines.append(f"{name}<br><span class='muted'>&nbsp;&nbsp;{detail}</span>" if name else detail)
        return "<br>".join(lines) or "—"


def _metadata_html(props: dict) -> str:
    """A node's metadata_props, name over value (torch's dynamo exporter
    writes the module path, the FX node and the Python stack trace that made
    the node: where in the model's code it came from). A value of several
    lines (a stack trace) keeps its lines, and comes last."""
    def entry(key, value) -> str:
        text = str(value)
        shown = (f"<pre style='white-space: pre-wrap'>{esc(text)}</pre>" if "\n" in text
                 else f"&nbsp;&nbsp;{esc(text)}")
        return f"<b>{esc(key)}</b><br>{shown}"
    ordered = sorted(props.items(), key=lambda kv: "\n" in str(kv[1]))
    return "<br>".join(entry(k, v) for k, v in ordered)


def _small_tensor(tensor) -> str:
    try:
        if tensor.nbytes <= 256:
            array = tensor.numpy()
            text = str(array.tolist())
            if array.dtype.kind in "iu":       # INT64_MAX named, as on the box
                text = np.array2string(array, separator=", ", threshold=array.size + 1,
                                       formatter={"int": lambda v: int_limit_named(int(v)) or str(v)})
                return " = " + esc(text) + _limits_note(array.reshape(-1).tolist())
            if array.dtype == np.bool_:       # true/false, as the box and the tensor editor write them
                text = text.replace("True", "true").replace("False", "false")
            return " = " + esc(text)
    except Exception:   # noqa: BLE001 - a value we cannot decode is shown without data
        pass
    return ""


def _short(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    named = int_limit_named(value)
    if named is not None:
        return named
    if isinstance(value, bytes):
        return repr(value)
    text = str(value)
    return text if len(text) <= 200 else text[:200] + "…"


def _limits_note(values) -> str:
    """The exact numbers behind the names a list shows: " (INT64_MAX =
    9223372036854775807)" after [0, INT64_MAX]."""
    legend = limits_legend({int_limit_named(v) for v in values})
    return f" <span class='muted'>({esc(legend)})</span>" if legend else ""
