"""The model checker: every problem at once, each pinned to a path.

    from onnxstudio.core.check import check, CheckSession
    for d in check(model):             # list[Diagnostic], never raises on bad models
        print(d)                       # graph/node[3] Conv "c1"/attribute "pads": error attr.wrong-type: ...
    session = CheckSession(proto)      # incremental: session.node_changed(3) after editing node 3
    live = LiveChecker(ir_model)       # the same for an IR model: live.node_changed(node)

`model` may be our ModelProto (`onnxstudio.core.proto.onnx_pb2.ModelProto`),
file bytes, a path, or an IR `Model` (converted through serde). Codes and
their default severities are listed in `CODES`.
"""
from __future__ import annotations

import mmap
import os
import pathlib
import sys
import types

from ..proto import onnx_pb2 as pb
from ..serde import wire
from ..diagnostics import CODES, ERROR, INFO, WARNING, Diagnostic, Severity  # noqa: F401
from .damaged_text import DamagedText
from .file_form import parse_without_weights
from .ir_rules import combine, declared_vs_inferred, inferred_errors, ir_to_proto
from .live import LiveChecker  # noqa: F401
from .session import CheckSession  # noqa: F401

__all__ = ["CODES", "ERROR", "INFO", "WARNING", "CheckSession", "Diagnostic", "LiveChecker", "Severity",
           "as_proto", "check", "check_file", "errors", "inferred_type_lookup"]


def as_proto(model):
    """(ModelProto, model folder or None) for anything `check` accepts."""
    if isinstance(model, pb.ModelProto):
        return model, None
    if hasattr(model, "SerializeToString") and hasattr(model, "graph"):
        # Another ModelProto class (e.g. the onnx package's, in tests and tools).
        model = model.SerializeToString()
    # Files are parsed with their large weights left out (file_form.py).
    if isinstance(model, (bytes, bytearray, memoryview)):
        return parse_without_weights(model), None
    if isinstance(model, (str, os.PathLike)):
        path = pathlib.Path(model)
        return parse_without_weights(_read(path)), path.resolve().parent
    # An IR Model: the checker judges the file form serde writes (weights left out).
    from .file_form import file_form  # noqa: PLC0415
    path = getattr(model, "path", None)
    return file_form(model), (pathlib.Path(path).resolve().parent if path else None)


def _read(path: pathlib.Path):
    """The file's bytes; a large file is mapped, so weights are not read."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < wire.STRIP_FILES_FROM:
            return f.read()
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def inferred_type_lookup(ir_model):
    """type_lookup backed by `core.infer` for the main graph of an IR model;
    None when inference is unavailable or fails (checking goes on without it)."""
    return _with_inference(ir_model)[0]


def _with_inference(ir_model):
    """(type_lookup, declarations that contradict inference, contradictions
    inference found inside the graph) for an IR model."""
    try:
        from ..infer import Inference  # noqa: PLC0415
        inference = Inference(ir_model)
        types = inference.run()
        contradictions = declared_vs_inferred(ir_model, inference)
        found = inferred_errors(ir_model, inference)
    except Exception:  # noqa: BLE001 - inference is a helper here, never a reason to stop checking
        return None, [], []

    def lookup(graph_path, name):
        return types.get(name) if graph_path == "graph" else None
    return lookup, contradictions, found


def check(model, *, model_dir=None, type_lookup=None, use_inference: bool = True) -> list:
    """Every diagnostic for `model` (see module doc), in a stable order.

    `type_lookup(graph_path, name) -> ir type | None` supplies types the file
    does not declare. For an IR Model, `core.infer` provides it by default;
    file forms are checked with declared and signature-derived types (pass
    an IR model to `check_file` to add inference).
    """
    is_ir = not isinstance(model, (pb.ModelProto, bytes, bytearray, memoryview, str, os.PathLike)) \
        and not hasattr(model, "SerializeToString")
    extra = []
    if is_ir:
        # The file form serde writes; values it cannot write become findings.
        proto, extra = ir_to_proto(model)
        extra += DamagedText.read(model).findings(model)
        path = getattr(model, "path", None)
        folder = pathlib.Path(path).resolve().parent if path else None
    else:
        proto, folder = as_proto(model)
    contradictions, inferred = [], []
    if type_lookup is None and use_inference and is_ir:
        type_lookup, contradictions, inferred = _with_inference(model)
    diagnostics = CheckSession(proto, model_dir=model_dir or folder, type_lookup=type_lookup).diagnostics
    return combine(diagnostics, extra + inferred, contradictions)


def check_file(path, ir_model=None) -> list:
    """Check a file as written (its bytes, not a re-serialisation); with the
    file's IR model, inferred types fill in what value_info leaves out."""
    if ir_model is None:
        return check(path)
    lookup, contradictions, inferred = _with_inference(ir_model)
    return combine(check(path, type_lookup=lookup), inferred, contradictions)


def errors(diagnostics) -> list:
    return [d for d in diagnostics if d.severity == ERROR]


class _CallableModule(types.ModuleType):
    """Lets `onnxstudio.core.check(model)` call `check` while
    `onnxstudio.core.check.CheckSession` etc. stay reachable: the issue's
    contract names the package itself as the entry point."""

    def __call__(self, model, **kw):
        return check(model, **kw)


sys.modules[__name__].__class__ = _CallableModule
