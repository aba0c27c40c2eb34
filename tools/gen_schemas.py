"""Regenerate core/schemas/opschemas.json from the installed `onnx` package.

Development-time tool only: the app never imports `onnx`. We keep the
structural facts a checker, an inference engine and an executor need
(formal inputs/outputs, attributes with defaults, type constraints) and drop
every documentation string; the UI links to onnx.ai for prose.

Usage: python tools/gen_schemas.py [--out PATH]
"""
from __future__ import annotations

import argparse
import gzip
import json
import pathlib
import sys

import onnx
import onnx.defs
from onnx import helper

REPO = pathlib.Path(__file__).resolve().parent.parent
DEFAULT_OUT = REPO / "core" / "schemas" / "opschemas.json"
# Above this size the file is written gzip-compressed (and named .json.gz).
GZIP_ABOVE = 1_000_000
DOMAINS = ("", "ai.onnx.ml", "ai.onnx.preview", "ai.onnx.preview.training")
_OPTION = {"Single": "single", "Optional": "optional", "Variadic": "variadic"}
# onnx uses INT_MAX for "unbounded"; JSON readers are happier with -1.
_UNBOUNDED = 2**31 - 1


def _formal(p) -> list:
    option = _OPTION[str(p.option).rsplit(".", 1)[-1]]
    return [p.name, option, bool(p.is_homogeneous), p.type_str, int(p.min_arity)]


def _default(attr_schema):
    proto = attr_schema.default_value
    if not proto.type:
        return None
    value = helper.get_attribute_value(proto)
    if isinstance(value, bytes):
        value = value.decode("utf-8")
    elif isinstance(value, list):
        value = [v.decode("utf-8") if isinstance(v, bytes) else v for v in value]
    return value


def _limit(n: int) -> int:
    return -1 if n >= _UNBOUNDED else int(n)


def _schema(s) -> dict:
    attrs = []
    for a in s.attributes.values():
        attrs.append([a.name, int(a.type), bool(a.required), _default(a)])
    return {
        "domain": s.domain,
        "name": s.name,
        "since": int(s.since_version),
        "inputs": [_formal(p) for p in s.inputs],
        "outputs": [_formal(p) for p in s.outputs],
        "attrs": attrs,
        "constraints": {tc.type_param_str: sorted(tc.allowed_type_strs) for tc in s.type_constraints},
        "in": [int(s.min_input), _limit(s.max_input)],
        "out": [int(s.min_output), _limit(s.max_output)],
        "function": bool(s.has_function or s.has_context_dependent_function),
        "deprecated": bool(s.deprecated),
    }


def build() -> dict:
    schemas = [s for s in onnx.defs.get_all_schemas_with_history() if s.domain in DOMAINS]
    schemas.sort(key=lambda s: (s.domain, s.name, s.since_version))
    return {
        "onnx_version": onnx.__version__,
        "schemas": [_schema(s) for s in schemas],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    data = build()
    # One operator version per line: small, reviewable diffs when onnx changes.
    lines = [json.dumps(s, separators=(",", ":"), sort_keys=True) for s in data["schemas"]]
    head = json.dumps({"onnx_version": data["onnx_version"]})[:-1]
    text = (head + ',"schemas":[\n' + ",\n".join(lines) + "\n]}\n").encode("utf-8")
    out = args.out
    if len(text) > GZIP_ABOVE:
        out = out.with_name(out.name + ".gz")
        # mtime=0 keeps the file byte-identical across regenerations.
        text = gzip.compress(text, compresslevel=9, mtime=0)
    out.write_bytes(text)
    names = {(s["domain"], s["name"]) for s in data["schemas"]}
    print(f"wrote {out}: {len(data['schemas'])} versions of {len(names)} operators "
          f"from onnx {data['onnx_version']} ({len(text)} bytes JSON)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
