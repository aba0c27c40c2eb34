"""Compare our inference with onnx.shape_inference (the oracle, test-only)."""
from __future__ import annotations

import pathlib
import warnings

import onnx
import onnx.shape_inference

from onnxstudio import core
from onnxstudio.core.infer import Inference
from onnxstudio.core.infer.fresh import as_written
from onnxstudio.core.infer.merge import at_least_as_precise
from onnxstudio.core.ir.types import OptionalType, SequenceType, TensorType
from onnxstudio.core.serde.type_proto import type_from_proto
from onnxstudio.core.proto import onnx_pb2 as pb


def _fresh_unk(t):
    # onnx names each dim it cannot work out "unk__N": a fresh symbol, as our
    # "?N". It counts as known: ours must say at least as much there (any
    # number, symbol or expression), never "?". A negative dim onnx derives
    # (Split-18 of 5 into 4 parts gives [2,2,2,-1] in the AffineGrid
    # function's branch that never runs) is no size a run can have: unknown,
    # as a file's -1 is.
    if isinstance(t, TensorType) and t.shape is not None:
        return TensorType(t.elem_type, tuple(f"?{d[5:]}" if isinstance(d, str) and d.startswith("unk__")
                                             else None if isinstance(d, int) and d < 0 else d
                                             for d in t.shape))
    if isinstance(t, SequenceType):
        return SequenceType(_fresh_unk(t.elem))
    if isinstance(t, OptionalType):
        return OptionalType(_fresh_unk(t.elem))
    return t


def strip_declarations(m: "onnx.ModelProto") -> "onnx.ModelProto":
    """A copy without value_info and without graph output types, so both
    inferences must work everything out from the inputs."""
    m2 = onnx.ModelProto()
    m2.CopyFrom(m)
    del m2.graph.value_info[:]
    for o in m2.graph.output:
        o.ClearField("type")
    return m2


def _graph_types(g) -> dict:
    out = {}
    for vi in list(g.value_info) + list(g.output):
        tp = pb.TypeProto()
        tp.ParseFromString(vi.type.SerializeToString())
        if vi.type.WhichOneof("value") is not None:
            out[vi.name] = _fresh_unk(type_from_proto(tp))
    return out


def _pairs(theirs_graph, our_graph):
    """(onnx GraphProto, our Graph) for a graph and every subgraph below it."""
    yield theirs_graph, our_graph
    ours = list(our_graph.nodes)
    if len(ours) != len(theirs_graph.node):
        return
    for tn, on in zip(theirs_graph.node, ours):
        for a in tn.attribute:
            sub = on.attributes.get(a.name)
            if a.type == onnx.AttributeProto.GRAPH and sub is not None:
                yield from _pairs(a.g, sub.value)


def any_size_as_unknown(m: "onnx.ModelProto") -> "onnx.ModelProto":
    """A copy where the file's spellings of "any size" (dim_value -1 or any
    negative, dim_param "?" or "-1") are plain unknown dims, as the file
    means them and as we read them. onnx would otherwise compute with -1 as
    a size (a stride-2 Conv over it gives 0) or take "?" for one symbol
    shared by every input: neither is an answer to compare with."""
    out = onnx.ModelProto()
    out.CopyFrom(m)

    def clean(g):
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
                for d in vi.type.tensor_type.shape.dim:
                    if (d.HasField("dim_value") and d.dim_value < 0) or (
                            d.HasField("dim_param") and d.dim_param in ("?", "-1")):
                        d.Clear()
        for n in g.node:
            for a in n.attribute:
                if a.HasField("g"):
                    clean(a.g)
                for sub in a.graphs:
                    clean(sub)
    clean(out.graph)
    return out


def infer_with_onnx(m):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return onnx.shape_inference.infer_shapes(any_size_as_unknown(m), strict_mode=False, data_prop=True)
        except Exception:  # noqa: BLE001 - onnx's inference failing: compare against the model as written
            return m


def compare(path, strip=False):
    """(agree, total, [(name, ours, theirs)], our diagnostics, graph output
    names, agree as written).

    Every graph and subgraph counts: values are matched by name within the
    graph that defines them. A value agrees when ours is at least as precise
    as onnx's on every dim: an unknown dim of ours where onnx has a name (its
    own dim_param or an unk__N) is a miss. "As written" compares what
    Inference.write would store instead: there our per-run `?N` names are
    unknown dims, so each one where onnx has a name is a miss too.
    """
    m = onnx.load(str(path), load_external_data=False)
    if strip:
        m = strip_declarations(m)
    inferred = infer_with_onnx(m)
    outputs = {o.name for o in m.graph.output}
    model = core.load_bytes(m.SerializeToString(), base_dir=str(pathlib.Path(path).parent))
    inf = Inference(model)
    inf.run()
    agree, total, agree_written, bad = 0, 0, 0, []
    global more_precise
    for tg, og in _pairs(inferred.graph, model.graph):
        theirs = _graph_types(tg)
        ours = inf.types_in(og)
        for name, t in theirs.items():
            total += 1
            o = ours.get(name)
            if at_least_as_precise(o, t):
                agree += 1
                if o != t and not at_least_as_precise(t, o):
                    more_precise += 1
                agree_written += at_least_as_precise(as_written(o), t)
            else:
                bad.append((name, o, t))
    return agree, total, bad, inf.diagnostics, outputs, agree_written


# Values where ours says strictly more than onnx (e.g. a symbol or number
# where onnx has "?"), counted over every compare() call for the report.
more_precise = 0
