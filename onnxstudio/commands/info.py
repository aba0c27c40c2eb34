"""`onnxstudio info FILE [--json] [--shapes]`"""
from __future__ import annotations

import json

from ..core import load
from ..core.serde.external import unreadable_message, unreadable_tensors
from ..core.summary import human_bytes, summarize
from .counts import counted

NAME = "info"


def configure(p) -> None:
    p.add_argument("file", help="the .onnx file")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--shapes", action="store_true",
                   help="also list every value's inferred type and shape")


def _shapes(model) -> dict:
    from ..core.infer import infer   # inference is optional for `info`
    return {name: str(t) for name, t in infer(model).items()}


def _file_problem(e: dict) -> str:
    """What is wrong with one external data file, as the end of its line."""
    if e["missing"]:
        return (f" - MISSING: {e.get('path') or 'the file'} does not exist; put the file back there, "
                "next to the model")
    if e["short"]:
        return (f" - CUT SHORT: the file has {human_bytes(e['file_bytes'])}, less than its tensors need "
                "(copy the whole file again)")
    return ""


def run(args) -> int:
    model = load(args.file)
    s = summarize(model)
    # Tensors whose external data reference can never be followed: the file
    # opens, but a run, export or copy elsewhere will refuse them.
    s["unreadable_data"] = [unreadable_message(model, t) for t in unreadable_tensors(model)]
    if args.shapes:
        s["value_types"] = _shapes(model)
    if args.json:
        print(json.dumps(s, indent=2, default=str))
        return 0
    print(f"file:         {s['path']}")
    print(f"IR version:   {s['ir_version']}")
    print("opsets:       " + ", ".join(f"{d} {v}" for d, v in s["opset_imports"].items()))
    if s["producer"]:
        print(f"producer:     {s['producer']}")
    if s["domain"] or s["model_version"]:
        print(f"domain:       {s['domain']}  model_version {s['model_version']}")
    for k, v in s["metadata_props"].items():
        print(f"metadata:     {k} = {v}")
    print(f"graph:        {s['graph_name']!r}, {s['nodes_in_main_graph']} nodes "
          f"({s['nodes']} including subgraphs and functions)")
    print("inputs:")
    for v in s["inputs"]:
        print(f"  {v['name']}: {v['type'] or '(no type)'}")
    print("outputs:")
    for v in s["outputs"]:
        print(f"  {v['name']}: {v['type'] or '(no type)'}")
    print(f"initializers: {s['initializers']} ({human_bytes(s['initializer_bytes'])})")
    if s["constants"]:
        print(f"constants:    {s['constants']} Constant nodes ({human_bytes(s['constant_bytes'])})")
    for loc, e in s["external_data"].items():
        print(f"  external file {loc}: {counted(e['tensors'], 'tensor')}, {human_bytes(e['bytes'])}"
              f"{_file_problem(e)}")
    for message in s["unreadable_data"]:
        print(f"  UNREADABLE: {message}")
    print("operators:")
    for op, n in s["op_counts"].items():
        print(f"  {n:6d}  {op}")
    if s["functions"]:
        print("functions:")
        for f in s["functions"]:
            overload = ':' + f['overload'] if f['overload'] else ''
            print(f"  {f['domain']}::{f['name']}{overload} ({counted(f['nodes'], 'node')})")
    if s["subgraphs"]:
        print("subgraphs:")
        for sg in s["subgraphs"]:
            print(f"  {sg['node']} / {sg['attribute']}: {counted(sg['nodes'], 'node')}")
    if s["training_info"]:
        print(f"training info: {s['training_info']} entries")
    if args.shapes:
        print("value types:")
        for name, t in s["value_types"].items():
            print(f"  {name}: {t}")
    return 0
