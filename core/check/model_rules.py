"""Model-level rules: ir_version, opset imports, metadata, IR-version features."""
from __future__ import annotations

from .. import schemas
from ..proto import onnx_pb2 as pb
from . import paths
from .text_rules import MODEL_TEXT_FIELDS, damaged_text, metadata_label, opset_label

KNOWN_IR_VERSION = pb.IR_VERSION


def imported_opsets(model) -> dict:
    """canonical domain -> version, as the checker resolves them (first entry wins)."""
    found = {}
    for op in model.opset_import:
        found.setdefault(schemas.canonical_domain(op.domain), op.version)
    if model.ir_version and model.ir_version < 3 and not found:
        found[""] = 1    # IR 1-2 files predate opset_import: opset 1 is implied
    return found


_NEWEST: dict = {}


def newest_known_opset(domain: str):
    """The newest opset of a domain whose signatures we hold (the highest
    since_version in the table), or None for a domain we hold none of."""
    if not _NEWEST:
        newest = {}
        for s in schemas.all_schemas():
            d = schemas.canonical_domain(s.domain)
            newest[d] = max(newest.get(d, 0), s.since_version)
        _NEWEST.update(newest)
    return _NEWEST.get(schemas.canonical_domain(domain))


def _opset_path(domain: str) -> str:
    return f"model/opset_import {paths.quote(domain or 'ai.onnx')}"


def check_model_fields(model, out) -> None:
    ir = model.ir_version
    if not ir:
        out.add("model.ir-version-missing", "model", "ir_version is not set; set it to the IR version the file follows")
    elif ir > KNOWN_IR_VERSION or ir < 0:
        out.add("model.ir-version-unknown", "model",
                f"ir_version {ir} is not one this checker knows (1..{KNOWN_IR_VERSION})")
    if ir >= 3 and not len(model.opset_import):
        out.add("model.opset-missing", "model", "no opset_import: import at least the ai.onnx domain")
    if 0 < ir < 3 and len(model.opset_import):
        out.add("model.opset-not-allowed", "model", f"IR version {ir} files cannot carry opset_import")
    seen = {}
    for op in model.opset_import:
        domain = schemas.canonical_domain(op.domain)
        where = paths.Lazy(_opset_path, op.domain)
        if domain in seen and seen[domain] != op.version:
            out.add("model.opset-duplicate", where,
                    f"domain {paths.shown(op.domain or 'ai.onnx')} is imported twice "
                    f"(versions {seen[domain]} and {op.version})")
        elif domain in seen:
            out.add("model.opset-repeated", where,
                    f"domain {paths.shown(op.domain or 'ai.onnx')} version {op.version} is imported twice; "
                    "remove one entry")
        seen.setdefault(domain, op.version)
        if op.version <= 0:
            out.add("model.opset-version-invalid", where, f"opset version {op.version} must be positive")
        else:
            newest = newest_known_opset(domain)
            # The IR spec: support every operator of an imported set or reject
            # the model. Ours stop at `newest`; say so instead of pretending.
            if newest is not None and op.version > newest:
                out.add("model.opset-too-new", where,
                        f"{op.domain or 'ai.onnx'} version {op.version} is newer than any this checker knows; "
                        f"operators are checked against version {newest} instead")
    damaged = [f for f in MODEL_TEXT_FIELDS if getattr(model, f).__class__ is bytes]
    damaged += [opset_label(op.domain) for op in model.opset_import if op.domain.__class__ is bytes]
    damaged += [metadata_label(e.key) for e in model.metadata_props
                if e.key.__class__ is bytes or e.value.__class__ is bytes]
    damaged_text("model", damaged, out)
    keys = set()
    for entry in model.metadata_props:
        if entry.key in keys:
            out.add("model.metadata-duplicate", f"model/metadata_props {paths.quote(entry.key)}",
                    f"metadata key {paths.shown(entry.key)} appears more than once; readers take the last value: "
                    "remove the key, then add it back with the value it should have")
        keys.add(entry.key)
    if len(model.configuration) and ir and ir < 11:
        out.add("model.feature-too-new", "model",
                f"multi-device configuration needs IR version 11; the model declares {ir}")
    if len(model.functions) and ir and ir < 8:
        out.add("model.feature-too-new", "functions",
                f"model-local functions need IR version 8; the model declares {ir}")
