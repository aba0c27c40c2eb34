"""onnxruntime refusing a model the comparison hands it: said once, in our words."""
from __future__ import annotations

import numpy as np
import pytest

from onnxstudio import cli


def test_onnxruntime_refusing_a_model_is_said_once_in_our_words(tmp_path, capfd):
    """A model onnxruntime refuses at run time and we run: RotaryEmbedding's
    cos_cache of batch 1 broadcast over a batch of 2, as torch's dynamo export
    of Llama makes it (the spec's function broadcasts; onnxruntime wants equal
    shapes). onnxruntime used to log its error to stderr at each of the
    comparison's attempts, before our sentence."""
    pytest.importorskip("onnxruntime")
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    info = helper.make_tensor_value_info
    graph = helper.make_graph(
        [helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], name="rope")], "rope",
        [info("x", TensorProto.FLOAT, [2, 4, 3, 8]), info("cos", TensorProto.FLOAT, [1, 3, 4]),
         info("sin", TensorProto.FLOAT, [1, 3, 4])], [info("y", TensorProto.FLOAT, [2, 4, 3, 8])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 23)]), str(tmp_path / "m.onnx"))
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "inputs.npz", x=rng.standard_normal((2, 4, 3, 8)).astype(np.float32),
             cos=rng.standard_normal((1, 3, 4)).astype(np.float32),
             sin=rng.standard_normal((1, 3, 4)).astype(np.float32))
    code = cli.main(["run", str(tmp_path / "m.onnx"), "--load-inputs", str(tmp_path / "inputs.npz"),
                     "--compare-onnxruntime"])
    out, err = capfd.readouterr()
    assert code == 2
    assert "y: float[2,4,3,8]" in out                           # our run, before the comparison
    assert "onnxruntime could not run the model: " in err and "RotaryEmbedding" in err
    assert "[E:onnxruntime" not in err and err.count("RotaryEmbedding node") == 1
