"""`onnxstudio infer FILE [-o OUT]`."""
from __future__ import annotations

import subprocess
import sys

import onnx
import pytest
from onnx import TensorProto, helper

# Each test runs the CLI in a child process.
pytestmark = pytest.mark.slow


def _model(path):
    g = helper.make_graph(
        [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
         helper.make_node("Concat", ["t", "t"], ["y"], axis=0)], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]), str(path))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "onnxstudio", "infer", *map(str, args)],
                          capture_output=True, text=True, timeout=120)


def test_infer_writes_a_copy_with_value_info(tmp_path):
    src, dst = tmp_path / "m.onnx", tmp_path / "out.onnx"
    _model(src)
    before = src.read_bytes()
    r = _cli(src, "-o", dst)
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stdout
    assert src.read_bytes() == before            # the input is never modified
    m = onnx.load(str(dst))
    vi = {v.name: v for v in m.graph.value_info}
    dims = [d.dim_value or d.dim_param for d in vi["t"].type.tensor_type.shape.dim]
    assert dims == [3, "N"]
    out_dims = [d.dim_value or d.dim_param for d in m.graph.output[0].type.tensor_type.shape.dim]
    assert out_dims == [6, "N"]


def test_infer_default_output_name_and_errors(tmp_path):
    src = tmp_path / "m.onnx"
    _model(src)
    assert _cli(src).returncode == 0
    assert (tmp_path / "m.inferred.onnx").exists()
    r = _cli(tmp_path / "missing.onnx")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    r = _cli(src, "-o", src)
    assert r.returncode == 2 and "overwrite" in (r.stderr + r.stdout)


def test_written_copies_of_the_shared_models_pass_onnx_checks(tmp_path):
    import numpy as np
    import onnx.shape_inference

    from shared_models import shared_model_dirs

    models = [d / "model.onnx" for d in shared_model_dirs()]
    for src in models:
        dst = tmp_path / f"{src.parent.name}.onnx"
        r = _cli(src, "-o", dst, "-q")
        assert r.returncode == 0, r.stderr
        m = onnx.load(str(dst))
        onnx.checker.check_model(m, full_check=True)
        # onnx's own strict inference finds nothing to contradict in what we stored.
        onnx.shape_inference.infer_shapes(m, strict_mode=True, data_prop=True)
        try:
            import onnxruntime as ort
        except ImportError:
            continue
        feeds = dict(np.load(src.parent / "inputs.npz", allow_pickle=True))
        ort.InferenceSession(str(dst), providers=["CPUExecutionProvider"]).run(None, feeds)


def test_the_summary_counts_unknown_dims_as_unknown(tmp_path):
    # x's axis 0 has no size: it is named x.0 and counts as known (a name,
    # written to the file); NonZero's count is a size only one run knows,
    # written as an unknown dim: that value has an unknown dim.
    src, dst = tmp_path / "m.onnx", tmp_path / "out.onnx"
    g = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("NonZero", ["r"], ["nz"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [None, 3])],
        [helper.make_tensor_value_info("nz", TensorProto.INT64, None)])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)]), str(src))
    r = _cli(src, "-o", dst)
    assert r.returncode == 0, r.stderr
    assert "of 3 values in the main graph, 2 have every dim known (a number or a name), 1 an unknown dim, " \
           "0 no known rank" in r.stdout
    assert "input dims without a size are named after their input and axis: x.0" in r.stdout
    m = onnx.load(str(dst))
    dims = {vi.name: [d.dim_param or d.dim_value or None for d in vi.type.tensor_type.shape.dim]
            for vi in list(m.graph.value_info) + list(m.graph.output)}
    assert dims == {"r": ["x.0", 3], "nz": [2, None]}
