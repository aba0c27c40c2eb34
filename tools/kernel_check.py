"""Development check: run ONNX backend *node* cases straight through our kernels.

    python tools/kernel_check.py                 # every node case
    python tools/kernel_check.py conv gemm       # cases whose name contains a word
    python tools/kernel_check.py -v conv         # show each failure's reason

Single-node cases only (graphs with several nodes, Loop/If bodies and
functions are left to the session's conformance test). It decodes attributes
with the `onnx` package, which is fine for a development tool; the app itself
never imports onnx. Prints "N passed, N failed, N skipped".
"""
from __future__ import annotations

import argparse
import pathlib
import sys
import traceback
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "exec"))

import backend_data  # noqa: E402
from conformance import compare as close  # noqa: E402
import onnx  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402

from onnxstudio.core.exec import kernels  # noqa: E402,F401  (registers kernels)
from onnxstudio.core.exec.registry import KernelContext, find_kernel  # noqa: E402


def to_ours(value):
    """Oracle value → executor convention (string tensors as object arrays of str)."""
    if isinstance(value, np.ndarray) and value.dtype == object:
        return np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else s, otypes=[object])(value)
    if isinstance(value, list):
        return [to_ours(v) for v in value]
    if isinstance(value, dict):
        return {k: to_ours(v) for k, v in value.items()}
    return value


def decode_attr(a):
    v = helper.get_attribute_value(a)
    if a.type == onnx.AttributeProto.TENSOR:
        return to_ours(numpy_helper.to_array(v))
    if a.type == onnx.AttributeProto.TENSORS:
        return [to_ours(numpy_helper.to_array(t)) for t in v]
    if a.type == onnx.AttributeProto.SPARSE_TENSOR:
        dense = np.zeros(tuple(v.dims), dtype=helper.tensor_dtype_to_np_dtype(v.values.data_type))
        vals = numpy_helper.to_array(v.values)
        idx = numpy_helper.to_array(v.indices)
        if idx.ndim == 1:
            dense.reshape(-1)[idx] = vals
        else:
            dense[tuple(idx.T)] = vals
        return dense
    if a.type == onnx.AttributeProto.STRING:
        return v.decode() if isinstance(v, bytes) else v
    if a.type == onnx.AttributeProto.STRINGS:
        return [s.decode() if isinstance(s, bytes) else s for s in v]
    if a.type == onnx.AttributeProto.GRAPH:
        raise NotImplementedError("subgraph attributes need the session")
    return v


def run_case(case):
    m = onnx.load(case.model_path)
    g = m.graph
    if len(g.node) != 1:
        return "skip", "not a single-node case"
    node = g.node[0]
    opsets = {o.domain or "": o.version for o in m.opset_import}
    domain = "" if node.domain in ("", "ai.onnx") else node.domain
    k = find_kernel(domain, node.op_type, opsets.get(domain, opsets.get("", 1)))
    if k is None:
        return "fail", f"no kernel for {domain or 'ai.onnx'}::{node.op_type} at opset {opsets.get(domain)}"
    try:
        attrs = {a.name: decode_attr(a) for a in node.attribute}
    except NotImplementedError as e:
        return "skip", str(e)
    for ins, outs in case.data_sets():
        feeds = {vi.name: to_ours(backend_data.read_pb_value(p, vi)) for p, vi in zip(ins, g.input)}
        args = [feeds.get(n) if n else None for n in node.input]
        while args and args[-1] is None:
            args.pop()
        try:
            if k.context:
                ctx = KernelContext(opset=opsets.get(domain, 1), num_outputs=len(node.output),
                                    rng=np.random.default_rng(0), node=node)
                result = k.fn(ctx, *args, **attrs)
            else:
                result = k.fn(*args, **attrs)
        except Exception as e:  # noqa: BLE001
            return "fail", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=-2)}"
        if not isinstance(result, tuple):
            result = (result,)
        # Results follow the node's outputs (some may be omitted); expected
        # values follow the graph's outputs: pair them by name.
        by_name = {name: value for name, value in zip(node.output, result) if name}
        for p, vi in zip(outs, g.output):
            got = by_name.get(vi.name)
            exp = to_ours(backend_data.read_pb_value(p, vi))
            why = close(exp, got, case.rtol, max(case.atol, 1e-5))
            if why:
                return "fail", f"output {vi.name}: {why}"
    return "pass", ""


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("words", nargs="*")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for case in backend_data.all_cases(kinds=("node",)):
        if args.words and not any(w.lower() in case.name.lower() for w in args.words):
            continue
        status, why = run_case(case)
        counts[status] += 1
        if status == "fail":
            print(f"FAIL {case.name}: {why.splitlines()[0] if not args.verbose else why}")
    print(f"{counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped")
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
