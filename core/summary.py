"""A plain-data summary of a model: what `onnxstudio info` prints and the
app's model panel shows."""
from __future__ import annotations

import collections
import os
import stat
from typing import Any

from .errors import ExternalDataError
from .ir import Model, SparseTensor, Tensor, Value, type_name
from .ir.tensor import ExternalRef
from .ir.types import TensorType


def _value_entry(v: Value) -> dict[str, Any]:
    t = v.type
    entry: dict[str, Any] = {"name": v.name, "type": str(t) if t is not None else None}
    if isinstance(t, TensorType):
        entry["elem_type"] = type_name(t.elem_type)
        entry["shape"] = None if t.shape is None else list(t.shape)
    return entry


def summarize(model: Model) -> dict[str, Any]:
    g = model.graph
    op_counts: collections.Counter = collections.Counter()
    subgraphs = []
    for graph in model.graphs():
        for n in graph.nodes:
            op_counts[f"{n.domain}::{n.op_type}" if n.domain not in ("", "ai.onnx") else n.op_type] += 1
            for attr_name, sub in n.subgraphs():
                subgraphs.append({"node": n.path, "attribute": attr_name, "nodes": len(sub)})
    init_count = 0
    init_bytes = 0
    external: dict[str, dict[str, int]] = {}
    for graph in model.graphs():
        for v in list(graph.initializers.values()) + list(graph.sparse_initializers.values()):
            init_count += 1
            c = v.const
            tensors = [c] if isinstance(c, Tensor) else [c.values, c.indices]
            for t in tensors:
                init_bytes += t.nbytes
                _note_external(external, t)
    const_count, const_bytes = _constant_weights(model, external)
    _look_for_external_files(model, external)
    return {
        "path": str(model.path) if model.path else None,
        "ir_version": model.ir_version,
        "opset_imports": {d or "ai.onnx": v for d, v in model.opset_imports.items()},
        "producer": " ".join(x for x in (model.producer_name, model.producer_version) if x),
        "domain": model.domain,
        "model_version": model.model_version,
        "doc_string": model.doc_string,
        "metadata_props": dict(model.metadata_props),
        "graph_name": g.name,
        "inputs": [_value_entry(v) for v in g.inputs if v.name not in g.initializers],
        "outputs": [_value_entry(v) for v in g.outputs],
        "nodes": sum(op_counts.values()),
        "nodes_in_main_graph": len(g),
        "op_counts": dict(sorted(op_counts.items(), key=lambda kv: (-kv[1], kv[0]))),
        "initializers": init_count,
        "initializer_bytes": init_bytes,
        "constants": const_count,
        "constant_bytes": const_bytes,
        "functions": [{"domain": f.domain, "name": f.name, "overload": f.overload, "nodes": len(f.graph)}
                      for f in model.functions.values()],
        "subgraphs": subgraphs,
        "external_data": external,
        "training_info": len(model.training_info),
    }


def _note_external(external: dict, t: Tensor) -> None:
    if t.is_external:
        e = external.setdefault(t.external_location, {"tensors": 0, "bytes": 0, "_end": 0})
        e["tensors"] += 1
        e["bytes"] += t.nbytes
        ref = t.external
        e["_end"] = max(e["_end"], ref.offset + (t.nbytes if ref.length is None else ref.length))


def _look_for_external_files(model: Model, external: dict) -> None:
    """Say of each external data file whether it is there and long enough:
    `missing` (True, False, or None when the model was not read from a
    folder), `path`, `file_bytes` and `short` (smaller than its tensors
    need): a summary listing a file nobody can read as if it were there
    misleads."""
    files = model.external_files
    for loc, e in external.items():
        end = e.pop("_end")
        e["missing"], e["file_bytes"], e["short"] = None, None, False
        if files is None:
            continue
        try:
            path = files.path(ExternalRef(loc, 0, None))
            e["path"] = str(path)
            st = os.stat(path)
        except (OSError, ExternalDataError):
            e["missing"] = True
            continue
        e["missing"] = not stat.S_ISREG(st.st_mode)
        if not e["missing"]:
            e["file_bytes"] = st.st_size
            e["short"] = st.st_size < end


def _constant_weights(model: Model, external: dict) -> tuple[int, int]:
    """Constant nodes and the bytes they hold: some exporters put every
    weight in a Constant node, leaving no initializers at all. Those kept in
    external data are added to `external`."""
    count = size = 0
    for graph in model.graphs():
        for n in graph.nodes:
            if n.op_type != "Constant" or n.domain not in ("", "ai.onnx"):
                continue
            count += 1
            for a in n.attributes.values():
                v = a.value
                if isinstance(v, Tensor):
                    size += v.nbytes
                    _note_external(external, v)
                elif isinstance(v, SparseTensor):
                    size += v.values.nbytes + v.indices.nbytes
                    _note_external(external, v.values)
                    _note_external(external, v.indices)
                elif isinstance(v, (list, tuple)):
                    size += (4 if a.name == "value_floats" else 8) * len(v)
                elif isinstance(v, (int, float)):
                    size += 4 if a.name == "value_float" else 8
    return count, size


def human_bytes(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"
