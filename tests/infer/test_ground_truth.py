"""Inferred output shapes against the real outputs stored with every backend
test case, with the files' output declarations removed first: wherever we
infer a number, the reference output has that size; a symbol stands for one
size within a case."""
from __future__ import annotations

import onnx
import pytest

from backend_data import all_cases, read_pb_value
from onnxstudio import core
from onnxstudio.core.infer import infer
from onnxstudio.core.ir.types import SequenceType, TensorType

from .oracle import strip_declarations

# Cases whose own declarations are wrong; declared types refine inferred ones
# (as in onnx), so the wrong declaration shows through.
WRONG_DECLARATIONS = {
    "node/test_loop16_seq_none": "the Loop body declares seq(float[]) but inserts 1-D slices",
}


def _shape_problems(t, value, bindings):
    if isinstance(t, SequenceType) and isinstance(value, list):
        # A symbol in an element type may stand for a different size per element.
        return [p for item in value for p in _shape_problems(t.elem, item, {})]
    if not isinstance(t, TensorType) or t.shape is None or not hasattr(value, "shape"):
        return []
    if len(t.shape) != len(value.shape):
        return [f"rank: inferred {t}, real {value.shape}"]
    for d, n in zip(t.shape, value.shape):
        if isinstance(d, int) and d != n:
            return [f"inferred {t}, real {value.shape}"]
        if isinstance(d, str) and bindings.setdefault(d, n) != n:
            return [f"symbol {d} is {bindings[d]} and {n}"]
    return []


@pytest.mark.slow
@pytest.mark.parametrize("kinds", [("node",), ("simple", "pytorch-converted", "pytorch-operator")])
def test_inferred_output_shapes_match_reference_outputs(kinds):
    checked, problems = 0, []
    for case in all_cases(kinds):
        if case.id in WRONG_DECLARATIONS:
            continue
        original = onnx.load(str(case.model_path))
        stripped = strip_declarations(original)
        types = infer(core.load_bytes(stripped.SerializeToString(),
                                      base_dir=str(case.model_path.parent)))
        for inputs, outputs in case.data_sets()[:1]:
            bindings = {}
            for vi, path in zip(original.graph.input, inputs):
                value = read_pb_value(path, vi)
                t = types.get(vi.name)
                problems += [f"{case.id} input {vi.name}: {p}" for p in _shape_problems(t, value, bindings)]
            for vi, path in zip(original.graph.output, outputs):
                value = read_pb_value(path, vi)
                found = _shape_problems(types.get(vi.name), value, bindings)
                checked += 1
                problems += [f"{case.id} output {vi.name}: {p}" for p in found]
    print(f"\n{checked} reference outputs checked against inferred shapes")
    assert checked > 100
    assert not problems, "\n".join(problems[:40])
