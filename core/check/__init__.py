"""The model checker: every problem at once, each pinned to a path.

    from onnxstudio.core.check import check, CheckSession
    for d in check(model):             # list[Diagnostic], never raises on bad models
        print(d)                       # graph/node[3] Conv "c1"/attribute "pads": error attr.wrong-type: ...
    session = CheckSession(proto)      # incremental: session.node_changed(3) after editing node 3

`model` may be our ModelProto (`onnxstudio.core.proto.onnx_pb2.ModelProto`),
file bytes, a path, or an IR `Model` (converted through serde). Codes and
their default severities are listed in `CODES`.
"""
from __future__ import annotations

import os
import pathlib

from ..proto import onnx_pb2 as pb
from .diagnostics import CODES, ERROR, INFO, WARNING, Diagnostic, Severity  # noqa: F401
from .session import CheckSession  # noqa: F401


def as_proto(model):
    """(ModelProto, model folder or None) for anything `check` accepts."""
    if isinstance(model, pb.ModelProto):
        return model, None
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        # Another ModelProto class (e.g. the onnx package's, in tests and tools).
        model = model.SerializeToString()
    if isinstance(model, (bytes, bytearray, memoryview)):
        proto = pb.ModelProto()
        proto.ParseFromString(bytes(model))
        return proto, None
    if isinstance(model, (str, os.PathLike)):
        path = pathlib.Path(model)
        proto = pb.ModelProto()
        proto.ParseFromString(path.read_bytes())
        return proto, path.resolve().parent
    # An IR Model: serialise through serde, which keeps what was read.
    from .. import serde  # noqa: PLC0415  (only needed for IR models)
    to_proto = getattr(model, "to_proto", None) or getattr(serde, "model_to_proto", None) or getattr(serde, "to_proto", None)
    if to_proto is None:
        raise TypeError(f"cannot check a {type(model).__name__}: pass a ModelProto, bytes or a path")
    proto = to_proto() if to_proto is getattr(model, "to_proto", None) else to_proto(model)
    path = getattr(model, "path", None)
    return proto, (pathlib.Path(path).resolve().parent if path else None)


def _default_type_lookup(proto):
    """Types from `core.infer` when that engine is available; None otherwise."""
    try:
        from .. import infer  # noqa: PLC0415
    except ImportError:
        return None
    provider = getattr(infer, "type_lookup_for_check", None)
    return provider(proto) if provider is not None else None


def check(model, *, model_dir=None, type_lookup=None, use_inference: bool = True) -> list:
    """Every diagnostic for `model` (see module doc), in a stable order.

    `type_lookup(graph_path, name) -> ir type | None` supplies types the file
    does not declare; by default `core.infer` provides it when present.
    """
    proto, folder = as_proto(model)
    if type_lookup is None and use_inference:
        type_lookup = _default_type_lookup(proto)
    return CheckSession(proto, model_dir=model_dir or folder, type_lookup=type_lookup).diagnostics


def errors(diagnostics) -> list:
    return [d for d in diagnostics if d.severity == ERROR]
