"""What a live checker keeps between edits: no protobuf copy of the model.

`file_form_messages(live)` walks every object reachable from a LiveChecker
(dicts, lists, sets, tuples, the attributes of the checker's own objects),
stopping at the IR model and inference it was given (the IR keeps the
messages it was read from, by design), and returns the protobuf messages of
the model's file form found there: models, graphs, nodes, tensors,
value_infos, attributes. Function bodies are kept (copied, small: calls are
judged against them) and are not reported.
"""
from __future__ import annotations

from onnxstudio.core.proto import onnx_pb2 as pb

_FILE_FORM = (pb.ModelProto, pb.GraphProto, pb.NodeProto, pb.TensorProto, pb.ValueInfoProto, pb.AttributeProto,
              pb.TrainingInfoProto)
_OWN = ("onnxstudio.core.check", "onnxstudio.core.analysis")


def file_form_messages(live) -> list:
    stop = {id(live.model), id(live.inference)}
    seen, found, todo = set(), [], [live]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or id(obj) in stop:
            continue
        seen.add(id(obj))
        if isinstance(obj, _FILE_FORM):
            found.append(type(obj).__name__)
        elif isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        elif type(obj).__module__.startswith(_OWN):
            todo.extend(getattr(obj, "__dict__", {}).values())
            for cls in type(obj).__mro__:
                for slot in getattr(cls, "__slots__", ()):
                    if hasattr(obj, slot):
                        todo.append(getattr(obj, slot))
    return found
