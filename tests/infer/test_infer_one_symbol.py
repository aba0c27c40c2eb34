"""One test of "this dim is k times one symbol" (findings.one_symbol) serves
both shape.dim-fixed warnings: a Reshape to fixed numbers and a folded dim
meeting a weight. The Reshape's own test read the dim's spelling, so a
file's name with a dash (`batch-size`) or a multiple (`2*seq`) was taken
for an expression and the warning was missed. The oracle is onnxruntime's
float run: the size the warning names runs, any other fails."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnxstudio import core
from onnxstudio.core.check import check

F = TensorProto.FLOAT


def _reshape_model(first_dim: str, doubled: bool):
    """x [first_dim, 64] (concatenated with itself along axis 0 when
    `doubled`) reshaped to the fixed [1, 4, 32] or [1, 128]."""
    nodes, src = [], "x"
    if doubled:
        nodes.append(helper.make_node("Concat", ["x", "x"], ["xx"], axis=0, name="twice"))
        src = "xx"
    target = [1, 128] if doubled else [1, 2, 32]
    nodes.append(helper.make_node("Reshape", [src, "shape"], ["y"], name="fold"))
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", F, [first_dim, 64])],
                          [helper.make_tensor_value_info("y", F, None)],
                          [numpy_helper.from_array(np.array(target, np.int64), "shape")])
    return helper.make_model(g, ir_version=8, opset_imports=[helper.make_opsetid("", 17)])


def _runs(m, rows: int) -> bool:
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    try:
        sess.run(None, {"x": np.ones((rows, 64), np.float32)})
        return True
    except Exception:  # noqa: BLE001 - onnxruntime refusing the size is the verdict
        return False


@pytest.mark.parametrize("first_dim, doubled, message", [
    ("batch-size", False, "batch-size can only be 1 here"),
    ("seq", True, "seq can only be 1 here"),
])
def test_a_reshape_to_fixed_numbers_warns_for_any_one_symbol(tmp_path, first_dim, doubled, message):
    m = _reshape_model(first_dim, doubled)
    assert _runs(m, 1) and not _runs(m, 2)
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    found = [d for d in check(core.load(path)) if d.code == "shape.dim-fixed"]
    assert [d.path for d in found] == ['graph/node[%d] Reshape "fold"' % (1 if doubled else 0)]
    assert found[0].message.startswith(message)


def test_one_symbol_reads_the_polynomial_not_the_spelling():
    from onnxstudio.core.infer.dims import dim_add, dim_mul
    from onnxstudio.core.infer.findings import one_symbol
    assert one_symbol("batch-size") == ("batch-size", 1)
    assert one_symbol("batch") == ("batch", 1)
    assert one_symbol(7) is None and one_symbol(None) is None
    assert one_symbol("?3") is None          # made for an unknown size: nothing the user gave
    assert one_symbol(dim_mul(256, "batch")) == ("batch", 256)
    assert one_symbol(dim_add("seq", 1)) is None
    assert one_symbol(dim_mul("batch", "seq")) is None
